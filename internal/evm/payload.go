package evm

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/internal/keys"
)

// PayloadEncoding is how sign_raw_payload's payload string is to be read.
type PayloadEncoding string

// Payload encodings of the public API.
const (
	EncodingHexadecimal          PayloadEncoding = "PAYLOAD_ENCODING_HEXADECIMAL"
	EncodingTextUTF8             PayloadEncoding = "PAYLOAD_ENCODING_TEXT_UTF8"
	EncodingEIP712               PayloadEncoding = "PAYLOAD_ENCODING_EIP712"
	EncodingEIP7702Authorization PayloadEncoding = "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"
)

// HashFunction is how sign_raw_payload turns the payload into what is signed.
type HashFunction string

// Hash functions of the public API.
const (
	HashNoOp          HashFunction = "HASH_FUNCTION_NO_OP"
	HashSHA256        HashFunction = "HASH_FUNCTION_SHA256"
	HashKeccak256     HashFunction = "HASH_FUNCTION_KECCAK256"
	HashNotApplicable HashFunction = "HASH_FUNCTION_NOT_APPLICABLE"
)

// ErrInvalidPayload is wrapped by every payload error.
var ErrInvalidPayload = errors.New("invalid payload")

// RawPayload is a decoded sign_raw_payload request.
//
// How encoding and hash function combine:
//
//   - HEXADECIMAL (hex, 0x optional) and TEXT_UTF8 (the string's bytes) give
//     the message. NO_OP signs it as the digest, so it must be exactly 32
//     bytes; SHA256 and KECCAK256 sign its hash. These three need an ECDSA key
//     (secp256k1, P-256). NOT_APPLICABLE signs the message itself and is the
//     only choice, and required, for Ed25519.
//   - EIP712 reads the payload as typed-data JSON and signs its EIP-712 hash,
//     which is already a keccak256 digest: the SDKs send NO_OP, and KECCAK256
//     is accepted as meaning the same (no second hash). SHA256 and
//     NOT_APPLICABLE are refused.
//   - EIP7702_AUTHORIZATION reads JSON {address, chainId, nonce} and signs
//     keccak256(0x05 || rlp([chainId, address, nonce])), with the same
//     hash-function rule as EIP712.
type RawPayload struct {
	Encoding     PayloadEncoding
	HashFunction HashFunction
	// Message is the decoded payload: the bytes for HEXADECIMAL and
	// TEXT_UTF8, the JSON text for EIP712 and EIP7702_AUTHORIZATION.
	Message       []byte
	TypedData     *TypedData     // EIP712 only
	Authorization *Authorization // EIP7702_AUTHORIZATION only
}

// ParseRawPayload decodes a payload and checks its encoding and hash
// function. Curve-specific rules are checked by SigningInput.
func ParseRawPayload(payload string, encoding PayloadEncoding, hash HashFunction) (*RawPayload, error) {
	switch hash {
	case HashNoOp, HashSHA256, HashKeccak256, HashNotApplicable:
	default:
		return nil, fmt.Errorf("%w: unknown hash function %q", ErrInvalidPayload, hash)
	}
	p := &RawPayload{Encoding: encoding, HashFunction: hash}
	switch encoding {
	case EncodingHexadecimal:
		b, err := decodeHex(payload)
		if err != nil {
			return nil, fmt.Errorf("%w: hexadecimal payload %v", ErrInvalidPayload, err)
		}
		p.Message = b
	case EncodingTextUTF8:
		if !utf8.ValidString(payload) {
			return nil, fmt.Errorf("%w: text payload is not valid UTF-8", ErrInvalidPayload)
		}
		p.Message = []byte(payload)
	case EncodingEIP712, EncodingEIP7702Authorization:
		if hash != HashNoOp && hash != HashKeccak256 {
			return nil, fmt.Errorf("%w: %s payloads are signed by their own keccak256 hash: use HASH_FUNCTION_NO_OP, not %s", ErrInvalidPayload, encoding, hash)
		}
		p.Message = []byte(payload)
		var err error
		if encoding == EncodingEIP712 {
			p.TypedData, err = ParseTypedData(p.Message)
		} else {
			p.Authorization, err = ParseAuthorization(p.Message)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPayload, err)
		}
	default:
		return nil, fmt.Errorf("%w: unknown payload encoding %q", ErrInvalidPayload, encoding)
	}
	if len(p.Message) == 0 {
		return nil, fmt.Errorf("%w: payload is empty", ErrInvalidPayload)
	}
	if hash == HashKeccak256 && (encoding == EncodingHexadecimal || encoding == EncodingTextUTF8) {
		if what := ethereumPreimage(p.Message); what != "" {
			return nil, fmt.Errorf("%w: the payload is %s, whose keccak256 hash is what a signature of it signs: %s", ErrInvalidPayload, what, preimageAdvice[what])
		}
	}
	return p, nil
}

// The encodings Ethereum signs the keccak256 hash of, which a hexadecimal or text payload hashed with keccak256 must
// not be: its signature would be a valid signature of a transaction, an EIP-7702 authorization or EIP-712 typed data
// that no policy saw as one (policies read eth.tx, eth.eip_7702_authorization and eth.eip_712 only of payloads that say
// what they are).
const (
	preimageTx            = "an unsigned Ethereum transaction"
	preimageAuthorization = "an EIP-7702 authorization (0x05 || rlp([chainId, address, nonce]))"
	preimageTypedData     = "an EIP-712 signing input (0x1901 || domain separator || struct hash)"
)

