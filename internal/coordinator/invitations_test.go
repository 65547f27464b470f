package coordinator_test

import (
	"context"
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
