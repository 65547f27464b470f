package client

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"sigil/api"
)

// One typed method per activity: each returns the result, the activity record, and an error.

func (c *Client) CreateUsersV3(ctx context.Context, orgID string, p api.CreateUsersIntentV3) (*api.CreateUsersResult, *api.Activity, error) {
	return submit[api.CreateUsersResult](ctx, c, orgID, "CREATE_USERS_V3", p)
}

func (c *Client) CreateUsers(ctx context.Context, orgID string, p api.CreateUsersIntentV4) (*api.CreateUsersResult, *api.Activity, error) {
	return submit[api.CreateUsersResult](ctx, c, orgID, "CREATE_USERS_V4", p)
}

func (c *Client) DeleteUsers(ctx context.Context, orgID string, p api.DeleteUsersIntent) (*api.DeleteUsersResult, *api.Activity, error) {
	return submit[api.DeleteUsersResult](ctx, c, orgID, "DELETE_USERS", p)
}

func (c *Client) UpdateUser(ctx context.Context, orgID string, p api.UpdateUserIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit[api.UserIDResult](ctx, c, orgID, "UPDATE_USER", p)
}

func (c *Client) UpdateUserName(ctx context.Context, orgID string, p api.UpdateUserNameIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit[api.UserIDResult](ctx, c, orgID, "UPDATE_USER_NAME", p)
}

func (c *Client) UpdateUserEmail(ctx context.Context, orgID string, p api.UpdateUserEmailIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit[api.UserIDResult](ctx, c, orgID, "UPDATE_USER_EMAIL", p)
}

func (c *Client) UpdateUserPhoneNumber(ctx context.Context, orgID string, p api.UpdateUserPhoneNumberIntent) (*api.UserIDResult, *api.Activity, error) {
	return submit[api.UserIDResult](ctx, c, orgID, "UPDATE_USER_PHONE_NUMBER", p)
}

func (c *Client) CreateUserTag(ctx context.Context, orgID string, p api.CreateUserTagIntent) (*api.CreateUserTagResult, *api.Activity, error) {
	return submit[api.CreateUserTagResult](ctx, c, orgID, "CREATE_USER_TAG", p)
}

func (c *Client) UpdateUserTag(ctx context.Context, orgID string, p api.UpdateUserTagIntent) (*api.UpdateUserTagResult, *api.Activity, error) {
	return submit[api.UpdateUserTagResult](ctx, c, orgID, "UPDATE_USER_TAG", p)
}

func (c *Client) DeleteUserTags(ctx context.Context, orgID string, p api.DeleteUserTagsIntent) (*api.DeleteUserTagsResult, *api.Activity, error) {
	return submit[api.DeleteUserTagsResult](ctx, c, orgID, "DELETE_USER_TAGS", p)
}

func (c *Client) CreateAPIKeys(ctx context.Context, orgID string, p api.CreateAPIKeysIntentV2) (*api.CreateAPIKeysResult, *api.Activity, error) {
	return submit[api.CreateAPIKeysResult](ctx, c, orgID, "CREATE_API_KEYS_V2", p)
}

func (c *Client) DeleteAPIKeys(ctx context.Context, orgID string, p api.DeleteAPIKeysIntent) (*api.DeleteAPIKeysResult, *api.Activity, error) {
	return submit[api.DeleteAPIKeysResult](ctx, c, orgID, "DELETE_API_KEYS", p)
}

func (c *Client) CreateAuthenticators(ctx context.Context, orgID string, p api.CreateAuthenticatorsIntentV2) (*api.CreateAuthenticatorsResult, *api.Activity, error) {
	return submit[api.CreateAuthenticatorsResult](ctx, c, orgID, "CREATE_AUTHENTICATORS_V2", p)
}

func (c *Client) DeleteAuthenticators(ctx context.Context, orgID string, p api.DeleteAuthenticatorsIntent) (*api.DeleteAuthenticatorsResult, *api.Activity, error) {
	return submit[api.DeleteAuthenticatorsResult](ctx, c, orgID, "DELETE_AUTHENTICATORS", p)
}

