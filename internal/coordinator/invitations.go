package coordinator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// Invitations record that a user of the organization invited someone by e-mail, with the name, tags and access the
// new user is to have; get_organization lists them. Inviting an address a user of the organization already has, or
// one already invited and not revoked, is refused. DELETE_INVITATION revokes one.

const (
	resInvitation     = "INVITATION"
	invitationTagsMax = 100
)

// Invitation is an invitation as stored.
type Invitation struct {
	ID         string    `json:"id"`
	UserName   string    `json:"userName"`
	Email      string    `json:"email"`
	Tags       []string  `json:"tags"`
	AccessType string    `json:"accessType"`
	Status     string    `json:"status"`
	SenderID   string    `json:"senderId"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// The activity types of this file.
var (
	createInvitations = activity(api.CreateInvitations, on(resInvitation, actCreate), validateCreateInvitations, execCreateInvitations)
	deleteInvitation  = activity(api.DeleteInvitation, on(resInvitation, actDelete), validateDeleteInvitation, execDeleteInvitation)
)

var accessTypes = []string{api.AccessTypeWeb, api.AccessTypeAPI, api.AccessTypeAll}

func validateCreateInvitations(p *api.CreateInvitationsIntent) error {
	if len(p.Invitations) == 0 || len(p.Invitations) > maxItemsPerCall {
		return apierr.Invalid("parameters.invitations must list between 1 and %d invitations", maxItemsPerCall)
	}
	for i, inv := range p.Invitations {
		path := fmt.Sprintf("parameters.invitations[%d]", i)
		if err := checkName(path+".receiverUserName", inv.ReceiverUserName); err != nil {
			return err
		}
		if err := checkEmail(path+".receiverUserEmail", inv.ReceiverUserEmail); err != nil {
			return err
		}
		if len(inv.ReceiverUserTags) > invitationTagsMax {
			return apierr.Invalid("%s.receiverUserTags lists more than %d tags", path, invitationTagsMax)
		}
		if err := checkIDs(path+".receiverUserTags", inv.ReceiverUserTags, true); err != nil {
			return err
		}
		if !slices.Contains(accessTypes, inv.AccessType) {
			return apierr.Invalid("%s.accessType: %q is not one of %s", path, inv.AccessType, strings.Join(accessTypes, ", "))
		}
		if err := checkID(path+".senderUserId", inv.SenderUserID); err != nil {
			return err
		}
		for j := range i {
			if strings.EqualFold(p.Invitations[j].ReceiverUserEmail, inv.ReceiverUserEmail) {
				return apierr.Invalid("%s.receiverUserEmail: %s is invited twice in this request", path, inv.ReceiverUserEmail)
			}
		}
	}
	return nil
}

func execCreateInvitations(x *execution, p *api.CreateInvitationsIntent) (*api.CreateInvitationsResult, error) {
	if len(x.org.Invitations)+len(p.Invitations) > maxInvitationsPerOrg { // revoked ones included
		return nil, limitReached("organization %s would have more than %d invitations; delete some first", x.org.ID, maxInvitationsPerOrg)
	}
	res := &api.CreateInvitationsResult{InvitationIDs: []string{}}
	for i, inv := range p.Invitations {
		path := fmt.Sprintf("parameters.invitations[%d]", i)
		if err := x.checkInvitable(path, inv); err != nil {
			return nil, err
		}
		stored := &Invitation{ID: newID(), UserName: inv.ReceiverUserName, Email: inv.ReceiverUserEmail,
			Tags: append([]string{}, inv.ReceiverUserTags...), AccessType: inv.AccessType, Status: api.InvitationCreated,
			SenderID: inv.SenderUserID, CreatedAt: x.now, UpdatedAt: x.now}
		x.org.Invitations = append(x.org.Invitations, stored)
		res.InvitationIDs = append(res.InvitationIDs, stored.ID)
	}
	return res, nil
}

// checkInvitable refuses an invitation to an address a user of the organization has or an open invitation names, from
// a sender who is not the submitting user, or with tags the organization does not have.
func (x *execution) checkInvitable(path string, inv api.InvitationParams) error {
	for _, u := range x.org.Users {
		if strings.EqualFold(u.Email, inv.ReceiverUserEmail) {
			return apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "%s.receiverUserEmail: %s already belongs to user %s of this organization; there is no one to invite", path, inv.ReceiverUserEmail, u.ID)
		}
	}
	for _, o := range x.org.Invitations {
		if o.Status == api.InvitationCreated && strings.EqualFold(o.Email, inv.ReceiverUserEmail) {
			return apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "%s.receiverUserEmail: %s is already invited (invitation %s); delete that invitation to invite again", path, inv.ReceiverUserEmail, o.ID)
		}
	}
	if x.org.User(inv.SenderUserID) == nil {
		return apierr.NotFoundf("%s.senderUserId: user %s not found in organization %s", path, inv.SenderUserID, x.org.ID)
	}
	// The invitation says who sent it: that is whoever submits it, never another user it would speak for.
	if inv.SenderUserID != x.who.User.ID {
		return apierr.Denied("%s.senderUserId: an invitation is sent by the user who submits it (%s), not by user %s", path, x.who.User.ID, inv.SenderUserID)
	}
	for i, tagID := range inv.ReceiverUserTags {
		if x.org.Tag(tagID) == nil {
			return apierr.NotFoundf("%s.receiverUserTags[%d]: tag %s not found", path, i, tagID)
		}
	}
	return nil
}

func validateDeleteInvitation(p *api.DeleteInvitationIntent) error {
	return checkID("parameters.invitationId", p.InvitationID)
}

// execDeleteInvitation revokes an open invitation; the record stays, with status INVITATION_STATUS_REVOKED.
func execDeleteInvitation(x *execution, p *api.DeleteInvitationIntent) (*api.DeleteInvitationResult, error) {
	for _, inv := range x.org.Invitations {
		if inv.ID != p.InvitationID {
			continue
		}
		if inv.Status != api.InvitationCreated {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "invitation %s is already %s", inv.ID, inv.Status)
		}
		inv.Status, inv.UpdatedAt = api.InvitationRevoked, x.now
		return &api.DeleteInvitationResult{InvitationID: inv.ID}, nil
	}
	return nil, apierr.NotFoundf("invitation %s not found in organization %s", p.InvitationID, x.org.ID)
}

func renderInvitation(inv *Invitation) api.Invitation {
	return api.Invitation{InvitationID: inv.ID, ReceiverUserName: inv.UserName, ReceiverEmail: inv.Email,
		ReceiverUserTags: append([]string{}, inv.Tags...), AccessType: inv.AccessType, Status: inv.Status,
		CreatedAt: api.NewTimestamp(inv.CreatedAt), UpdatedAt: api.NewTimestamp(inv.UpdatedAt), SenderUserID: inv.SenderID}
}
