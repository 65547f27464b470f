package api

// InvitationParams is v1InvitationParams: whom to invite, with which tags and access, and who invites.
type InvitationParams struct {
	ReceiverUserName  string   `json:"receiverUserName"`
	ReceiverUserEmail string   `json:"receiverUserEmail"`
	ReceiverUserTags  []string `json:"receiverUserTags"`
	AccessType        string   `json:"accessType"`
	SenderUserID      string   `json:"senderUserId"`
}

// CreateInvitationsIntent is ACTIVITY_TYPE_CREATE_INVITATIONS.
type CreateInvitationsIntent struct {
	Invitations []InvitationParams `json:"invitations"`
}

// CreateInvitationsResult lists the new invitations, in order.
type CreateInvitationsResult struct {
	InvitationIDs []string `json:"invitationIds"`
}

// DeleteInvitationIntent is ACTIVITY_TYPE_DELETE_INVITATION: the invitation is revoked.
type DeleteInvitationIntent struct {
	InvitationID string `json:"invitationId"`
}

// DeleteInvitationResult names the invitation revoked.
type DeleteInvitationResult struct {
	InvitationID string `json:"invitationId"`
}

// Invitation is v1Invitation, as get_organization lists it.
type Invitation struct {
	InvitationID     string    `json:"invitationId"`
	ReceiverUserName string    `json:"receiverUserName"`
	ReceiverEmail    string    `json:"receiverEmail"`
	ReceiverUserTags []string  `json:"receiverUserTags"`
	AccessType       string    `json:"accessType"`
	Status           string    `json:"status"`
	CreatedAt        Timestamp `json:"createdAt"`
	UpdatedAt        Timestamp `json:"updatedAt"`
	SenderUserID     string    `json:"senderUserId"`
}

// Access types and invitation statuses.
const (
	AccessTypeWeb = "ACCESS_TYPE_WEB"
	AccessTypeAPI = "ACCESS_TYPE_API"
	AccessTypeAll = "ACCESS_TYPE_ALL"

	InvitationCreated  = "INVITATION_STATUS_CREATED"
	InvitationAccepted = "INVITATION_STATUS_ACCEPTED"
	InvitationRevoked  = "INVITATION_STATUS_REVOKED"
)

// The activity types of this file.
var (
	CreateInvitations = activity[CreateInvitationsIntent, CreateInvitationsResult]("CREATE_INVITATIONS", "create_invitations", "createInvitationsIntent", "createInvitationsResult")
	DeleteInvitation  = activity[DeleteInvitationIntent, DeleteInvitationResult]("DELETE_INVITATION", "delete_invitation", "deleteInvitationIntent", "deleteInvitationResult")
)
