package keys

import (
	"fmt"

	"filippo.io/nistec"
)

// decompressP256 parses a compressed or uncompressed P-256 point and returns it uncompressed.
func decompressP256(pub []byte) ([]byte, error) {
	if !(len(pub) == 33 && (pub[0] == 2 || pub[0] == 3)) && !(len(pub) == 65 && pub[0] == 4) {
		return nil, fmt.Errorf("invalid P-256 public key: want 33 bytes (02/03 prefix) or 65 bytes (04 prefix), got %d", len(pub))
	}
	// nistec recovers y from a compressed point and checks that the point is on the curve.
	p, err := nistec.NewP256Point().SetBytes(pub)
	if err != nil {
		return nil, fmt.Errorf("invalid P-256 public key: not a point on the curve")
	}
	return p.Bytes(), nil
}
