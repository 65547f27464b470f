package keys

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// The version bytes of BIP-32's serialisation: mainnet xprv / xpub, testnet tprv / tpub.
var extendedVersions = map[[4]byte]struct{ private, testnet bool }{
	{0x04, 0x88, 0xad, 0xe4}: {private: true},
	{0x04, 0x88, 0xb2, 0x1e}: {},
	{0x04, 0x35, 0x83, 0x94}: {private: true, testnet: true},
	{0x04, 0x35, 0x87, 0xcf}: {testnet: true},
}

const extendedKeyLen = 78

// ExtendedKey is a secp256k1 node in BIP-32's serialisation: base58check of version, depth, parent fingerprint,
// child number, chain code and key (0x00 ‖ the private key, or the compressed public key). Mainnet versions
// (xprv, xpub).
func (n *Node) ExtendedKey(private bool) (string, error) {
	if n.Curve != CurveSecp256k1 {
		return "", fmt.Errorf("BIP-32 serialises secp256k1 keys, not %s", n.Curve)
	}
	b := make([]byte, 0, extendedKeyLen)
	if private {
		b = append(b, 0x04, 0x88, 0xad, 0xe4)
	} else {
		b = append(b, 0x04, 0x88, 0xb2, 0x1e)
	}
	b = append(b, n.Depth)
	b = append(b, n.ParentFingerprint[:]...)
	b = binary.BigEndian.AppendUint32(b, n.ChildNumber)
	b = append(b, n.ChainCode[:]...)
	if private {
		b = append(b, 0)
		b = append(b, n.PrivateKey[:]...)
	} else {
		b = append(b, n.PublicKey...)
	}
	s := Base58CheckEncode(b)
	clear(b)
	return s, nil
}

// ParseExtendedKey decodes an xprv, xpub, tprv or tpub and checks all that BIP-32 requires of it: the checksum, a
// known version whose kind (private or public) matches the key's, a master key's zero parent fingerprint and child
// number, a private key in 1..n-1 and a public key on the curve. The node's PublicKey is set either way; its
// PrivateKey is zero for a public key.
func ParseExtendedKey(s string) (node *Node, private bool, err error) {
	b, err := Base58CheckDecode(s)
	if err != nil {
		return nil, false, fmt.Errorf("extended key: %w", err)
	}
	defer clear(b)
	if len(b) != extendedKeyLen {
		return nil, false, fmt.Errorf("extended key: %d bytes, want %d", len(b), extendedKeyLen)
	}
	version, ok := extendedVersions[[4]byte(b[:4])]
	if !ok {
		return nil, false, fmt.Errorf("extended key: unknown version %x", b[:4])
	}
	n := &Node{Curve: CurveSecp256k1, Depth: b[4], ChildNumber: binary.BigEndian.Uint32(b[9:13])}
	copy(n.ParentFingerprint[:], b[5:9])
	copy(n.ChainCode[:], b[13:45])
	if n.Depth == 0 && (n.ParentFingerprint != [4]byte{} || n.ChildNumber != 0) {
		return nil, false, errors.New("extended key: a master key (depth 0) with a parent fingerprint or child number")
	}
	key := b[45:]
	switch {
	case version.private && key[0] != 0:
		return nil, false, fmt.Errorf("extended key: a private version whose key starts with %02x, not 00", key[0])
	case version.private:
		copy(n.PrivateKey[:], key[1:])
		if n.PublicKey, err = publicKey(CurveSecp256k1, n.PrivateKey[:]); err != nil {
			n.Zero()
			return nil, false, fmt.Errorf("extended key: %w", err)
		}
	case key[0] != 2 && key[0] != 3:
		return nil, false, fmt.Errorf("extended key: a public version whose key starts with %02x, not 02 or 03", key[0])
	default:
		if _, err := secp256k1.ParsePubKey(key); err != nil {
			return nil, false, errors.New("extended key: the public key is not a point on the curve")
		}
		n.PublicKey = append([]byte(nil), key...)
	}
	return n, version.private, nil
}
