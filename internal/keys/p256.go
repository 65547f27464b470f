package keys

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"fmt"
)

// decompressP256 parses a compressed or uncompressed P-256 point and returns
// it uncompressed. Public keys are not secret, so the deprecated but correct
// crypto/elliptic decompression is fine here.
func decompressP256(pub []byte) ([]byte, error) {
	var uncompressed []byte
	switch {
	case len(pub) == 33 && (pub[0] == 2 || pub[0] == 3):
		x, y := elliptic.UnmarshalCompressed(elliptic.P256(), pub)
		if x == nil {
			return nil, fmt.Errorf("invalid P-256 public key: not a point on the curve")
		}
		uncompressed = elliptic.Marshal(elliptic.P256(), x, y) //nolint:staticcheck // public data
	case len(pub) == 65 && pub[0] == 4:
		uncompressed = pub
	default:
		return nil, fmt.Errorf("invalid P-256 public key: want 33 bytes (02/03 prefix) or 65 bytes (04 prefix), got %d", len(pub))
	}
	// crypto/ecdh validates that the point is on the curve.
	if _, err := ecdh.P256().NewPublicKey(uncompressed); err != nil {
		return nil, fmt.Errorf("invalid P-256 public key: %w", err)
	}
	return append([]byte(nil), uncompressed...), nil
}
