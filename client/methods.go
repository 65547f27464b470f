package client

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/sigil/sigil/api"
)

// One typed method per activity: each returns the result, the activity record, and an error.

func (c *Client) CreateUsersV3(ctx context.Context, orgID string, p api.CreateUsersIntentV3) (*api.CreateUsersResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateUsersV3, p)
}

func (c *Client) CreateUsers(ctx context.Context, orgID string, p api.CreateUsersIntentV4) (*api.CreateUsersResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateUsersV4, p)
}

func (c *Client) DeleteUsers(ctx context.Context, orgID string, p api.DeleteUsersIntent) (*api.DeleteUsersResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteUsers, p)
}

func (c *Client) UpdateUser(ctx context.Context, orgID string, p api.UpdateUserIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateUser, p)
}

func (c *Client) UpdateUserName(ctx context.Context, orgID string, p api.UpdateUserNameIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateUserName, p)
}

func (c *Client) UpdateUserEmail(ctx context.Context, orgID string, p api.UpdateUserEmailIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateUserEmail, p)
}

func (c *Client) UpdateUserPhoneNumber(ctx context.Context, orgID string, p api.UpdateUserPhoneNumberIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateUserPhoneNumber, p)
}

func (c *Client) CreateUserTag(ctx context.Context, orgID string, p api.CreateUserTagIntent) (*api.CreateUserTagResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateUserTag, p)
}

func (c *Client) UpdateUserTag(ctx context.Context, orgID string, p api.UpdateUserTagIntent) (*api.UpdateUserTagResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateUserTag, p)
}

func (c *Client) DeleteUserTags(ctx context.Context, orgID string, p api.DeleteUserTagsIntent) (*api.DeleteUserTagsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteUserTags, p)
}

func (c *Client) CreateAPIKeys(ctx context.Context, orgID string, p api.CreateAPIKeysIntentV2) (*api.CreateAPIKeysResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateAPIKeysV2, p)
}

func (c *Client) DeleteAPIKeys(ctx context.Context, orgID string, p api.DeleteAPIKeysIntent) (*api.DeleteAPIKeysResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteAPIKeys, p)
}

func (c *Client) CreateAuthenticators(ctx context.Context, orgID string, p api.CreateAuthenticatorsIntentV2) (*api.CreateAuthenticatorsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateAuthenticatorsV2, p)
}

func (c *Client) DeleteAuthenticators(ctx context.Context, orgID string, p api.DeleteAuthenticatorsIntent) (*api.DeleteAuthenticatorsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteAuthenticators, p)
}

func (c *Client) CreateSubOrganizationV7(ctx context.Context, orgID string, p api.CreateSubOrganizationIntentV7) (*api.CreateSubOrganizationResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateSubOrganizationV7, p)
}

func (c *Client) CreateSubOrganization(ctx context.Context, orgID string, p api.CreateSubOrganizationIntentV8) (*api.CreateSubOrganizationResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateSubOrganizationV8, p)
}

func (c *Client) DeleteSubOrganization(ctx context.Context, orgID string, p api.DeleteSubOrganizationIntent) (*api.DeleteSubOrganizationResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteSubOrganization, p)
}

func (c *Client) UpdateRootQuorum(ctx context.Context, orgID string, p api.UpdateRootQuorumIntent) (*api.UpdateRootQuorumResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateRootQuorum, p)
}

func (c *Client) UpdateOrganizationName(ctx context.Context, orgID string, p api.UpdateOrganizationNameIntent) (*api.UpdateOrganizationNameResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateOrganizationName, p)
}

// One typed method per query.

