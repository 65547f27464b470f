package webhook

import (
	"bytes"
	"testing"
)

// BenchmarkSignDelivery is the signature Turnkey's delivery contract asks for on every attempt, Ed25519 over the key
// id, the timestamp, the event id and the body, for an event the size of a signing activity's with its headers
// (about 5 KB; the cost depends on the length only). No delivery can leave it out, so it bounds from below what a
// webhook adds to each activity it reports (docs/BENCHMARKS.md, Webhooks).
func BenchmarkSignDelivery(b *testing.B) {
	s := testSigner(b, "whk_key_1", 1)
	body := bytes.Repeat([]byte(`{"activity":0}`), 5<<10/14)
	m := Meta{EventID: "0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a7b:ACTIVITY_STATUS_COMPLETED", EventType: "ACTIVITY_UPDATES",
		OrganizationID: "5b3c3e1e-8a7f-4f55-9a51-6c1f7d2e9b10"}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := s.Headers(m, body, testTime); err != nil {
			b.Fatal(err)
		}
	}
}
