package api

import "sync"

// ActivitySpec is the wire contract of one activity type: where it is submitted, the keys its intent and result
// carry in the activity record, and the Go types of its parameters and result.
type ActivitySpec struct {
	Type      string // for example ACTIVITY_TYPE_CREATE_USERS_V3
	Path      string // the name under /public/v1/submit/, for example create_users
	IntentKey string // for example createUsersIntentV3
	ResultKey string // for example createUsersResult
	NewParams func() any
	NewResult func() any
}

func spec[P, R any](typ, path, intentKey, resultKey string) ActivitySpec {
	return ActivitySpec{
		Type: "ACTIVITY_TYPE_" + typ, Path: path, IntentKey: intentKey, ResultKey: resultKey,
		NewParams: func() any { return new(P) }, NewResult: func() any { return new(R) },
	}
}

// Activities is every activity type Sigil implements. Each family of activities beyond the core ones adds its specs
// from its own file's init.
var Activities = []ActivitySpec{
	spec[CreateUsersIntentV3, CreateUsersResult]("CREATE_USERS_V3", "create_users", "createUsersIntentV3", "createUsersResult"),
	spec[CreateUsersIntentV4, CreateUsersResult]("CREATE_USERS_V4", "create_users", "createUsersIntentV4", "createUsersResult"),
	spec[DeleteUsersIntent, DeleteUsersResult]("DELETE_USERS", "delete_users", "deleteUsersIntent", "deleteUsersResult"),
	spec[UpdateUserIntent, UserIDResult]("UPDATE_USER", "update_user", "updateUserIntent", "updateUserResult"),
	spec[UpdateUserNameIntent, UserIDResult]("UPDATE_USER_NAME", "update_user_name", "updateUserNameIntent", "updateUserNameResult"),
	spec[UpdateUserEmailIntent, UserIDResult]("UPDATE_USER_EMAIL", "update_user_email", "updateUserEmailIntent", "updateUserEmailResult"),
	spec[UpdateUserPhoneNumberIntent, UserIDResult]("UPDATE_USER_PHONE_NUMBER", "update_user_phone_number", "updateUserPhoneNumberIntent", "updateUserPhoneNumberResult"),
	spec[CreateUserTagIntent, CreateUserTagResult]("CREATE_USER_TAG", "create_user_tag", "createUserTagIntent", "createUserTagResult"),
	spec[UpdateUserTagIntent, UpdateUserTagResult]("UPDATE_USER_TAG", "update_user_tag", "updateUserTagIntent", "updateUserTagResult"),
	spec[DeleteUserTagsIntent, DeleteUserTagsResult]("DELETE_USER_TAGS", "delete_user_tags", "deleteUserTagsIntent", "deleteUserTagsResult"),
	spec[CreateAPIKeysIntentV2, CreateAPIKeysResult]("CREATE_API_KEYS_V2", "create_api_keys", "createApiKeysIntentV2", "createApiKeysResult"),
	spec[DeleteAPIKeysIntent, DeleteAPIKeysResult]("DELETE_API_KEYS", "delete_api_keys", "deleteApiKeysIntent", "deleteApiKeysResult"),
	spec[CreateAuthenticatorsIntentV2, CreateAuthenticatorsResult]("CREATE_AUTHENTICATORS_V2", "create_authenticators", "createAuthenticatorsIntentV2", "createAuthenticatorsResult"),
	spec[DeleteAuthenticatorsIntent, DeleteAuthenticatorsResult]("DELETE_AUTHENTICATORS", "delete_authenticators", "deleteAuthenticatorsIntent", "deleteAuthenticatorsResult"),
	spec[CreateSubOrganizationIntentV7, CreateSubOrganizationResult]("CREATE_SUB_ORGANIZATION_V7", "create_sub_organization", "createSubOrganizationIntentV7", "createSubOrganizationResultV7"),
	spec[CreateSubOrganizationIntentV8, CreateSubOrganizationResult]("CREATE_SUB_ORGANIZATION_V8", "create_sub_organization", "createSubOrganizationIntentV8", "createSubOrganizationResultV8"),
	spec[DeleteSubOrganizationIntent, DeleteSubOrganizationResult]("DELETE_SUB_ORGANIZATION", "delete_sub_organization", "deleteSubOrganizationIntent", "deleteSubOrganizationResult"),
	spec[UpdateRootQuorumIntent, UpdateRootQuorumResult]("UPDATE_ROOT_QUORUM", "update_root_quorum", "updateRootQuorumIntent", "updateRootQuorumResult"),
	spec[UpdateOrganizationNameIntent, UpdateOrganizationNameResult]("UPDATE_ORGANIZATION_NAME", "update_organization_name", "updateOrganizationNameIntent", "updateOrganizationNameResult"),
	spec[CreatePolicyIntentV3, CreatePolicyResult]("CREATE_POLICY_V3", "create_policy", "createPolicyIntentV3", "createPolicyResult"),
	spec[CreatePoliciesIntent, CreatePoliciesResult]("CREATE_POLICIES", "create_policies", "createPoliciesIntent", "createPoliciesResult"),
	spec[UpdatePolicyIntentV2, PolicyIDResult]("UPDATE_POLICY_V2", "update_policy", "updatePolicyIntentV2", "updatePolicyResultV2"),
	spec[DeletePolicyIntent, PolicyIDResult]("DELETE_POLICY", "delete_policy", "deletePolicyIntent", "deletePolicyResult"),
	spec[DeletePoliciesIntent, DeletePoliciesResult]("DELETE_POLICIES", "delete_policies", "deletePoliciesIntent", "deletePoliciesResult"),
	spec[VoteIntent, VoteResult]("APPROVE_ACTIVITY", "approve_activity", "approveActivityIntent", "approveActivityResult"),
	spec[VoteIntent, VoteResult]("REJECT_ACTIVITY", "reject_activity", "rejectActivityIntent", "rejectActivityResult"),
}

