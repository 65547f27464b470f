package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// EmailAuth mails the user with the e-mail address a credential bundle (EMAIL_AUTH_V3).
func (c *Client) EmailAuth(ctx context.Context, orgID string, p api.EmailAuthIntentV3) (*api.EmailAuthResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EmailAuthV3, p)
}

// InitOtpAuth sends a code to a user's contact for OtpAuth (INIT_OTP_AUTH_V3).
func (c *Client) InitOtpAuth(ctx context.Context, orgID string, p api.InitOtpAuthIntentV3) (*api.InitOtpAuthResultV2, *api.Activity, error) {
	return submit(ctx, c, orgID, api.InitOtpAuthV3, p)
}

// OtpAuth exchanges a code of InitOtpAuth for a credential bundle (OTP_AUTH).
func (c *Client) OtpAuth(ctx context.Context, orgID string, p api.OtpAuthIntent) (*api.OtpAuthResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.OtpAuth, p)
}

// Oauth exchanges an OIDC token for a credential bundle (OAUTH).
func (c *Client) Oauth(ctx context.Context, orgID string, p api.OauthIntent) (*api.OauthResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.Oauth, p)
}

// InitUserEmailRecovery mails the user a recovery credential (INIT_USER_EMAIL_RECOVERY_V2).
func (c *Client) InitUserEmailRecovery(ctx context.Context, orgID string, p api.InitUserEmailRecoveryIntentV2) (*api.InitUserEmailRecoveryResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.InitUserEmailRecoveryV2, p)
}

// RecoverUser registers a new passkey with the recovery credential (RECOVER_USER).
func (c *Client) RecoverUser(ctx context.Context, orgID string, p api.RecoverUserIntent) (*api.RecoverUserResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.RecoverUser, p)
}

// CreateInvitations invites people to the organization by e-mail.
func (c *Client) CreateInvitations(ctx context.Context, orgID string, p api.CreateInvitationsIntent) (*api.CreateInvitationsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateInvitations, p)
}

// DeleteInvitation revokes an invitation.
func (c *Client) DeleteInvitation(ctx context.Context, orgID, invitationID string) (*api.DeleteInvitationResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteInvitation, api.DeleteInvitationIntent{InvitationID: invitationID})
}

// CreateMfaPolicy adds an MFA policy to a user.
func (c *Client) CreateMfaPolicy(ctx context.Context, orgID string, p api.CreateMfaPolicyIntent) (*api.MfaPolicyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateMfaPolicy, p)
}

// UpdateMfaPolicy changes a user's MFA policy.
func (c *Client) UpdateMfaPolicy(ctx context.Context, orgID string, p api.UpdateMfaPolicyIntent) (*api.MfaPolicyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateMfaPolicy, p)
}

// DeleteMfaPolicy removes a user's MFA policy.
func (c *Client) DeleteMfaPolicy(ctx context.Context, orgID, userID, mfaPolicyID string) (*api.MfaPolicyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteMfaPolicy, api.DeleteMfaPolicyIntent{UserID: userID, MfaPolicyID: mfaPolicyID})
}

// GetMfaPolicies lists a user's MFA policies.
func (c *Client) GetMfaPolicies(ctx context.Context, orgID, userID string) (*api.GetMfaPoliciesResponse, error) {
	return query(ctx, c, api.GetMfaPolicies, api.GetMfaPoliciesRequest{OrganizationID: orgID, UserID: userID})
}

// GetMfaPolicy reads one MFA policy of a user.
func (c *Client) GetMfaPolicy(ctx context.Context, orgID, userID, mfaPolicyID string) (*api.GetMfaPolicyResponse, error) {
	return query(ctx, c, api.GetMfaPolicy, api.GetMfaPolicyRequest{OrganizationID: orgID, UserID: userID, MfaPolicyID: mfaPolicyID})
}

// GetMfaStatus reads how far an activity's voters are through their MFA policies.
func (c *Client) GetMfaStatus(ctx context.Context, orgID, activityID string) (*api.GetMfaStatusResponse, error) {
	return query(ctx, c, api.GetMfaStatus, api.GetMfaStatusRequest{OrganizationID: orgID, ActivityID: activityID})
}
