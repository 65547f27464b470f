package coordinator

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// An activity marshalled by splicing is the same JSON value encoding/json makes of it, whatever state it is in.
func TestActivityResponseMarshalsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 13, 50, 35, 991166675, time.UTC)
	vote := func(user string) api.Vote {
		return api.Vote{ID: "v-" + user, UserID: user, User: api.User{UserID: user, UserName: "<agent & \"co\">",
			APIKeys:        []api.APIKey{{APIKeyID: "k", Credential: api.Credential{PublicKey: "02ab", Type: "CREDENTIAL_TYPE_API_KEY_P256"}}},
			Authenticators: []api.Authenticator{}, OauthProviders: []api.OauthProvider{}, UserTags: []string{}, MfaPolicies: []api.MfaPolicy{}},
			ActivityID: "a", Selection: api.VoteApproved, PublicKey: "02ab", Signature: "3045", Scheme: "SIGNATURE_SCHEME_TK_API_P256",
			CreatedAt: api.NewTimestamp(now)}
	}
	base := func() *record {
		return &record{ID: "a", OrganizationID: "o", Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Status: api.StatusCompleted,
			TimestampMs: "1795528235990", Fingerprint: "5859", CreatedAt: now, UpdatedAt: now,
			Intent: json.RawMessage(`{"signWith":"0x63e3","unsignedTransaction":"02f86f","type":"TRANSACTION_TYPE_ETHEREUM"}`),
			Result: json.RawMessage(`{"signedTransaction":"02f8b2\u003c"}`), Votes: []api.Vote{vote("u1")}}
	}
	completed := base()
	withProofs := base()
	withProofs.AppProofs = []api.AppProof{{Scheme: "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256", PublicKey: "04", ProofPayload: `{"x":1}`, Signature: "30"}}
	failed := base()
	failed.fail(apierr.Invalid("parameters.signWith: no wallet account \"x\" <here>"), now)
	waiting := base()
	waiting.Status, waiting.Result = api.StatusConsensusNeeded, nil
	waiting.Votes = append(waiting.Votes, vote("u2"))
	noVotes := base()
	noVotes.Votes = nil

	for name, rec := range map[string]*record{"completed": completed, "app proofs": withProofs, "failed": failed,
		"consensus needed": waiting, "no votes": noVotes} {
		for _, viewer := range []string{"", "u1", "u3"} {
			sameJSON(t, name+", record", rec, func() ([]byte, error) { return marshalRecord(rec) })
			nested := rec.nested(viewer)
			sameJSON(t, name+", nested", nested, func() ([]byte, error) { return marshalNested(&nested) })
			res := &api.ActivityResponse{Activity: rec.render(viewer)}
			sameJSON(t, name+", viewer "+viewer, res, func() ([]byte, error) { return marshalActivityResponse(res) })
			sameJSON(t, name+", activity, viewer "+viewer, res.Activity, func() ([]byte, error) { return marshalActivity(&res.Activity) })
		}
	}
}

// sameJSON fails unless marshal makes valid JSON of the same value as json.Marshal(v).
func sameJSON(t *testing.T, name string, v any, marshal func() ([]byte, error)) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(got) {
		t.Fatalf("%s: not JSON: %s", name, got)
	}
	var wantValue, gotValue any
	_ = json.Unmarshal(want, &wantValue)
	_ = json.Unmarshal(got, &gotValue)
	if !reflect.DeepEqual(gotValue, wantValue) {
		t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
	}
}

// Member names are quoted as encoding/json quotes them, identifiers or not.
func TestAppendName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"signTransactionResult", "activity", "a_b9", "", "a\"b", "<tag>", "naïve", "tab\t"} {
		want, _ := json.Marshal(name)
		if got := appendName(nil, name); string(got) != string(want) {
			t.Errorf("appendName(%q) = %s, want %s", name, got, want)
		}
	}
}
