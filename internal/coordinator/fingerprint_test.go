package coordinator_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// An activity's fingerprint is "sha256:" and the hex SHA-256 of the exact body bytes, everywhere it is shown; votes
// name the activity in that form or by the bare digest that earlier versions showed (and that records written before
// the change hold), and record the reference's form in their intent.
func TestFingerprintForms(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		root2, c2 := s.createUser(org, s.root, "root2")
		if _, _, err := s.root.UpdateRootQuorum(bg, org, api.UpdateRootQuorumIntent{Threshold: ptr(int32(2)), UserIDs: []string{s.boot.UserID, root2}}); err != nil {
			t.Fatal(err)
		}
		// submit sends a body as it is and returns the activity and the body's digest in hex.
		submit := func(name string) (api.Activity, string) {
			body := envelope("ACTIVITY_TYPE_CREATE_USERS_V3", org, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{
				UserName: name, APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{},
				OauthProviders: []api.OauthProviderParams{}, UserTags: []string{},
			}}}, s.stamps.Now())
			r := s.stamped("/public/v1/submit/create_users", body, s.boot.APIKey)
			var res api.ActivityResponse
			if err := json.Unmarshal(r.raw, &res); r.status != http.StatusOK || err != nil {
				t.Fatalf("submit: %d %s", r.status, r.raw)
			}
			sum := sha256.Sum256(body)
			return res.Activity, hex.EncodeToString(sum[:])
		}

		a, digest := submit("by-bare-digest")
		if a.Status != api.StatusConsensusNeeded || a.Fingerprint != "sha256:"+digest {
			t.Fatalf("activity %s fingerprint %q, want sha256:%s", a.Status, a.Fingerprint, digest)
		}
		done, err := c2.ApproveActivity(bg, org, digest)
		if err != nil || done.Status != api.StatusCompleted || done.Fingerprint != a.Fingerprint {
			t.Fatalf("approved by the bare digest: %v %+v", err, done)
		}
		var nested api.NestedActivity
		if err := json.Unmarshal(done.Result["activity"], &nested); err != nil || nested.Fingerprint != a.Fingerprint {
			t.Fatalf("result.activity fingerprint %q: %v", nested.Fingerprint, err)
		}

		a, digest = submit("by-reference-form")
		done, err = c2.ApproveActivity(bg, org, "sha256:"+strings.ToUpper(digest))
		if err != nil || done.Status != api.StatusCompleted || done.ID != a.ID {
			t.Fatalf("approved by sha256:<HEX>: %v %+v", err, done)
		}

		// Each vote's intent holds the reference's form, whichever form it was given in.
		votes, err := s.root.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: org, FilterByType: []string{api.ApproveActivity.Type}})
		if err != nil || len(votes.Activities) != 2 {
			t.Fatalf("votes: %v %+v", err, votes)
		}
		for _, v := range votes.Activities {
			var intent api.VoteIntent
			if err := json.Unmarshal(v.Intent[api.ApproveActivity.IntentKey], &intent); err != nil || !strings.HasPrefix(intent.Fingerprint, "sha256:") ||
				strings.ToLower(intent.Fingerprint) != intent.Fingerprint || len(intent.Fingerprint) != len("sha256:")+64 {
				t.Errorf("vote intent %s: %v", v.Intent[api.ApproveActivity.IntentKey], err)
			}
		}

		// Strings no activity can have are refused before anything is looked up or stored; a well-formed unknown one
		// is not found.
		before := s.activityCount(org)
		for _, bad := range []string{"sha256:" + digest[:62], "sha512:" + digest, "sha256:" + digest + "00", "SHA256:" + digest,
			"sha256:" + strings.Repeat("g", 64), "sha256:", "sha256:" + digest[:63] + "\x00", " " + digest} {
			_, err := c2.ApproveActivity(bg, org, bad)
			expectErr(t, "fingerprint "+bad, err, apierr.InvalidArgument, "is not an activity's fingerprint")
		}
		if after := s.activityCount(org); after != before {
			t.Errorf("refused votes were stored: %d activities, then %d", before, after)
		}
		_, err = c2.RejectActivity(bg, org, "sha256:"+strings.Repeat("0", 64))
		expectErr(t, "unknown fingerprint", err, apierr.NotFound, "No activity waiting for consensus has fingerprint")
	})
}

// An app proof signs the fingerprint in the form the activity shows.
func TestAppProofFingerprint(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	signer := s.signerKey(t)
	w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	s.root.GenerateAppProofs = true
	_, signed, err := s.root.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: w.Addresses[0], Payload: "00",
		Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_KECCAK256"})
	if err != nil || len(signed.AppProofs) != 1 {
		t.Fatalf("signing: %v %+v", err, signed)
	}
	payload, err := client.VerifyAppProof(signed.AppProofs[0], signer)
	if err != nil {
		t.Fatal(err)
	}
	approvals := payload.PolicyOutcomeProof.UserRequestApprovals
	if len(approvals) != 1 || approvals[0].Fingerprint != signed.Fingerprint || !strings.HasPrefix(signed.Fingerprint, "sha256:") {
		t.Fatalf("approvals %+v, activity fingerprint %q", approvals, signed.Fingerprint)
	}
}
