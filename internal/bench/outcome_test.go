package bench

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/client"
)

func answer(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Body: io.NopCloser(strings.NewReader(body))}
}

func TestReadActivityOutcome(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		wantErr    string // "" for success
	}{
		{"completed", `{"activity":{"id":"a1","organizationId":"o","status":"ACTIVITY_STATUS_COMPLETED","votes":[]}}`, 200, ""},
		{"status after nested values", `{"activity":{"votes":[{"user":{"apiKeys":[{"x":1}]}}],"result":{"activity":{"status":"ACTIVITY_STATUS_FAILED"}},"status":"ACTIVITY_STATUS_COMPLETED","id":"a2"}}`, 200, ""},
		{"members before the activity", `{"other":{"status":"ACTIVITY_STATUS_COMPLETED"},"activity":{"id":"a3","status":"ACTIVITY_STATUS_CONSENSUS_NEEDED"}}`, 200, "activity a3: ACTIVITY_STATUS_CONSENSUS_NEEDED"},
		{"failed", `{"activity":{"id":"a4","status":"ACTIVITY_STATUS_FAILED"}}`, 200, "activity a4: ACTIVITY_STATUS_FAILED"},
		{"no status", `{"activity":{"id":"a5"}}`, 200, "the activity has no status"},
		{"no activity", `{"result":{}}`, 200, "no activity in the answer"},
		{"not an object", `[]`, 200, "expected an object"},
		{"cut short", `{"activity":{"id":"a6","sta`, 200, "unexpected EOF"},
		{"an error answer", `{"code":7,"message":"policy denied","details":[]}`, 403, "policy denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readActivityOutcome(answer(tc.status, tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("got %v, want success", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// The answer is read to its end even when the status comes first, so that the connection can carry the next request.
func TestReadActivityOutcomeDrainsTheAnswer(t *testing.T) {
	body := strings.NewReader(`{"activity":{"id":"a","status":"ACTIVITY_STATUS_COMPLETED","votes":[` + strings.Repeat(`{"v":1},`, 1000) + `{}]}}`)
	if err := readActivityOutcome(&http.Response{StatusCode: 200, Body: io.NopCloser(body)}); err != nil {
		t.Fatal(err)
	}
	if body.Len() != 0 {
		t.Fatalf("%d bytes of the answer left unread", body.Len())
	}
}

// BenchmarkReadActivityOutcome compares reading a signing activity's answer (about 4 KB, the status near its start, as
// Sigil sends it) as the load generator does with decoding all of it into the same two fields.
func BenchmarkReadActivityOutcome(b *testing.B) {
	vote := `{"id":"0ca79039-2497-403d-9c17-695bca8592b5","user":{"userName":"root","apiKeys":[{"credential":{"publicKey":"029f7dfa3333848d9892470c70f323d15a6b9b9ed389b7a7f3b0f38795b4bfd8d2","type":"CREDENTIAL_TYPE_API_KEY_P256"},"createdAt":{"seconds":"1795776689","nanos":"298724376"}}]},"selection":"VOTE_SELECTION_APPROVED"}`
	body := `{"activity":{"id":"01a21ca1-e836-7da5-b595-80c22c8a95dd","organizationId":"076d29ce-4b69-43e2-8cb7-6aae3ef3bb30","status":"ACTIVITY_STATUS_COMPLETED","votes":[` +
		strings.Repeat(vote+",", 9) + vote + `]}}`
	b.Run("until the status", func(b *testing.B) {
		for b.Loop() {
			if err := readActivityOutcome(answer(200, body)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var res struct {
				Activity struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"activity"`
			}
			if err := client.ReadResponse(answer(200, body), &res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
