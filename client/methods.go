package client

import (
	"context"

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
	return submit[api.CreateSubOrganizationResult](ctx, c, orgID, "CREATE_SUB_ORGANIZATION_V7", p)
}

func (c *Client) CreateSubOrganization(ctx context.Context, orgID string, p api.CreateSubOrganizationIntentV8) (*api.CreateSubOrganizationResult, *api.Activity, error) {
	return submit[api.CreateSubOrganizationResult](ctx, c, orgID, "CREATE_SUB_ORGANIZATION_V8", p)
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
