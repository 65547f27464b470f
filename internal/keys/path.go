package keys

import (
	"fmt"
	"strconv"
	"strings"
)

// HardenedOffset is added to an index to mark a hardened child (BIP-32).
const HardenedOffset uint32 = 1 << 31

// maxDepth is the deepest path BIP-32 can serialize (depth is one byte).
const maxDepth = 255

// Path is a BIP-32 derivation path; each element is a child number with
// HardenedOffset set for hardened children. The empty path is the master key.
type Path []uint32

// ParsePath parses a PATH_FORMAT_BIP32 path such as "m/44'/60'/0'/0/0".
// Hardened children are marked with ', h or H. Indexes are decimal without
// sign or leading zeros and below 2^31.
func ParsePath(s string) (Path, error) {
	if s == "m" {
		return Path{}, nil
	}
	rest, ok := strings.CutPrefix(s, "m/")
	if !ok {
		return nil, fmt.Errorf("derivation path %q must start with \"m/\"", s)
	}
	parts := strings.Split(rest, "/")
	if len(parts) > maxDepth {
		return nil, fmt.Errorf("derivation path %q has %d levels: at most %d are allowed", s, len(parts), maxDepth)
	}
	path := make(Path, len(parts))
	for i, part := range parts {
		child, err := parsePathElement(part)
		if err != nil {
			return nil, fmt.Errorf("derivation path %q, level %d: %w", s, i+1, err)
		}
		path[i] = child
	}
	return path, nil
}

func parsePathElement(part string) (uint32, error) {
	digits, hardened := part, false
	if n := len(part); n > 0 && (part[n-1] == '\'' || part[n-1] == 'h' || part[n-1] == 'H') {
		digits, hardened = part[:n-1], true
	}
	if digits == "" {
		return 0, fmt.Errorf("empty index")
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("index %q is not a decimal number", part)
		}
	}
	if len(digits) > 1 && digits[0] == '0' {
		return 0, fmt.Errorf("index %q has a leading zero", part)
	}
	v, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || uint32(v) >= HardenedOffset {
		return 0, fmt.Errorf("index %q is out of range: it must be below 2147483648", part)
	}
	if hardened {
		return uint32(v) | HardenedOffset, nil
	}
	return uint32(v), nil
}

// String formats the path with ' as the hardened marker.
func (p Path) String() string {
	var b strings.Builder
	b.WriteString("m")
	for _, c := range p {
		b.WriteByte('/')
		b.WriteString(strconv.FormatUint(uint64(c&^HardenedOffset), 10))
		if c&HardenedOffset != 0 {
			b.WriteByte('\'')
		}
	}
	return b.String()
}

// Indexes returns each level's index without the hardened offset: the policy
// field wallet_account.path_indexes.
func (p Path) Indexes() []uint32 {
	out := make([]uint32, len(p))
	for i, c := range p {
		out[i] = c &^ HardenedOffset
	}
	return out
}

// Hardened reports for each level whether it is hardened: the policy field
// wallet_account.path_hardened.
func (p Path) Hardened() []bool {
	out := make([]bool, len(p))
	for i, c := range p {
		out[i] = c&HardenedOffset != 0
	}
	return out
}
