package keys

import (
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// AddressFormat is an address format by its public API enum name.
type AddressFormat string

// Address formats of the public API (the v1AddressFormat enum of @turnkey/http).
const (
	// AddressFormatEthereum is the EIP-55 checksummed address of a secp256k1 key.
	AddressFormatEthereum AddressFormat = "ADDRESS_FORMAT_ETHEREUM"
	// AddressFormatSolana is the base58 Ed25519 public key.
	AddressFormatSolana AddressFormat = "ADDRESS_FORMAT_SOLANA"
	// AddressFormatCompressed is the hex compressed public key (33 bytes on
	// secp256k1 and P-256; the raw 32-byte key on Ed25519).
	AddressFormatCompressed AddressFormat = "ADDRESS_FORMAT_COMPRESSED"
	// AddressFormatUncompressed is the hex uncompressed SEC1 point (65 bytes,
	// secp256k1 and P-256 only).
	AddressFormatUncompressed AddressFormat = "ADDRESS_FORMAT_UNCOMPRESSED"

	AddressFormatCosmos = AddressFormat("ADDRESS_FORMAT_COSMOS")
	AddressFormatSei    = AddressFormat("ADDRESS_FORMAT_SEI")
	AddressFormatTron   = AddressFormat("ADDRESS_FORMAT_TRON")
	AddressFormatSui    = AddressFormat("ADDRESS_FORMAT_SUI")
	AddressFormatAptos  = AddressFormat("ADDRESS_FORMAT_APTOS")
	AddressFormatXLM    = AddressFormat("ADDRESS_FORMAT_XLM")
	AddressFormatXRP    = AddressFormat("ADDRESS_FORMAT_XRP")

	AddressFormatDogeMainnet = AddressFormat("ADDRESS_FORMAT_DOGE_MAINNET")
	AddressFormatDogeTestnet = AddressFormat("ADDRESS_FORMAT_DOGE_TESTNET")

	AddressFormatTonV3R2 = AddressFormat("ADDRESS_FORMAT_TON_V3R2")
	AddressFormatTonV4R2 = AddressFormat("ADDRESS_FORMAT_TON_V4R2")
	AddressFormatTonV5R1 = AddressFormat("ADDRESS_FORMAT_TON_V5R1")

	AddressFormatSparkMainnet = AddressFormat("ADDRESS_FORMAT_SPARK_MAINNET")
	AddressFormatSparkRegtest = AddressFormat("ADDRESS_FORMAT_SPARK_REGTEST")
)

// ErrUnsupportedAddressFormat is wrapped by errors for address formats of the
// public API that Sigil does not derive (none today; the list is kept so that a
// format added to the public API later is refused by name).
var ErrUnsupportedAddressFormat = errors.New("address format not supported")

// ErrAddressFormatCurve is wrapped by errors for an address format that does
// not apply to the key's curve.
var ErrAddressFormatCurve = errors.New("address format does not fit the curve")

// formatDef is how one address format is derived.
type formatDef struct {
	curves []Curve
	// defaultPath is the path of the format's first default account in the official SDKs (@turnkey/core's
	// DEFAULT_*_ACCOUNTS), with "" for the key formats that have none.
	defaultPath string
	// encode formats a public key: the compressed SEC1 point on secp256k1 and P-256, the raw key on Ed25519.
	encode func(curve Curve, pub []byte) (string, error)
	about  string
}

var formats = map[AddressFormat]formatDef{}

func init() {
	for f, d := range map[AddressFormat]formatDef{
		AddressFormatCompressed:   {curves: []Curve{CurveSecp256k1, CurveP256, CurveEd25519}, encode: encodeCompressed, about: "the hex public key: compressed SEC1 point (33 bytes), or the raw Ed25519 key (32 bytes)"},
		AddressFormatUncompressed: {curves: []Curve{CurveSecp256k1, CurveP256}, encode: encodeUncompressed, about: "the hex uncompressed SEC1 point (65 bytes)"},
		AddressFormatEthereum:     {curves: secp, defaultPath: "m/44'/60'/0'/0/0", encode: encodeEthereum, about: "EIP-55 checksummed keccak-256 address"},
		AddressFormatSolana:       {curves: ed, defaultPath: "m/44'/501'/0'/0'", encode: encodeSolana, about: "the base58 Ed25519 public key"},
		AddressFormatCosmos:       {curves: secp, defaultPath: "m/44'/118'/0'/0/0", encode: bech32Hash160("cosmos"), about: "bech32 `cosmos` of RIPEMD-160(SHA-256(compressed key))"},
		AddressFormatSei:          {curves: secp, defaultPath: "m/44'/118'/0'/0'/0'", encode: bech32Hash160("sei"), about: "bech32 `sei` of RIPEMD-160(SHA-256(compressed key))"},
		AddressFormatTron:         {curves: secp, defaultPath: "m/44'/195'/0'", encode: encodeTron, about: "base58check of 0x41 and the key's Ethereum address bytes"},
		AddressFormatSui:          {curves: ed, defaultPath: "m/44'/784'/0'/0'/0'", encode: encodeSui, about: "0x hex BLAKE2b-256 of 0x00 followed by the key"},
		AddressFormatAptos:        {curves: ed, defaultPath: "m/44'/637'/0'/0'/0'", encode: encodeAptos, about: "0x hex SHA3-256 of the key followed by 0x00 (the single-key authentication key)"},
		AddressFormatXLM:          {curves: ed, defaultPath: "m/44'/148'/0'", encode: encodeStellar, about: "Stellar StrKey account id (G...)"},
		AddressFormatXRP:          {curves: secp, defaultPath: "m/44'/144'/0'/0'/0'", encode: encodeXRP, about: "XRP Ledger classic address (r...) of RIPEMD-160(SHA-256(compressed key))"},
		AddressFormatDogeMainnet:  {curves: secp, defaultPath: "m/44'/3'/0'/0/0", encode: base58Hash160(0x1e), about: "Dogecoin P2PKH (D...)"},
		AddressFormatDogeTestnet:  {curves: secp, defaultPath: "m/44'/3'/0'/0/0", encode: base58Hash160(0x71), about: "Dogecoin testnet P2PKH (n...)"},
		AddressFormatTonV3R2:      {curves: ed, defaultPath: "m/44'/607'/0'/0'/0'", encode: tonAddress(tonV3R2), about: "TON wallet v3r2 (workchain 0, subwallet 698983191), user-friendly non-bounceable (UQ...)"},
		AddressFormatTonV4R2:      {curves: ed, defaultPath: "m/44'/607'/0'/0'/0'", encode: tonAddress(tonV4R2), about: "TON wallet v4r2 (workchain 0, subwallet 698983191), user-friendly non-bounceable (UQ...)"},
		AddressFormatTonV5R1:      {curves: ed, defaultPath: "m/44'/607'/0'/0'/0'", encode: tonAddress(tonV5R1), about: "TON wallet v5r1 (workchain 0, mainnet wallet id), user-friendly non-bounceable (UQ...)"},
		AddressFormatSparkMainnet: {curves: secp, defaultPath: "m/86'/0'/0'/0/0", encode: sparkAddress("spark"), about: "Spark identity address: bech32m `spark` of the protobuf {identity_public_key}"},
		AddressFormatSparkRegtest: {curves: secp, defaultPath: "m/86'/1'/0'/0/0", encode: sparkAddress("sparkrt"), about: "Spark identity address: bech32m `sparkrt` of the protobuf {identity_public_key}"},
	} {
		formats[f] = d
	}
	for _, n := range bitcoinNetworks {
		for _, s := range bitcoinScripts {
			f := AddressFormat("ADDRESS_FORMAT_BITCOIN_" + n.name + "_" + s.name)
			bitcoinFormats[f] = BitcoinFormat{Network: n.params, Script: s.kind}
			formats[f] = formatDef{curves: secp, defaultPath: fmt.Sprintf(s.path, n.coin), encode: bitcoinAddress(n, s.kind),
				about: "Bitcoin " + strings.ToLower(n.name) + " " + s.about}
		}
	}
}

var (
	secp = []Curve{CurveSecp256k1}
	ed   = []Curve{CurveEd25519}
)

// unsupportedFormats are formats of the public API that Sigil refuses, with why. Every value of @turnkey/http
// 6.6.0's v1AddressFormat is derived today, so it is empty.
var unsupportedFormats = map[AddressFormat]string{}

// FormatInfo describes one address format, for the docs and for tools.
type FormatInfo struct {
	Format      AddressFormat
	Curves      []Curve
	DefaultPath string // the official SDKs' default account path; empty for the plain key formats
	About       string
}

// AddressFormats lists every address format Sigil derives, by name.
func AddressFormats() []FormatInfo {
	out := make([]FormatInfo, 0, len(formats))
	for f, d := range formats {
		out = append(out, FormatInfo{Format: f, Curves: d.curves, DefaultPath: d.defaultPath, About: d.about})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Format < out[j].Format })
	return out
}

