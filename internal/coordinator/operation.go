package coordinator

import (
	"context"
	"net/http"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/policy"
)

// An activity type is one value of type *Activity, declared beside its steps (users.go, wallets.go, ...) and listed
// once in operations.go. Its type parameters say what flows between its steps, so the compiler checks them:
//
//	P  its parameters (the intent), decoded strictly from the request
//	C  what its Check step parsed from the parameters (a decoded transaction, for one), kept for the later steps
//	E  what its Prepare step resolved for the decision (the signer, the activity voted on), handed to Execute
//	R  its result
//
// Most activity types need neither C nor E: activity() defines those with a validation and an execute function.

// none is the C or E of an activity type whose steps pass nothing on.
type none struct{}

// activityInfo is what the engine, the policy engine and the docs know of an activity type besides its steps.
type activityInfo struct {
	api.ActivitySpec
	Resource string         // activity.resource
	Action   string         // activity.action
	Params   []policy.Param // the activity.params it exposes
	// RootOnly: only the root quorum performs it; no policy can grant it, and it has no activity.kind.
	RootOnly bool
	// ByParent: a credential of the parent organization may submit it in a direct sub-organization (the logins),
	// decided by the parent's root quorum and policies.
	ByParent bool
	// Proxied: the auth proxy submits it; the proxy user's policy allows these and nothing else.
	Proxied bool
	// OwnCredentials: it creates or deletes credentials of the user named by its userId, which users may do to their
	// own credentials without a policy (an implicit permission), unless some policy applies to the activity.
	OwnCredentials bool
	// Signs: it signs and changes nothing, so it is decided and executed ahead of its transaction against the cached
	// organization (its steps must not use the execution's transaction), and an allowed one proves its outcome when
	// app proofs are asked for.
	Signs bool
}