var preimageAdvice = map[string]string{
	preimageTx:            "sign it with SIGN_TRANSACTION_V2, which policies decide as eth.tx",
	preimageAuthorization: "sign it with PAYLOAD_ENCODING_EIP7702_AUTHORIZATION, which policies decide as eth.eip_7702_authorization",
	preimageTypedData:     "sign the typed data with PAYLOAD_ENCODING_EIP712, which policies decide as eth.eip_712",
}

// ethereumPreimage names the Ethereum signing encoding msg is, or is "" for a message that is none of them.
func ethereumPreimage(msg []byte) string {
	switch {
	case len(msg) == 66 && msg[0] == 0x19 && msg[1] == 0x01:
		return preimageTypedData
	case len(msg) > 1 && msg[0] == 0x05 && isAuthorizationRLP(msg[1:]):
		return preimageAuthorization
	}
	if _, err := DecodeUnsignedTransactionBytes(msg); err == nil {
		return preimageTx
	}
	return ""
}

// isAuthorizationRLP reports whether b is one RLP list of three values, as an authorization's signing input holds.
func isAuthorizationRLP(b []byte) bool {
	content, rest, err := rlp.SplitList(b)
	if err != nil || len(rest) > 0 {
		return false
	}
	n, err := rlp.CountValues(content)
	return err == nil && n == 3
}

// SigningInput returns what a key of the given curve signs: the 32-byte
// digest for ECDSA curves, the message itself for Ed25519.
func (p *RawPayload) SigningInput(curve keys.Curve) ([]byte, error) {
	if curve == keys.CurveEd25519 {
		if p.HashFunction != HashNotApplicable {
			return nil, fmt.Errorf("%w: Ed25519 keys sign the message itself: use HASH_FUNCTION_NOT_APPLICABLE, not %s", ErrInvalidPayload, p.HashFunction)
		}
		if p.TypedData != nil || p.Authorization != nil {
			return nil, fmt.Errorf("%w: %s payloads need a secp256k1 key", ErrInvalidPayload, p.Encoding)
		}
		return p.Message, nil
	}
	if curve != keys.CurveSecp256k1 && curve != keys.CurveP256 {
		return nil, fmt.Errorf("unknown curve %q", curve)
	}
	switch {
	case p.TypedData != nil:
		h := p.TypedData.Hash()
		return h[:], nil
	case p.Authorization != nil:
		h := p.Authorization.Hash()
		return h[:], nil
	}
	switch p.HashFunction {
	case HashNoOp:
		if len(p.Message) != 32 {
			return nil, fmt.Errorf("%w: with HASH_FUNCTION_NO_OP the payload is the digest and must be 32 bytes, got %d", ErrInvalidPayload, len(p.Message))
		}
		return p.Message, nil
	case HashSHA256:
		h := sha256.Sum256(p.Message)
		return h[:], nil
	case HashKeccak256:
		return crypto.Keccak256(p.Message), nil
	default: // HashNotApplicable
		return nil, fmt.Errorf("%w: HASH_FUNCTION_NOT_APPLICABLE is for Ed25519 keys; %s keys sign a digest", ErrInvalidPayload, curve)
	}
}

// Authorization is an EIP-7702 authorization tuple: the policy engine's
// eth.eip_7702_authorization.
type Authorization struct {
	ChainID *big.Int
	Address string // lower-case hex
	Nonce   uint64
}

// ParseAuthorization reads {"address", "chainId", "nonce"} JSON as
// @turnkey/viem sends it; numbers may be JSON numbers or decimal/0x strings.
func ParseAuthorization(jsonText []byte) (*Authorization, error) {
	dec := json.NewDecoder(bytes.NewReader(jsonText))
	dec.DisallowUnknownFields()
	var in struct {
		Address *string               `json:"address"`
		ChainID *math.HexOrDecimal256 `json:"chainId"`
		Nonce   *math.HexOrDecimal64  `json:"nonce"`
	}
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("EIP-7702 authorization: %v", err)
	}
	if dec.More() {
		return nil, errors.New("EIP-7702 authorization: trailing data after the JSON object")
	}
	switch {
	case in.Address == nil || in.ChainID == nil || in.Nonce == nil:
		return nil, errors.New("EIP-7702 authorization needs address, chainId and nonce")
	case !common.IsHexAddress(*in.Address) || !strings.HasPrefix(strings.ToLower(*in.Address), "0x"):
		return nil, fmt.Errorf("EIP-7702 authorization address %q is not a 0x-prefixed 20-byte hex address", *in.Address)
	case (*big.Int)(in.ChainID).Sign() < 0 || (*big.Int)(in.ChainID).BitLen() > 256:
		return nil, errors.New("EIP-7702 authorization chainId is out of range")
	}
	return &Authorization{
		ChainID: new(big.Int).Set((*big.Int)(in.ChainID)),
		Address: strings.ToLower(*in.Address),
		Nonce:   uint64(*in.Nonce),
	}, nil
}

// Hash is keccak256(0x05 || rlp([chainId, address, nonce])), the digest the
// authority signs.
func (a *Authorization) Hash() common.Hash {
	enc, err := rlp.EncodeToBytes([]any{a.ChainID, common.HexToAddress(a.Address), a.Nonce})
	if err != nil {
		panic(fmt.Sprintf("evm: encoding a checked authorization failed: %v", err))
	}
	return crypto.Keccak256Hash([]byte{0x05}, enc)
}
