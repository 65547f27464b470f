package api

// ActivitySpec is the wire contract of one activity type: where it is submitted and the keys its intent and result
// carry in the activity record. Each activity type is a variable of type ActivityOf beside its parameter type; the
// coordinator lists the ones it executes in one place (internal/coordinator/operations.go).
type ActivitySpec struct {
	Type      string // for example ACTIVITY_TYPE_CREATE_USERS_V3
	Path      string // the name under /public/v1/submit/, for example create_users
	IntentKey string // for example createUsersIntentV3
	ResultKey string // for example createUsersResult
}

// ActivityOf is an activity type's wire contract together with its parameter type P and result type R, so that the
// server's steps and the SDK's methods for it are checked against one another by the compiler.
type ActivityOf[P, R any] struct{ ActivitySpec }

func activity[P, R any](typ, path, intentKey, resultKey string) ActivityOf[P, R] {
	return ActivityOf[P, R]{ActivitySpec{Type: "ACTIVITY_TYPE_" + typ, Path: path, IntentKey: intentKey, ResultKey: resultKey}}
}

// QueryOf is a query's wire contract (its name under /public/v1/query/) with its request type Q and response type R.
type QueryOf[Q, R any] struct{ Path string }

func query[Q, R any](path string) QueryOf[Q, R] { return QueryOf[Q, R]{Path: path} }