// Kind is activity.kind: the type without its ACTIVITY_TYPE_ prefix and _Vn version suffix; none for a root-only type,
// so that no policy on kinds can match it.
func (i *activityInfo) Kind() string {
	if i.RootOnly {
		return ""
	}
	t := strings.TrimPrefix(i.Type, "ACTIVITY_TYPE_")
	if v := strings.LastIndex(t, "_V"); v >= 0 && isDigits(t[v+2:]) {
		return t[:v]
	}
	return t
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Activity is one activity type: its wire contract and facts, and its three steps.
type Activity[P, C, E, R any] struct {
	activityInfo
	// Check validates the parameters before anything is stored, and returns what it parsed from them.
	Check func(*P) (C, error)
	// Ahead (optional) does an activity's costly work that needs no lock — deriving and sealing keys — before its
	// transaction, against the cached organization (the execution has no transaction), and returns what it parsed
	// with that work added; Execute must check in its transaction that the work still fits, and do it there if not. It
	// is not run for an activity that signs, which is decided and executed ahead whole.
	Ahead func(*execution, *P, C) C
	// Prepare runs before the decision (in the activity's transaction, or ahead of it for a signing activity): it adds
	// to the decision request what the policy engine reads beyond the activity itself, and resolves what Execute uses.
	Prepare func(*execution, *P, C, *decisionRequest) (E, error)
	// Execute performs the activity once it is allowed.
	Execute func(*execution, *P, E) (*R, error)
}

// operation is an activity type as the engine uses it, whatever its type parameters.
type operation interface {
	info() *activityInfo
	// begin decodes the parameters (decode fills the value it is given) and checks them.
	begin(decode func(params any) error) (job, error)
	newParams() any
}

// job is one activity's parameters, decoded and checked, ready to be decided and executed.
type job interface {
	// params are the decoded parameters: the intent the activity is recorded with (redacted) and decided on.
	params() any
	// prepare runs the Prepare step in x, filling d, and returns the Execute step bound to what it resolved.
	prepare(x *execution, d *decisionRequest) (execute func() (any, error), err error)
	// ahead runs the Ahead step, if the type has one, in x, which has no transaction.
	ahead(x *execution)
}

func (a *Activity[P, C, E, R]) info() *activityInfo { return &a.activityInfo }
func (a *Activity[P, C, E, R]) newParams() any      { return new(P) }

func (a *Activity[P, C, E, R]) begin(decode func(any) error) (job, error) {
	p := new(P)
	if err := decode(p); err != nil {
		return nil, err
	}
	c, err := a.Check(p)
	if err != nil {
		return nil, err
	}
	return &typedJob[P, C, E, R]{a: a, p: p, c: c}, nil
}

type typedJob[P, C, E, R any] struct {
	a *Activity[P, C, E, R]
	p *P
	c C
}

func (j *typedJob[P, C, E, R]) params() any { return j.p }

func (j *typedJob[P, C, E, R]) ahead(x *execution) {
	if j.a.Ahead != nil {
		j.c = j.a.Ahead(x, j.p, j.c)
	}
}

func (j *typedJob[P, C, E, R]) prepare(x *execution, d *decisionRequest) (func() (any, error), error) {
	e, err := j.a.Prepare(x, j.p, j.c, d)
	if err != nil {
		return nil, err
	}
	return func() (any, error) { return j.a.Execute(x, j.p, e) }, nil
}

// facts is what the policy engine reads of an activity type: activity.resource, activity.action and the
// activity.params it exposes.
type facts struct {
	resource, action string
	params           []policy.Param
}

func on(resource, action string, params ...policy.Param) facts {
	return facts{resource: resource, action: action, params: params}
}

// Resources and actions of the reference (section 4).
const (
	resAuth         = "AUTH"
	resAuthProxy    = "AUTH_PROXY"
	resConfig       = "CONFIG"
	resCredential   = "CREDENTIAL"
	resOrganization = "ORGANIZATION"
	resOTP          = "OTP"
	resPolicy       = "POLICY"
	resPrivateKey   = "PRIVATE_KEY"
	resUser         = "USER"
	resWallet       = "WALLET"

	actCreate = "CREATE"
	actUpdate = "UPDATE"
	actDelete = "DELETE"
	actSign   = "SIGN"
	actExport = "EXPORT"
	actImport = "IMPORT"
	actVerify = "VERIFY"
)

func newInfo(spec api.ActivitySpec, f facts) activityInfo {
	return activityInfo{ActivitySpec: spec, Resource: f.resource, Action: f.action, Params: f.params}
}

// activity defines an activity type whose steps pass nothing on: validate checks its parameters (nil for none), exec
// performs it.
func activity[P, R any](wire api.ActivityOf[P, R], f facts, validate func(*P) error, exec func(*execution, *P) (*R, error)) *Activity[P, none, none, R] {
	return prepared(wire, f, validate, func(*execution, *P, *decisionRequest) (none, error) { return none{}, nil },
		func(x *execution, p *P, _ none) (*R, error) { return exec(x, p) })
}

// prepared defines an activity type whose Prepare step resolves something for the decision and for Execute.
func prepared[P, E, R any](wire api.ActivityOf[P, R], f facts, validate func(*P) error,
	prepare func(*execution, *P, *decisionRequest) (E, error), exec func(*execution, *P, E) (*R, error)) *Activity[P, none, E, R] {
	return &Activity[P, none, E, R]{
		activityInfo: newInfo(wire.ActivitySpec, f),
		Check: func(p *P) (none, error) {
			if validate == nil {
				return none{}, nil
			}
			return none{}, validate(p)
		},
		Prepare: func(x *execution, p *P, _ none, d *decisionRequest) (E, error) { return prepare(x, p, d) },
		Execute: exec,
	}
}

// keyed defines an activity type that creates keys: ahead derives and seals them before the activity's transaction
// (nil when it cannot, or for a type that derives nothing), and exec stores them, or derives them itself when there are
// none or they no longer fit.
func keyed[P, R any](wire api.ActivityOf[P, R], f facts, validate func(*P) error, ahead func(*execution, *P) *walletKeys,
	exec func(*execution, *P, *walletKeys) (*R, error)) *Activity[P, *walletKeys, *walletKeys, R] {
	return &Activity[P, *walletKeys, *walletKeys, R]{
		activityInfo: newInfo(wire.ActivitySpec, f),
		Check:        func(p *P) (*walletKeys, error) { return nil, validate(p) },
		Ahead:        func(x *execution, p *P, _ *walletKeys) *walletKeys { return ahead(x, p) },
		Prepare:      func(_ *execution, _ *P, k *walletKeys, _ *decisionRequest) (*walletKeys, error) { return k, nil },
		Execute:      exec,
	}
}

// signing defines a signing activity (resource PRIVATE_KEY, action SIGN, even with a wallet): check parses what it
// signs, prepare resolves the signer and gives the policy engine the facts, exec signs.
func signing[P, C, E, R any](wire api.ActivityOf[P, R], params []policy.Param, check func(*P) (C, error),
	prepare func(*execution, *P, C, *decisionRequest) (E, error), exec func(*execution, *P, E) (*R, error)) *Activity[P, C, E, R] {
	a := &Activity[P, C, E, R]{activityInfo: newInfo(wire.ActivitySpec, on(resPrivateKey, actSign, params...)),
		Check: check, Prepare: prepare, Execute: exec}
	a.Signs = true
	return a
}

// byParent marks an activity type that a parent organization's credential may submit in a direct sub-organization.
func (a *Activity[P, C, E, R]) byParent() *Activity[P, C, E, R] { a.ByParent = true; return a }

// proxied marks an activity type the auth proxy submits.
func (a *Activity[P, C, E, R]) proxied() *Activity[P, C, E, R] { a.Proxied = true; return a }

// ownCredentials marks an activity type that users may perform on their own credentials without a policy.
func (a *Activity[P, C, E, R]) ownCredentials() *Activity[P, C, E, R] {
	a.OwnCredentials = true
	return a
}

// rootOnly marks an activity type only the root quorum performs.
func (a *Activity[P, C, E, R]) rootOnly() *Activity[P, C, E, R] { a.RootOnly = true; return a }

// Query is one query: its wire contract and how it is answered. A caller reads its own organization and its direct
// sub-organizations (reader), nothing else.
type Query[Q, R any] struct {
	api.QueryOf[Q, R]
	Run func(*reader, *Q) (*R, error)
}

// queryOp is a query as Coordinator.Query uses it.
type queryOp interface {
	path() string
	newRequest() any
	// serve authenticates the request and answers it.
	serve(ctx context.Context, c *Coordinator, header http.Header, body []byte) (any, error)
}

func query[Q, R any](wire api.QueryOf[Q, R], run func(*reader, *Q) (*R, error)) *Query[Q, R] {
	return &Query[Q, R]{QueryOf: wire, Run: run}
}

func (q *Query[Q, R]) path() string    { return q.Path }
func (q *Query[Q, R]) newRequest() any { return new(Q) }

func (q *Query[Q, R]) serve(ctx context.Context, c *Coordinator, header http.Header, body []byte) (any, error) {
	r, err := c.authenticateQuery(ctx, header, body)
	if err != nil {
		return nil, err
	}
	req := new(Q)
	if err := decodeRequest(body, req); err != nil {
		return nil, err
	}
	return q.Run(r, req)
}

// ServiceQuery is a query that a service of the installation (not a user of an organization) sends, stamped with the
// service's own key: Run authenticates the request itself.
type ServiceQuery[Q, R any] struct {
	api.QueryOf[Q, R]
	Run func(ctx context.Context, c *Coordinator, header http.Header, body []byte) (*R, error)
}

func (q *ServiceQuery[Q, R]) path() string    { return q.Path }
func (q *ServiceQuery[Q, R]) newRequest() any { return new(Q) }

func (q *ServiceQuery[Q, R]) serve(ctx context.Context, c *Coordinator, header http.Header, body []byte) (any, error) {
	return q.Run(ctx, c, header, body)
}
