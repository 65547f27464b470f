package coordinator

import (
	"fmt"
	"sync"

	"sigil/api"
	"sigil/policy"
)

// activityDef is everything the engine knows about one activity type: its wire spec (path, intent and result keys,
// parameter and result types), how to validate its parameters before anything is stored, how to execute it, and who
// may submit it. Its resource, action, kind and root-only flag, which the policy engine decides on, are in
// policy.ActivityInfo (published in docs/ACTIVITIES.md); the registry refuses a type missing there.
type activityDef struct {
	spec api.ActivitySpec
	// validate checks the parameters before anything is stored and returns what it parsed from them, if anything:
	// the prepare and execute steps find it in execution.checked rather than parse the parameters again.
	validate func(params any) (checked any, err error)
	exec     func(x *execution, params any) (any, error)
	// parentMayAct: a credential of the parent organization may submit this activity in a direct sub-organization
	// (the login family), decided by the parent's root quorum and policies.
	parentMayAct bool
	// readsOrg: the activity never changes its organization and writes nothing (signing), so it may run on the shared
	// decoded document of the current version instead of a private copy, even before its transaction (run): its
	// prepare and execute functions must not use the execution's transaction.
	readsOrg bool
	// prepare, when set, runs inside the transaction before the decision, to add what the policy engine needs
	// beyond the activity itself (the target of a vote, the transaction being signed, ...).
	prepare func(x *execution, params any, d *decisionRequest) error
}

// define binds typed validation and execution functions to an activity type.
func define[P, R any](typ string, validate func(*P) error, exec func(*execution, *P) (*R, error)) activityDef {
	spec, ok := api.ActivityByType("ACTIVITY_TYPE_" + typ)
	if !ok {
		panic(fmt.Sprintf("coordinator: activity type %s has no wire spec", typ))
	}
	d := activityDef{spec: spec}
	d.validate = func(p any) (any, error) {
		if validate == nil {
			return nil, nil
		}
		return nil, validate(p.(*P))
	}
	d.exec = func(x *execution, p any) (any, error) { return exec(x, p.(*P)) }
	return d
}

// readOnly marks an activity that never changes its organization.
func (d activityDef) readOnly() activityDef { d.readsOrg = true; return d }

// withCheck sets a typed validation that returns what it parsed from the parameters.
func withCheck[P any](d activityDef, check func(*P) (any, error)) activityDef {
	d.validate = func(p any) (any, error) { return check(p.(*P)) }
	return d
}

// withPrepare sets the typed prepare step of a definition.
func withPrepare[P any](d activityDef, prepare func(*execution, *P, *decisionRequest) error) activityDef {
	d.prepare = func(x *execution, p any, r *decisionRequest) error { return prepare(x, p.(*P), r) }
	return d
}

// registry is every activity type the coordinator executes, by type: the core ones of buildRegistry and the
// families that add theirs with register from their own file's init. It is built on first use, after every init.
var registry func() map[string]activityDef

func init() { registry = sync.OnceValue(buildRegistry) }

// families holds the activity definitions registered by each family's file.
var families [][]activityDef

// register adds a family of activities to the registry; call it from an init function.
func register(defs ...activityDef) { families = append(families, defs) }

func buildRegistry() map[string]activityDef {
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
		define("UPDATE_ROOT_QUORUM", validateUpdateRootQuorum, execUpdateRootQuorum),
		define("UPDATE_ORGANIZATION_NAME", validateUpdateOrgName, execUpdateOrgName),
		define("CREATE_POLICY_V3", validateCreatePolicy, execCreatePolicy),
		define("CREATE_POLICIES", validateCreatePolicies, execCreatePolicies),
		define("UPDATE_POLICY_V2", validateUpdatePolicy, execUpdatePolicy),
		define("DELETE_POLICY", validateDeletePolicy, execDeletePolicy),
		define("DELETE_POLICIES", validateDeletePolicies, execDeletePolicies),
		withPrepare(define("APPROVE_ACTIVITY", validateVote, execApprove), prepareVote),
		withPrepare(define("REJECT_ACTIVITY", validateVote, execReject), prepareVote),
	}
	for _, f := range families {
		defs = append(defs, f...)
	}
	m := make(map[string]activityDef, len(defs))
	for _, d := range defs {
		if _, dup := m[d.spec.Type]; dup {
			panic(fmt.Sprintf("coordinator: activity type %s registered twice", d.spec.Type))
		}
		if _, ok := policy.ActivityInfo(d.spec.Type); !ok {
			panic(fmt.Sprintf("coordinator: activity type %s has no resource, action and kind", d.spec.Type))
		}
		m[d.spec.Type] = d
	}
	return m
}
