package coordinator

import (
	"encoding/json"
	"testing"

	"github.com/sigil/sigil/api"
)

// What recording a result costs with its secrets redacted (setResult) beside marshalling it as it is, for a signing's
// result (no secret: the common case, on every signing) and a read-only session's (a token to redact).
func BenchmarkRecordResult(b *testing.B) {
	results := map[string]any{
		"signing":           &api.SignRawPayloadResult{R: "8f2d3a", S: "17c0b9", V: "01"},
		"read-only session": &api.CreateReadOnlySessionResult{OrganizationID: "org", UserID: "user", Session: "eyJhbGciOiJFUzI1NiJ9.e30.sig", SessionExpiry: "1796168702"},
	}
	for _, name := range []string{"signing", "read-only session"} {
		result := results[name]
		b.Run(name+"/marshal", func(b *testing.B) {
			for b.Loop() {
				if _, err := json.Marshal(result); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/setResult", func(b *testing.B) {
			var r record
			for b.Loop() {
				if err := r.setResult(result); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// setResult keeps a result's secret out of what is stored, and in the first answer only.
func TestSetResultRedactsSecrets(t *testing.T) {
	var r record
	r.spec = api.CreateReadOnlySession.ActivitySpec
	r.Status = api.StatusCompleted
	if err := r.setResult(&api.CreateReadOnlySessionResult{Session: "bearer", SessionExpiry: "1"}); err != nil {
		t.Fatal(err)
	}
	var stored, shown api.CreateReadOnlySessionResult
	_ = json.Unmarshal(r.Result, &stored)
	_ = json.Unmarshal(r.answer("").Result[r.spec.ResultKey], &shown)
	if stored.Session != api.Redacted || shown.Session != "bearer" || stored.SessionExpiry != "1" {
		t.Fatalf("stored %+v, answered %+v", stored, shown)
	}
	if err := r.setResult(&api.SignRawPayloadResult{R: "1"}); err != nil || r.shown != nil {
		t.Fatalf("a result with no secret: shown %s, %v", r.shown, err)
	}
}
