package keys

import (
	"crypto/sha256"
	"crypto/sha3"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/blake2b"
)

// encodeTron is base58check(0x41 || the last 20 bytes of keccak-256 of the uncompressed key), the Ethereum address
// bytes behind Tron's prefix.
func encodeTron(curve Curve, pub []byte) (string, error) {
	u, err := decompress(curve, pub)
	if err != nil {
		return "", err
	}
	return TronAddress(crypto.Keccak256(u[1:])[12:]), nil
}

// TronAddress formats the 20 bytes of an account as a Tron base58check address (T...).
func TronAddress(account []byte) string { return Base58CheckEncode(append([]byte{0x41}, account...)) }

// encodeSui is 0x || hex(BLAKE2b-256(flag 0x00 for Ed25519 || key)).
func encodeSui(_ Curve, pub []byte) (string, error) {
	h := blake2b.Sum256(append([]byte{0x00}, pub...))
	return "0x" + hex.EncodeToString(h[:]), nil
}

// encodeAptos is the authentication key of a single Ed25519 key: 0x || hex(SHA3-256(key || scheme 0x00)).
func encodeAptos(_ Curve, pub []byte) (string, error) {
	h := sha3.Sum256(append(append([]byte{}, pub...), 0x00))
	return "0x" + hex.EncodeToString(h[:]), nil
}

// encodeStellar is the StrKey of an Ed25519 account id: base32(version 6<<3 || key || CRC16-XModem little-endian).
func encodeStellar(_ Curve, pub []byte) (string, error) {
	payload := append([]byte{6 << 3}, pub...)
	payload = binary.LittleEndian.AppendUint16(payload, crc16XModem(payload))
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(payload), nil
}

// xrpAlphabet is the XRP Ledger's base58 alphabet.
const xrpAlphabet = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"

// encodeXRP is the classic address: base58check, in the XRP Ledger's alphabet, of 0x00 || RIPEMD-160(SHA-256(key)).
func encodeXRP(_ Curve, pub []byte) (string, error) {
	payload := append([]byte{0x00}, btcutil.Hash160(pub)...)
	first := sha256.Sum256(payload)
	second := sha256.Sum256(first[:])
	return base58EncodeAlphabet(append(payload, second[:4]...), xrpAlphabet), nil
}

// crc16XModem is CRC-16/XMODEM (polynomial 0x1021, initial 0), used by Stellar's StrKey and TON's addresses.
func crc16XModem(b []byte) uint16 {
	var crc uint16
	for _, v := range b {
		crc ^= uint16(v) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// A TON wallet's address is the hash of its StateInit cell, which holds the wallet contract's code cell and a data
// cell with the key. The code cells are fixed: their representation hashes and depths (from @ton/ton's
// WalletContractV3R2, V4 and V5R1) are all the address needs of them.
type tonWallet struct {
	codeHash  string
	codeDepth uint16
	data      func(pub []byte) (bits []byte, n int) // the data cell's bits and its bit count
}

// tonSubwallet is the default wallet id of v3 and v4 wallets on workchain 0: 698983191.
const tonSubwallet = 698983191

var (
	tonV3R2 = tonWallet{"84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599", 0, func(pub []byte) ([]byte, int) {
		// seqno:uint32 wallet_id:uint32 public_key:bits256
		b := binary.BigEndian.AppendUint32(make([]byte, 4), tonSubwallet)
		return append(b, pub...), 320
	}}
	tonV4R2 = tonWallet{"feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0", 7, func(pub []byte) ([]byte, int) {
		// seqno:uint32 wallet_id:uint32 public_key:bits256 plugins:(HashmapE 256 ...) = 0
		b := binary.BigEndian.AppendUint32(make([]byte, 4), tonSubwallet)
		return append(append(b, pub...), 0), 321
	}}
	tonV5R1 = tonWallet{"20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f", 6, func(pub []byte) ([]byte, int) {
		// is_signature_allowed:bit(1) seqno:uint32 wallet_id:int32 public_key:bits256 extensions:(HashmapE) = 0. The
		// wallet id is the mainnet's global id (-239) xor the client context (1 bit set, workchain 0, version 0,
		// subwallet 0): 0x7fffff11.
		var w [4 + 4 + 32]byte
		binary.BigEndian.PutUint32(w[4:], 0x7fffff11) // uint32(int32(-239)) ^ 0x80000000
		copy(w[8:], pub)
		return shiftInBit(1, w[:]), 322
	}}
)

// shiftInBit prepends one bit to b (whose length in bits is a multiple of 8), giving len(b)+1 bytes.
func shiftInBit(bit byte, b []byte) []byte {
	out := make([]byte, len(b)+1)
	carry := bit
	for i, v := range b {
		out[i] = carry<<7 | v>>1
		carry = v & 1
	}
	out[len(b)] = carry << 7
	return out
}

// tonCellRepr is the start of a cell's representation: the descriptors and its bits, completed to a byte with a 1
// bit and zeros when the bit count is not a multiple of 8.
func tonCellRepr(refs int, bits []byte, n int) []byte {
	full := n / 8
	d2 := byte(full + (n+7)/8)
	out := []byte{byte(refs), d2}
	out = append(out, bits[:full]...)
	if r := n % 8; r != 0 {
		last := bits[full] & (0xff << (8 - r))
		out = append(out, last|1<<(7-r))
	}
	return out
}

func tonAddress(w tonWallet) func(Curve, []byte) (string, error) {
	code, _ := hex.DecodeString(w.codeHash)
	return func(_ Curve, pub []byte) (string, error) {
		bits, n := w.data(pub)
		dataHash := sha256.Sum256(tonCellRepr(0, bits, n))
		// StateInit: split_depth:(Maybe) 0, special:(Maybe) 0, code:(Maybe ^Cell) 1, data:(Maybe ^Cell) 1,
		// library:(HashmapE) 0 = 00110, with the code and data cells as references.
		repr := tonCellRepr(2, []byte{0b00110000}, 5)
		repr = binary.BigEndian.AppendUint16(repr, w.codeDepth)
		repr = binary.BigEndian.AppendUint16(repr, 0)
		repr = append(append(repr, code...), dataHash[:]...)
		account := sha256.Sum256(repr)
		// User-friendly form: flags 0x51 (non-bounceable), workchain 0, the account, CRC16-XModem big-endian; url-safe
		// base64.
		raw := append([]byte{0x51, 0x00}, account[:]...)
		raw = binary.BigEndian.AppendUint16(raw, crc16XModem(raw))
		return base64.URLEncoding.EncodeToString(raw), nil
	}
}
