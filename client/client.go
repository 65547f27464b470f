// Package client is Sigil's Go SDK for the coordinator, the client a user of Turnkey's Go SDK expects: a stamped HTTP
// client with a typed method for every activity and query; a default organization that a call may override; retries,
// with backoff, of the failures the reference's Go SDK retries (network errors and 5xx answers but 501); polling of
// an activity until it is final, within a timeout, optionally through its approvals (consensus, MFA); and errors that
// keep the reference's code and details (*apierr.Error, *ActivityError).
//
//	key, _ := stamp.ParseAPIKey(stamp.CurveP256, privateHex)
//	c := client.New("http://127.0.0.1:8081", key)
//	c.Organization = orgID // the default: a method's orgID "" means it
//	res, _, err := c.CreateUsers(ctx, "", api.CreateUsersIntentV4{Users: ...})
//
// The package links no server code: it is what other modules import (github.com/sigil/sigil/client).
package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/stamp"
)

// Client talks to one coordinator with one credential. Its zero-valued settings take the defaults each names; set
// them before the first call.
type Client struct {
	BaseURL string
	Stamper stamp.Stamper
	HTTP    *http.Client
	// Organization is the organization a call acts in when it names none: a method called with orgID "", a query
	// whose request has an empty OrganizationID. Each call may name another (a sub-organization, say).
	Organization string
	// Retry says how a request that failed in a way that may pass is sent again (see RetryPolicy).
	Retry RetryPolicy
	// PollInterval is the wait between get_activity calls while an activity is not final (default 250 ms).
	PollInterval time.Duration
	// PollTimeout is how long Submit waits for an activity to become final (default 1 minute); then it returns the
	// last record it read with an *ActivityError that wraps ErrPollTimeout. The context's deadline, if sooner, wins.
	PollTimeout time.Duration
	// AwaitApprovals makes Submit wait, within PollTimeout, while an activity needs more approvals (CONSENSUS_NEEDED)
	// or authenticators (AUTHENTICATORS_NEEDED), until the other users' votes decide it. Without it Submit returns
	// such an activity at once, with an *ActivityError that wraps ErrNeedsApproval: approve it elsewhere, then Await.
	AwaitApprovals bool
	// Now stamps timestampMs (default time.Now).
	Now func() time.Time
	// GenerateAppProofs asks for app proofs on every activity that produces them (signing, address derivation).
	GenerateAppProofs bool
}

