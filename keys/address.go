package keys

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// AddressFormat is an address format by its public API enum name.
type AddressFormat string

// Supported address formats.
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
)

// ErrUnsupportedAddressFormat is wrapped by errors for address formats of the
// public API that are not implemented yet (Bitcoin, Cosmos, Tron, ...).
var ErrUnsupportedAddressFormat = errors.New("address format not supported yet")

// ErrAddressFormatCurve is wrapped by errors for an address format that does
// not apply to the key's curve.
var ErrAddressFormatCurve = errors.New("address format does not fit the curve")

var formatCurves = map[AddressFormat][]Curve{
	AddressFormatEthereum:     {CurveSecp256k1},
	AddressFormatSolana:       {CurveEd25519},
	AddressFormatCompressed:   {CurveSecp256k1, CurveP256, CurveEd25519},
	AddressFormatUncompressed: {CurveSecp256k1, CurveP256},
}

// CheckAddressFormat reports whether format can be used with curve, so that
// a request can be refused before any key is derived.
func CheckAddressFormat(curve Curve, format AddressFormat) error {
	if _, err := paramsFor(curve); err != nil {
		return err
	}
	curves, ok := formatCurves[format]
	if !ok {
		if strings.HasPrefix(string(format), "ADDRESS_FORMAT_") {
			return fmt.Errorf("%w: %s", ErrUnsupportedAddressFormat, format)
		}
		return fmt.Errorf("unknown address format %q", format)
	}
	for _, c := range curves {
		if c == curve {
			return nil
		}
	}
	return fmt.Errorf("%w: %s needs a key on %s, not %s", ErrAddressFormatCurve, format, joinCurves(curves), curve)
}

func joinCurves(curves []Curve) string {
	names := make([]string, len(curves))
	for i, c := range curves {
		names[i] = string(c)
	}
	return strings.Join(names, " or ")
}

// Address formats publicKey (as in [Node.PublicKey]) in the given format.
func Address(curve Curve, format AddressFormat, publicKey []byte) (string, error) {
	if err := CheckAddressFormat(curve, format); err != nil {
		return "", err
	}
	if curve == CurveEd25519 {
		if len(publicKey) != 32 {
			return "", fmt.Errorf("Ed25519 public key is %d bytes: want 32", len(publicKey))
		}
		if format == AddressFormatSolana {
			return base58Encode(publicKey), nil
		}
		return hex.EncodeToString(publicKey), nil
	}
	uncompressed, err := decompress(curve, publicKey)
	if err != nil {
		return "", err
	}
	switch format {
	case AddressFormatEthereum:
		return common.BytesToAddress(crypto.Keccak256(uncompressed[1:])[12:]).Hex(), nil
	case AddressFormatCompressed:
		return hex.EncodeToString(compressP256(uncompressed)), nil
	default: // AddressFormatUncompressed
		return hex.EncodeToString(uncompressed), nil
	}
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