// activitiesByType indexes Activities once every init has run.
var activitiesByType = sync.OnceValue(func() map[string]ActivitySpec {
	m := make(map[string]ActivitySpec, len(Activities))
	for _, a := range Activities {
		m[a.Type] = a
	}
	return m
})

// ActivityByType finds the spec of an activity type.
func ActivityByType(typ string) (ActivitySpec, bool) {
	a, ok := activitiesByType()[typ]
	return a, ok
}

// QuerySpec is the wire contract of one query.
type QuerySpec struct {
	Path        string // the name under /public/v1/query/
	NewRequest  func() any
	NewResponse func() any
}

func query[Q, R any](path string) QuerySpec {
	return QuerySpec{Path: path, NewRequest: func() any { return new(Q) }, NewResponse: func() any { return new(R) }}
}

// Queries is every query Sigil implements; families beyond the core add theirs from their own file's init.
var Queries = []QuerySpec{
	query[OrganizationRequest, WhoamiResponse]("whoami"),
	query[GetActivityRequest, ActivityResponse]("get_activity"),
	query[ListActivitiesRequest, ListActivitiesResponse]("list_activities"),
	query[GetUserRequest, GetUserResponse]("get_user"),
	query[OrganizationRequest, ListUsersResponse]("list_users"),
	query[GetAPIKeysRequest, GetAPIKeysResponse]("get_api_keys"),
	query[GetAuthenticatorsRequest, GetAuthenticatorsResponse]("get_authenticators"),
	query[OrganizationRequest, ListUserTagsResponse]("list_user_tags"),
	query[OrganizationRequest, GetOrganizationResponse]("get_organization"),
	query[ListSubOrgsRequest, ListSubOrgsResponse]("list_suborgs"),
	query[ListSubOrgsRequest, ListSubOrgsResponse]("list_verified_suborgs"),
	query[GetPolicyRequest, GetPolicyResponse]("get_policy"),
	query[OrganizationRequest, ListPoliciesResponse]("list_policies"),
	query[GetActivityRequest, GetPolicyEvaluationsResponse]("get_policy_evaluations"),
	query[EvaluateActivityRequest, EvaluateActivityResponse]("evaluate_activity"),
}

// QueryByPath finds the spec of a query.
func QueryByPath(path string) (QuerySpec, bool) {
	for _, q := range Queries {
		if q.Path == path {
			return q, true
		}
	}
	return QuerySpec{}, false
}
