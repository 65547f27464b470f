package coordinator

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/sigil/sigil/apierr"
)

// An activity's fingerprint is the SHA-256 of the exact bytes of its request body: how an activity is known
// independently of who submitted it (a co-signer computes it from the body to approve, as @turnkey/crypto's
// computeActivityFingerprint does).
//
// It is stored as the bare hexadecimal digest (the activities table's key and the record's field, the same for rows
// written before and after the reference's form was adopted), and shown everywhere in that form, "sha256:<hex>":
// activity records, the intents of votes, webhook payloads, app proofs. Votes accept both forms.

// fingerprintPrefix is the reference's prefix of a fingerprint: the digest's algorithm.
const fingerprintPrefix = "sha256:"

// bodyDigest is the stored form of a body's fingerprint: its SHA-256, in lower-case hexadecimal.
func bodyDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// wireFingerprint is the form a stored digest is shown in.
func wireFingerprint(digest string) string { return fingerprintPrefix + digest }

// parseFingerprint reads a fingerprint given in either form ("sha256:<hex>", or the bare hex digest of earlier
// versions) and returns the stored form, or an error for a string no activity can have. It refuses before any query
// what PostgreSQL would refuse outright (a NUL).
func parseFingerprint(field, s string) (string, error) {
	digest := strings.TrimPrefix(s, fingerprintPrefix)
	if b, err := hex.DecodeString(digest); err != nil || len(b) != sha256.Size {
		return "", apierr.Invalid("%s: %q is not an activity's fingerprint (\"sha256:\" and 64 hexadecimal digits, or the digits alone)", field, s)
	}
	return strings.ToLower(digest), nil
}