// New returns a client for the coordinator at baseURL that stamps with stamper.
func New(baseURL string, stamper stamp.Stamper) *Client {
	return &Client{BaseURL: strings.TrimSuffix(baseURL, "/"), Stamper: stamper, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Why an activity did not complete, wrapped by *ActivityError (test with errors.Is). A FAILED activity's error wraps
// its failure instead, an *apierr.Error with the reference's code and details.
var (
	ErrNeedsApproval = errors.New("the activity needs more approvals")                          // CONSENSUS_NEEDED, AUTHENTICATORS_NEEDED
	ErrRejected      = errors.New("the activity was rejected")                                  // REJECTED
	ErrPollTimeout   = errors.New("the activity was not final when the client stopped waiting") // PollTimeout passed
	// ErrNoOrganization: a call named no organization, and the client has no default (Client.Organization).
	ErrNoOrganization = errors.New("client: no organization: name one in the call or set Client.Organization")
)

// ActivityError is an activity that ended without completing: FAILED, REJECTED, waiting for more approvals
// (CONSENSUS_NEEDED, AUTHENTICATORS_NEEDED), or still PENDING when the client stopped waiting. Activity holds the
// last record read, for example to find its fingerprint for approvals or to Await it later.
type ActivityError struct {
	Activity api.Activity
	timedOut bool
}

func (e *ActivityError) Error() string {
	a := e.Activity
	switch {
	case e.timedOut:
		return fmt.Sprintf("activity %s still %s when the client stopped waiting", a.ID, a.Status)
	case a.Status == api.StatusConsensusNeeded || a.Status == api.StatusAuthenticatorsNeeded:
		return fmt.Sprintf("activity %s needs more approvals (%s, fingerprint %s)", a.ID, a.Status, a.Fingerprint)
	case a.Status == api.StatusFailed && a.Failure != nil:
		return fmt.Sprintf("activity %s failed: %s", a.ID, a.Failure.Message)
	}
	return fmt.Sprintf("activity %s ended %s", a.ID, a.Status)
}

// Unwrap gives what the activity's status means: its failure (an *apierr.Error), ErrRejected, ErrNeedsApproval,
// ErrPollTimeout.
func (e *ActivityError) Unwrap() []error {
	var errs []error
	if e.timedOut {
		errs = append(errs, ErrPollTimeout)
	}
	switch e.Activity.Status {
	case api.StatusFailed:
		if f := e.Activity.Failure; f != nil {
			errs = append(errs, apierr.FromBody(0, apierr.Body{Code: apierr.Code(f.Code), Message: f.Message, Details: f.Details}))
		}
	case api.StatusRejected:
		errs = append(errs, ErrRejected)
	case api.StatusConsensusNeeded, api.StatusAuthenticatorsNeeded:
		errs = append(errs, ErrNeedsApproval)
	}
	return errs
}

// Submit sends an activity of the type spec names and waits until it is final (see PollTimeout and AwaitApprovals).
// The result is the activity record; errors are *apierr.Error for refused requests and *ActivityError for
// activities that did not complete. orgID "" is the client's Organization. The typed methods (CreateUsers,
// SignTransaction, ...) call it; it serves callers that learn the type at run time.
func (c *Client) Submit(ctx context.Context, orgID string, spec api.ActivitySpec, params any) (*api.Activity, error) {
	req, err := c.NewSubmitRequest(ctx, orgID, spec, params)
	if err != nil {
		return nil, err
	}
	var res api.ActivityResponse
	if err := c.do(req, &res); err != nil {
		return nil, err
	}
	return c.await(ctx, res.Activity)
}

// Await reads again an activity submitted earlier (the record an *ActivityError holds, say, once others have voted)
// and polls it until it is final, as Submit does: within PollTimeout, through its approvals when AwaitApprovals is
// set. It returns the last record it read; when ctx ends first, with ctx's error.
func (c *Client) Await(ctx context.Context, a *api.Activity) (*api.Activity, error) {
	res, err := c.GetActivity(ctx, a.OrganizationID, a.ID)
	if err != nil {
		return a, err
	}
	return c.await(ctx, res.Activity)
}

// await polls the activity whose latest record is last until it is final.
func (c *Client) await(ctx context.Context, last api.Activity) (*api.Activity, error) {
	polling, cancel := context.WithTimeout(ctx, cmp.Or(c.PollTimeout, time.Minute))
	defer cancel()
	interval := cmp.Or(c.PollInterval, 250*time.Millisecond)
	stopped := func() (*api.Activity, error) {
		if err := ctx.Err(); err != nil {
			return &last, err
		}
		return &last, &ActivityError{Activity: last, timedOut: true}
	}
	for c.waitsFor(last.Status) {
		select {
		case <-polling.Done():
			return stopped()
		case <-time.After(interval):
		}
		res, err := c.GetActivity(polling, last.OrganizationID, last.ID)
		if polling.Err() != nil {
			return stopped()
		}
		if err != nil {
			return &last, err
		}
		last = res.Activity
	}
	if last.Status != api.StatusCompleted {
		return &last, &ActivityError{Activity: last}
	}
	return &last, nil
}

// waitsFor reports whether Await keeps polling an activity in this status.
func (c *Client) waitsFor(status string) bool {
	switch status {
	case api.StatusCreated, api.StatusPending:
		return true
	case api.StatusConsensusNeeded, api.StatusAuthenticatorsNeeded:
		return c.AwaitApprovals
	}
	return false
}

// Query runs a query: path is the name under /public/v1/query/ and resp receives the response. A request whose
// OrganizationID is empty is sent with the client's Organization.
func (c *Client) Query(ctx context.Context, path string, req, resp any) error {
	return c.post(ctx, "/public/v1/query/"+path, c.withOrganization(req), resp)
}

func (c *Client) post(ctx context.Context, path string, body, out any) error {
	req, err := c.newRequest(ctx, path, body)
	if err != nil {
		return err
	}
	return c.do(req, out)
}

// do sends a prepared request, again while it fails in a way that may pass (Retry), and reads the answer into out.
func (c *Client) do(req *http.Request, out any) error {
	res, err := c.Retry.send(c.HTTP, req)
	if err != nil {
		return err
	}
	return ReadResponse(res, out)
}

// Result decodes an activity's result object into out: the one its result holds under the result key of its type,
// beside the nested activity record.
func Result(a *api.Activity, out any) error {
	for key, raw := range a.Result {
		if key != "activity" {
			return json.Unmarshal(raw, out)
		}
	}
	return fmt.Errorf("client: activity %s (%s) has no result", a.ID, a.Status)
}

// IsCode reports whether err is an API error with the gRPC code.
func IsCode(err error, code apierr.Code) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Code == code
}

// submit sends an activity of a type whose parameter and result types the compiler checks.
func submit[P, R any](ctx context.Context, c *Client, orgID string, op api.ActivityOf[P, R], params P) (*R, *api.Activity, error) {
	a, err := c.Submit(ctx, orgID, op.ActivitySpec, params)
	if err != nil {
		return nil, a, err
	}
	var r R
	if raw, ok := a.Result[op.ResultKey]; !ok {
		return nil, a, fmt.Errorf("client: activity %s has no %s", a.ID, op.ResultKey)
	} else if err := json.Unmarshal(raw, &r); err != nil {
		return nil, a, err
	}
	return &r, a, nil
}

// query runs a query whose request and response types the compiler checks.
func query[Q, R any](ctx context.Context, c *Client, q api.QueryOf[Q, R], req Q) (*R, error) {
	var r R
	if err := c.Query(ctx, q.Path, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