// DefaultPath is the derivation path of format's first account in the official SDKs' default accounts, "" when the
// format has none.
func DefaultPath(format AddressFormat) string { return formats[format].defaultPath }

// CheckAddressFormat reports whether format can be used with curve, so that
// a request can be refused before any key is derived.
func CheckAddressFormat(curve Curve, format AddressFormat) error {
	if _, err := paramsFor(curve); err != nil {
		return err
	}
	def, ok := formats[format]
	if !ok {
		if why, ok := unsupportedFormats[format]; ok {
			return fmt.Errorf("%w: %s: %s", ErrUnsupportedAddressFormat, format, why)
		}
		if strings.HasPrefix(string(format), "ADDRESS_FORMAT_") {
			return fmt.Errorf("%w: %s is not an address format Sigil knows", ErrUnsupportedAddressFormat, format)
		}
		return fmt.Errorf("unknown address format %q", format)
	}
	for _, c := range def.curves {
		if c == curve {
			return nil
		}
	}
	return fmt.Errorf("%w: %s needs a key on %s, not %s", ErrAddressFormatCurve, format, joinCurves(def.curves), curve)
}

func joinCurves(curves []Curve) string {
	names := make([]string, len(curves))
	for i, c := range curves {
		names[i] = string(c)
	}
	return strings.Join(names, " or ")
}

