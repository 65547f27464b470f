package coordinator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

func invitation(email, sender string) api.InvitationParams {
	return api.InvitationParams{ReceiverUserName: "guest", ReceiverUserEmail: email, ReceiverUserTags: []string{},
		AccessType: api.AccessTypeWeb, SenderUserID: sender}
}

// Invitations are listed by get_organization and revoked by DELETE_INVITATION; an address a user of the organization
// has, or one invited already, is refused, and a refused request records none of its invitations.
func TestInvitations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org, root := s.boot.OrganizationID, s.boot.UserID
		if _, _, err := s.root.UpdateUserEmail(ctx, org, api.UpdateUserEmailIntent{UserID: root, UserEmail: "root@example.com"}); err != nil {
			t.Fatal(err)
		}
		res, _, err := s.root.CreateInvitations(ctx, org, api.CreateInvitationsIntent{Invitations: []api.InvitationParams{
			invitation("ann@example.com", root), invitation("ben@example.com", root)}})
		if err != nil || len(res.InvitationIDs) != 2 {
			t.Fatalf("create_invitations: %+v %v", res, err)
		}
		listed := func() []api.Invitation {
			o, err := s.root.GetOrganization(ctx, org)
			if err != nil {
				t.Fatal(err)
			}
			return o.OrganizationData.Invitations
		}
		if got := listed(); len(got) != 2 || got[0].ReceiverEmail != "ann@example.com" || got[0].Status != api.InvitationCreated || got[0].SenderUserID != root {
			t.Fatalf("invitations listed: %+v", got)
		}
		for name, inv := range map[string]api.InvitationParams{
			"an address a user has": invitation("ROOT@example.com", root),
			"an address invited":    invitation("ann@example.com", root),
		} {
			_, _, err := s.root.CreateInvitations(ctx, org, api.CreateInvitationsIntent{Invitations: []api.InvitationParams{invitation("cat@example.com", root), inv}})
			if !client.IsCode(err, apierr.AlreadyExists) {
				t.Errorf("%s: %v", name, err)
			}
		}
		bad := invitation("dan@example.com", root)
		bad.AccessType = "ACCESS_TYPE_EVERYTHING"
		if _, _, err := s.root.CreateInvitations(ctx, org, api.CreateInvitationsIntent{Invitations: []api.InvitationParams{bad}}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("an unknown access type: %v", err)
		}
		if got := listed(); len(got) != 2 {
			t.Errorf("refused requests recorded invitations: %+v", got)
		}
		if del, _, err := s.root.DeleteInvitation(ctx, org, res.InvitationIDs[0]); err != nil || del.InvitationID != res.InvitationIDs[0] {
			t.Fatalf("delete_invitation: %+v %v", del, err)
		}
		if got := listed(); got[0].Status != api.InvitationRevoked {
			t.Errorf("revoked invitation: %+v", got[0])
		}
		if _, _, err := s.root.DeleteInvitation(ctx, org, res.InvitationIDs[0]); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("revoking twice: %v", err)
		}
		// Once revoked, the address can be invited again.
		if _, _, err := s.root.CreateInvitations(ctx, org, api.CreateInvitationsIntent{Invitations: []api.InvitationParams{invitation("ann@example.com", root)}}); err != nil {
			t.Errorf("inviting a revoked address again: %v", err)
		}
	})
}

// An invitation says who sent it, and that is the user who submits it: naming another user of the organization as
// the sender is refused, and nothing is recorded.
func TestInvitationSenderIsTheSubmitter(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org, root := s.boot.OrganizationID, s.boot.UserID
		aliceID, alice := s.createUser(org, s.root, "alice")
		allowInvitations(t, s, org, aliceID)
		_, _, err := alice.CreateInvitations(ctx, org, api.CreateInvitationsIntent{Invitations: []api.InvitationParams{invitation("eve@example.com", root)}})
		if !client.IsCode(err, apierr.PermissionDenied) || !strings.Contains(err.Error(), "senderUserId") {
			t.Fatalf("alice's invitation sent in the root user's name: %v", err)
		}
		if o, _ := s.root.GetOrganization(ctx, org); len(o.OrganizationData.Invitations) != 0 {
			t.Fatalf("the refused invitation was recorded: %+v", o.OrganizationData.Invitations)
		}
		if _, _, err := alice.CreateInvitations(ctx, org, api.CreateInvitationsIntent{Invitations: []api.InvitationParams{invitation("eve@example.com", aliceID)}}); err != nil {
			t.Fatalf("alice's invitation in her own name: %v", err)
		}
	})
}

// allowInvitations lets the user create invitations, by a policy.
func allowInvitations(t *testing.T, s *stack, org, userID string) {
	t.Helper()
	if _, _, err := s.root.CreatePolicy(context.Background(), org, api.CreatePolicyIntentV3{PolicyName: "invite", Effect: api.EffectAllow,
		Consensus: "approvers.any(user, user.id == '" + userID + "')", Condition: "activity.resource == 'INVITATION'", Notes: ""}); err != nil {
		t.Fatal(err)
	}
}