func (c *Client) Whoami(ctx context.Context, orgID string) (*api.WhoamiResponse, error) {
	return query(ctx, c, api.Whoami, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetActivity(ctx context.Context, orgID, activityID string) (*api.ActivityResponse, error) {
	return query(ctx, c, api.GetActivity, api.GetActivityRequest{OrganizationID: orgID, ActivityID: activityID})
}

func (c *Client) ListActivities(ctx context.Context, req api.ListActivitiesRequest) (*api.ListActivitiesResponse, error) {
	return query(ctx, c, api.ListActivities, req)
}

func (c *Client) GetUser(ctx context.Context, orgID, userID string) (*api.GetUserResponse, error) {
	return query(ctx, c, api.GetUser, api.GetUserRequest{OrganizationID: orgID, UserID: userID})
}

func (c *Client) ListUsers(ctx context.Context, orgID string) (*api.ListUsersResponse, error) {
	return query(ctx, c, api.ListUsers, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetAPIKeys(ctx context.Context, orgID, userID string) (*api.GetAPIKeysResponse, error) {
	return query(ctx, c, api.GetAPIKeys, api.GetAPIKeysRequest{OrganizationID: orgID, UserID: userID})
}

func (c *Client) GetAuthenticators(ctx context.Context, orgID, userID string) (*api.GetAuthenticatorsResponse, error) {
	return query(ctx, c, api.GetAuthenticators, api.GetAuthenticatorsRequest{OrganizationID: orgID, UserID: userID})
}

func (c *Client) ListUserTags(ctx context.Context, orgID string) (*api.ListUserTagsResponse, error) {
	return query(ctx, c, api.ListUserTags, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetOrganization(ctx context.Context, orgID string) (*api.GetOrganizationResponse, error) {
	return query(ctx, c, api.GetOrganization, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) ListSubOrgs(ctx context.Context, req api.ListSubOrgsRequest) (*api.ListSubOrgsResponse, error) {
	return query(ctx, c, api.ListSubOrgs, req)
}

// ListVerifiedSubOrgs finds sub-organizations by an e-mail address or phone number their user has proved to own.
func (c *Client) ListVerifiedSubOrgs(ctx context.Context, req api.ListSubOrgsRequest) (*api.ListSubOrgsResponse, error) {
	return query(ctx, c, api.ListVerifiedSubOrgs, req)
}

func (c *Client) CreatePolicy(ctx context.Context, orgID string, p api.CreatePolicyIntentV3) (*api.CreatePolicyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreatePolicyV3, p)
}

func (c *Client) CreatePolicies(ctx context.Context, orgID string, p api.CreatePoliciesIntent) (*api.CreatePoliciesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreatePolicies, p)
}

func (c *Client) UpdatePolicy(ctx context.Context, orgID string, p api.UpdatePolicyIntentV2) (*api.PolicyIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdatePolicyV2, p)
}

func (c *Client) DeletePolicy(ctx context.Context, orgID string, p api.DeletePolicyIntent) (*api.PolicyIDResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeletePolicy, p)
}

func (c *Client) DeletePolicies(ctx context.Context, orgID string, p api.DeletePoliciesIntent) (*api.DeletePoliciesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeletePolicies, p)
}

// ApproveActivity approves the activity with the fingerprint; the record returned is that activity's, COMPLETED once
// this approval met its consensus.
func (c *Client) ApproveActivity(ctx context.Context, orgID, fingerprint string) (*api.Activity, error) {
	return c.Submit(ctx, orgID, api.ApproveActivity.ActivitySpec, api.VoteIntent{Fingerprint: fingerprint})
}

// RejectActivity rejects the activity with the fingerprint; the record returned is that activity's.
func (c *Client) RejectActivity(ctx context.Context, orgID, fingerprint string) (*api.Activity, error) {
	return c.Submit(ctx, orgID, api.RejectActivity.ActivitySpec, api.VoteIntent{Fingerprint: fingerprint})
}

func (c *Client) GetPolicy(ctx context.Context, orgID, policyID string) (*api.GetPolicyResponse, error) {
	return query(ctx, c, api.GetPolicy, api.GetPolicyRequest{OrganizationID: orgID, PolicyID: policyID})
}

func (c *Client) ListPolicies(ctx context.Context, orgID string) (*api.ListPoliciesResponse, error) {
	return query(ctx, c, api.ListPolicies, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetPolicyEvaluations(ctx context.Context, orgID, activityID string) (*api.GetPolicyEvaluationsResponse, error) {
	return query(ctx, c, api.GetPolicyEvaluations, api.GetActivityRequest{OrganizationID: orgID, ActivityID: activityID})
}

// EvaluateActivity asks what submitting the activity now would decide, without executing or storing anything.
func (c *Client) EvaluateActivity(ctx context.Context, orgID, activityType string, params any) (*api.EvaluateActivityResponse, error) {
	orgID, err := c.organization(orgID)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	env := api.SubmitRequest{Type: activityType, TimestampMs: strconv.FormatInt(time.Now().UnixMilli(), 10), OrganizationID: orgID, Parameters: raw}
	return query(ctx, c, api.EvaluateActivity, api.EvaluateActivityRequest{OrganizationID: orgID, Activity: env})
}

// GetActivePolicies says which of the organization's policies are active now (their time field holds).
func (c *Client) GetActivePolicies(ctx context.Context, orgID string) (*api.GetActivePoliciesResponse, error) {
	return query(ctx, c, api.GetActivePolicies, api.OrganizationRequest{OrganizationID: orgID})
}

// SetOrganizationFeature sets a feature (root quorum only).
func (c *Client) SetOrganizationFeature(ctx context.Context, orgID string, p api.SetOrganizationFeatureIntent) (*api.FeaturesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.SetOrganizationFeature, p)
}

// RemoveOrganizationFeature removes a feature (root quorum only).
func (c *Client) RemoveOrganizationFeature(ctx context.Context, orgID, name string) (*api.FeaturesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.RemoveOrganizationFeature, api.RemoveOrganizationFeatureIntent{Name: name})
}

// GetOrganizationConfigs reads the organization's features and root quorum.
func (c *Client) GetOrganizationConfigs(ctx context.Context, orgID string) (*api.GetOrganizationConfigsResponse, error) {
	return query(ctx, c, api.GetOrganizationConfigs, api.OrganizationRequest{OrganizationID: orgID})
}

// GetAPIKey reads one API key.
func (c *Client) GetAPIKey(ctx context.Context, orgID, apiKeyID string) (*api.GetAPIKeyResponse, error) {
	return query(ctx, c, api.GetAPIKey, api.GetAPIKeyRequest{OrganizationID: orgID, APIKeyID: apiKeyID})
}

// GetAuthenticator reads one passkey.
func (c *Client) GetAuthenticator(ctx context.Context, orgID, authenticatorID string) (*api.GetAuthenticatorResponse, error) {
	return query(ctx, c, api.GetAuthenticator, api.GetAuthenticatorRequest{OrganizationID: orgID, AuthenticatorID: authenticatorID})
}

// CreateAPIOnlyUsers creates users that authenticate with API keys only.
func (c *Client) CreateAPIOnlyUsers(ctx context.Context, orgID string, p api.CreateAPIOnlyUsersIntent) (*api.CreateUsersResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateAPIOnlyUsers, p)
}

// CreateReadWriteSession makes a session key for a user (the caller by default), encrypted to targetPublicKey.
func (c *Client) CreateReadWriteSession(ctx context.Context, orgID string, p api.CreateReadWriteSessionIntentV2) (*api.CreateReadWriteSessionResultV2, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateReadWriteSessionV2, p)
}

// CreateReadOnlySession makes a read-only session token, for queries sent with it as X-Session.
func (c *Client) CreateReadOnlySession(ctx context.Context, orgID string) (*api.CreateReadOnlySessionResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateReadOnlySession, api.CreateReadOnlySessionIntent{})
}

// CreateSessionProfile creates a session profile, which limits the sessions logins issue with it.
func (c *Client) CreateSessionProfile(ctx context.Context, orgID string, p api.CreateSessionProfileIntent) (*api.CreateSessionProfileResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateSessionProfile, p)
}

// GetSessionProfiles lists the organization's session profiles.
func (c *Client) GetSessionProfiles(ctx context.Context, orgID string) (*api.GetSessionProfilesResponse, error) {
	return query(ctx, c, api.GetSessionProfiles, api.OrganizationRequest{OrganizationID: orgID})
}

// GetSessionProfile reads one session profile.
func (c *Client) GetSessionProfile(ctx context.Context, orgID, id string) (*api.GetSessionProfileResponse, error) {
	return query(ctx, c, api.GetSessionProfile, api.GetSessionProfileRequest{OrganizationID: orgID, SessionProfileID: id})
}
