package coordinator

import (
	"fmt"

	"sigil/api"
)

// activityDef is everything the engine knows about one activity type: its wire spec (path, intent and result keys,
// parameter and result types), how to validate its parameters before anything is stored, how to execute it, and who
// may submit it.
type activityDef struct {
	spec     api.ActivitySpec
	validate func(params any) error
	exec     func(x *execution, params any) (any, error)
	// parentMayAct: a credential of the parent organization may submit this activity in a direct sub-organization
	// (the login family), decided by the parent's root quorum and policies.
	parentMayAct bool
	// rootOnly: no policy can grant this activity; only the root quorum.
	rootOnly bool
}

// define binds typed validation and execution functions to an activity type.
func define[P, R any](typ string, validate func(*P) error, exec func(*execution, *P) (*R, error)) activityDef {
	spec, ok := api.ActivityByType("ACTIVITY_TYPE_" + typ)
	if !ok {
		panic(fmt.Sprintf("coordinator: activity type %s has no wire spec", typ))
	}
	d := activityDef{spec: spec}
	d.validate = func(p any) error {
		if validate == nil {
			return nil
		}
		return validate(p.(*P))
	}
	d.exec = func(x *execution, p any) (any, error) { return exec(x, p.(*P)) }
	return d
}

func (d activityDef) rootOnlyActivity() activityDef { d.rootOnly = true; return d }

// registry is every activity type the coordinator executes, by type.
var registry = func() map[string]activityDef {
	defs := []activityDef{
		define("CREATE_USERS_V3", validateCreateUsersV3, execCreateUsersV3),
		define("CREATE_USERS_V4", validateCreateUsersV4, execCreateUsersV4),
		define("DELETE_USERS", validateDeleteUsers, execDeleteUsers),
		define("UPDATE_USER", validateUpdateUser, execUpdateUser),
		define("UPDATE_USER_NAME", validateUpdateUserName, execUpdateUserName),
		define("UPDATE_USER_EMAIL", validateUpdateUserEmail, execUpdateUserEmail),
		define("UPDATE_USER_PHONE_NUMBER", validateUpdateUserPhone, execUpdateUserPhone),
		define("CREATE_USER_TAG", validateCreateUserTag, execCreateUserTag),
		define("UPDATE_USER_TAG", validateUpdateUserTag, execUpdateUserTag),
		define("DELETE_USER_TAGS", validateDeleteUserTags, execDeleteUserTags),
		define("CREATE_API_KEYS_V2", validateCreateAPIKeys, execCreateAPIKeys),
		define("DELETE_API_KEYS", validateDeleteAPIKeys, execDeleteAPIKeys),
		define("CREATE_AUTHENTICATORS_V2", validateCreateAuthenticators, execCreateAuthenticators),
		define("DELETE_AUTHENTICATORS", validateDeleteAuthenticators, execDeleteAuthenticators),
		define("CREATE_SUB_ORGANIZATION_V7", validateCreateSubOrgV7, execCreateSubOrgV7),
		define("CREATE_SUB_ORGANIZATION_V8", validateCreateSubOrgV8, execCreateSubOrgV8),
		define("DELETE_SUB_ORGANIZATION", nil, execDeleteSubOrg),
		define("UPDATE_ROOT_QUORUM", validateUpdateRootQuorum, execUpdateRootQuorum).rootOnlyActivity(),
		define("UPDATE_ORGANIZATION_NAME", validateUpdateOrgName, execUpdateOrgName).rootOnlyActivity(),
	}
	m := make(map[string]activityDef, len(defs))
	for _, d := range defs {
		m[d.spec.Type] = d
	}
	return m
}()
