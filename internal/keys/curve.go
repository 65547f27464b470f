package keys

import "fmt"

// Curve is an elliptic curve by its public API enum name.
type Curve string

// Curves of the public API.
const (
	CurveSecp256k1 Curve = "CURVE_SECP256K1"
	CurveEd25519   Curve = "CURVE_ED25519"
	CurveP256      Curve = "CURVE_P256"
)

// ParseCurve checks that name is a supported curve enum.
func ParseCurve(name string) (Curve, error) {
	switch c := Curve(name); c {
	case CurveSecp256k1, CurveEd25519, CurveP256:
		return c, nil
	}
	return "", fmt.Errorf("unknown curve %q: want CURVE_SECP256K1, CURVE_ED25519 or CURVE_P256", name)
}

// PathFormatBIP32 is the only derivation path format of the public API.
const PathFormatBIP32 = "PATH_FORMAT_BIP32"