func (c *Client) CreateSubOrganizationV7(ctx context.Context, orgID string, p api.CreateSubOrganizationIntentV7) (*api.CreateSubOrganizationResult, *api.Activity, error) {
	type plain api.CreateSubOrganizationIntentV7 // sends the verification token the API type's encoding redacts
	return submit[api.CreateSubOrganizationResult](ctx, c, orgID, "CREATE_SUB_ORGANIZATION_V7", plain(p))
}

func (c *Client) CreateSubOrganization(ctx context.Context, orgID string, p api.CreateSubOrganizationIntentV8) (*api.CreateSubOrganizationResult, *api.Activity, error) {
	type plain api.CreateSubOrganizationIntentV8 // sends the verification token the API type's encoding redacts
	return submit[api.CreateSubOrganizationResult](ctx, c, orgID, "CREATE_SUB_ORGANIZATION_V8", plain(p))
}

func (c *Client) DeleteSubOrganization(ctx context.Context, orgID string, p api.DeleteSubOrganizationIntent) (*api.DeleteSubOrganizationResult, *api.Activity, error) {
	return submit[api.DeleteSubOrganizationResult](ctx, c, orgID, "DELETE_SUB_ORGANIZATION", p)
}

func (c *Client) UpdateRootQuorum(ctx context.Context, orgID string, p api.UpdateRootQuorumIntent) (*api.UpdateRootQuorumResult, *api.Activity, error) {
	return submit[api.UpdateRootQuorumResult](ctx, c, orgID, "UPDATE_ROOT_QUORUM", p)
}

func (c *Client) UpdateOrganizationName(ctx context.Context, orgID string, p api.UpdateOrganizationNameIntent) (*api.UpdateOrganizationNameResult, *api.Activity, error) {
	return submit[api.UpdateOrganizationNameResult](ctx, c, orgID, "UPDATE_ORGANIZATION_NAME", p)
}

// One typed method per query.