// Address formats publicKey (as in [Node.PublicKey], or an uncompressed SEC1 point) in the given format.
func Address(curve Curve, format AddressFormat, publicKey []byte) (string, error) {
	if err := CheckAddressFormat(curve, format); err != nil {
		return "", err
	}
	pub := publicKey
	if curve == CurveEd25519 {
		if len(publicKey) != 32 {
			return "", fmt.Errorf("Ed25519 public key is %d bytes: want 32", len(publicKey))
		}
	} else {
		uncompressed, err := decompress(curve, publicKey)
		if err != nil {
			return "", err
		}
		pub = compressP256(uncompressed) // the same SEC1 compression on both curves
	}
	return formats[format].encode(curve, pub)
}

func encodeCompressed(_ Curve, pub []byte) (string, error) { return hex.EncodeToString(pub), nil }

func encodeUncompressed(curve Curve, pub []byte) (string, error) {
	u, err := decompress(curve, pub)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(u), nil
}

func encodeSolana(_ Curve, pub []byte) (string, error) { return Base58Encode(pub), nil }

func encodeEthereum(curve Curve, pub []byte) (string, error) {
	u, err := decompress(curve, pub)
	if err != nil {
		return "", err
	}
	return common.BytesToAddress(crypto.Keccak256(u[1:])[12:]).Hex(), nil
}

// decompress parses a SEC1 point (compressed or not) and returns it
// uncompressed, checking that it is on the curve.
func decompress(curve Curve, pub []byte) ([]byte, error) {
	switch curve {
	case CurveSecp256k1:
		k, err := secp256k1.ParsePubKey(pub)
		if err != nil {
			return nil, fmt.Errorf("invalid secp256k1 public key: %w", err)
		}
		return k.SerializeUncompressed(), nil
	case CurveP256:
		return decompressP256(pub)
	}
	return nil, fmt.Errorf("curve %s has no SEC1 points", curve)
}