func (c *Client) Whoami(ctx context.Context, orgID string) (*api.WhoamiResponse, error) {
	return query[api.WhoamiResponse](ctx, c, "whoami", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetActivity(ctx context.Context, orgID, activityID string) (*api.ActivityResponse, error) {
	return query[api.ActivityResponse](ctx, c, "get_activity", api.GetActivityRequest{OrganizationID: orgID, ActivityID: activityID})
}

func (c *Client) ListActivities(ctx context.Context, req api.ListActivitiesRequest) (*api.ListActivitiesResponse, error) {
	return query[api.ListActivitiesResponse](ctx, c, "list_activities", req)
}

func (c *Client) GetUser(ctx context.Context, orgID, userID string) (*api.GetUserResponse, error) {
	return query[api.GetUserResponse](ctx, c, "get_user", api.GetUserRequest{OrganizationID: orgID, UserID: userID})
}

func (c *Client) ListUsers(ctx context.Context, orgID string) (*api.ListUsersResponse, error) {
	return query[api.ListUsersResponse](ctx, c, "list_users", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetAPIKeys(ctx context.Context, orgID, userID string) (*api.GetAPIKeysResponse, error) {
	return query[api.GetAPIKeysResponse](ctx, c, "get_api_keys", api.GetAPIKeysRequest{OrganizationID: orgID, UserID: userID})
}

func (c *Client) GetAuthenticators(ctx context.Context, orgID, userID string) (*api.GetAuthenticatorsResponse, error) {
	return query[api.GetAuthenticatorsResponse](ctx, c, "get_authenticators", api.GetAuthenticatorsRequest{OrganizationID: orgID, UserID: userID})
}

func (c *Client) ListUserTags(ctx context.Context, orgID string) (*api.ListUserTagsResponse, error) {
	return query[api.ListUserTagsResponse](ctx, c, "list_user_tags", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetOrganization(ctx context.Context, orgID string) (*api.GetOrganizationResponse, error) {
	return query[api.GetOrganizationResponse](ctx, c, "get_organization", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) ListSubOrgs(ctx context.Context, req api.ListSubOrgsRequest) (*api.ListSubOrgsResponse, error) {
	return query[api.ListSubOrgsResponse](ctx, c, "list_suborgs", req)
}

// ListVerifiedSubOrgs finds sub-organizations by an e-mail address or phone number their user has proved to own.
func (c *Client) ListVerifiedSubOrgs(ctx context.Context, req api.ListSubOrgsRequest) (*api.ListSubOrgsResponse, error) {
	return query[api.ListSubOrgsResponse](ctx, c, "list_verified_suborgs", req)
}

func (c *Client) CreatePolicy(ctx context.Context, orgID string, p api.CreatePolicyIntentV3) (*api.CreatePolicyResult, *api.Activity, error) {
	return submit[api.CreatePolicyResult](ctx, c, orgID, "CREATE_POLICY_V3", p)
}

func (c *Client) CreatePolicies(ctx context.Context, orgID string, p api.CreatePoliciesIntent) (*api.CreatePoliciesResult, *api.Activity, error) {
	return submit[api.CreatePoliciesResult](ctx, c, orgID, "CREATE_POLICIES", p)
}

func (c *Client) UpdatePolicy(ctx context.Context, orgID string, p api.UpdatePolicyIntentV2) (*api.PolicyIDResult, *api.Activity, error) {
	return submit[api.PolicyIDResult](ctx, c, orgID, "UPDATE_POLICY_V2", p)
}

func (c *Client) DeletePolicy(ctx context.Context, orgID string, p api.DeletePolicyIntent) (*api.PolicyIDResult, *api.Activity, error) {
	return submit[api.PolicyIDResult](ctx, c, orgID, "DELETE_POLICY", p)
}

func (c *Client) DeletePolicies(ctx context.Context, orgID string, p api.DeletePoliciesIntent) (*api.DeletePoliciesResult, *api.Activity, error) {
	return submit[api.DeletePoliciesResult](ctx, c, orgID, "DELETE_POLICIES", p)
}

// ApproveActivity approves the activity with the fingerprint; the record returned is that activity's, COMPLETED once
// this approval met its consensus.
func (c *Client) ApproveActivity(ctx context.Context, orgID, fingerprint string) (*api.Activity, error) {
	return c.Submit(ctx, orgID, "ACTIVITY_TYPE_APPROVE_ACTIVITY", api.VoteIntent{Fingerprint: fingerprint})
}

// RejectActivity rejects the activity with the fingerprint; the record returned is that activity's.
func (c *Client) RejectActivity(ctx context.Context, orgID, fingerprint string) (*api.Activity, error) {
	return c.Submit(ctx, orgID, "ACTIVITY_TYPE_REJECT_ACTIVITY", api.VoteIntent{Fingerprint: fingerprint})
}

func (c *Client) GetPolicy(ctx context.Context, orgID, policyID string) (*api.GetPolicyResponse, error) {
	return query[api.GetPolicyResponse](ctx, c, "get_policy", api.GetPolicyRequest{OrganizationID: orgID, PolicyID: policyID})
}

func (c *Client) ListPolicies(ctx context.Context, orgID string) (*api.ListPoliciesResponse, error) {
	return query[api.ListPoliciesResponse](ctx, c, "list_policies", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetPolicyEvaluations(ctx context.Context, orgID, activityID string) (*api.GetPolicyEvaluationsResponse, error) {
	return query[api.GetPolicyEvaluationsResponse](ctx, c, "get_policy_evaluations", api.GetActivityRequest{OrganizationID: orgID, ActivityID: activityID})
}

// EvaluateActivity asks what submitting the activity now would decide, without executing or storing anything.
func (c *Client) EvaluateActivity(ctx context.Context, orgID, activityType string, params any) (*api.EvaluateActivityResponse, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	env := api.SubmitRequest{Type: activityType, TimestampMs: strconv.FormatInt(time.Now().UnixMilli(), 10), OrganizationID: orgID, Parameters: raw}
	return query[api.EvaluateActivityResponse](ctx, c, "evaluate_activity", api.EvaluateActivityRequest{OrganizationID: orgID, Activity: env})
}
