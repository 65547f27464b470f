// Package client is Sigil's Go SDK for the coordinator: a stamped HTTP client with a typed method for every activity
// and query, polling until an activity reaches a terminal status, and errors that keep the server's code and message.
//
//	key, _ := stamp.ParseAPIKey(stamp.CurveP256, privateHex)
//	c := client.New("http://127.0.0.1:8081", key)
//	res, _, err := c.CreateUsers(ctx, orgID, api.CreateUsersIntentV4{Users: ...})
package client

import (
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

// Client talks to one coordinator with one credential.
type Client struct {
	BaseURL string
	Stamper stamp.Stamper
	HTTP    *http.Client
	// PollInterval is the wait between get_activity calls while an activity is pending (default 250 ms).
	PollInterval time.Duration
	// Now stamps timestampMs (default time.Now).
	Now func() time.Time
	// GenerateAppProofs asks for app proofs on every activity that produces them (signing, address derivation).
	GenerateAppProofs bool
}

// New returns a client for the coordinator at baseURL that stamps with stamper.
func New(baseURL string, stamper stamp.Stamper) *Client {
	return &Client{BaseURL: strings.TrimSuffix(baseURL, "/"), Stamper: stamper, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// ActivityError is an activity that ended without completing: FAILED, REJECTED, or waiting for more approvals
// (CONSENSUS_NEEDED). Activity holds the record, for example to find its fingerprint for approvals.
type ActivityError struct {
	Activity api.Activity
}

func (e *ActivityError) Error() string {
	switch e.Activity.Status {
	case api.StatusConsensusNeeded:
		return fmt.Sprintf("activity %s needs more approvals (fingerprint %s)", e.Activity.ID, e.Activity.Fingerprint)
	case api.StatusFailed:
		if f := e.Activity.Failure; f != nil {
			return fmt.Sprintf("activity %s failed: %s", e.Activity.ID, f.Message)
		}
	}
	return fmt.Sprintf("activity %s ended %s", e.Activity.ID, e.Activity.Status)
}

// Submit sends an activity of the type spec names and waits until it is terminal. The result is the activity record;
// errors are *apierr.Error for refused requests and *ActivityError for activities that did not complete. The typed
// methods (CreateUsers, SignTransaction, ...) call it; it serves callers that learn the type at run time.
func (c *Client) Submit(ctx context.Context, orgID string, spec api.ActivitySpec, params any) (*api.Activity, error) {
	req, err := c.NewSubmitRequest(ctx, orgID, spec, params)
	if err != nil {
		return nil, err
	}
	var res api.ActivityResponse
	if err := c.do(req, &res); err != nil {
		return nil, err
	}
	return c.wait(ctx, res.Activity)
}

// wait polls get_activity until the activity is terminal or needs approvals.
func (c *Client) wait(ctx context.Context, a api.Activity) (*api.Activity, error) {
	interval := c.PollInterval
	if interval == 0 {
		interval = 250 * time.Millisecond
	}
	for a.Status == api.StatusPending || a.Status == api.StatusCreated {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
		res, err := c.GetActivity(ctx, a.OrganizationID, a.ID)
		if err != nil {
			return nil, err
		}
		a = res.Activity
	}
	if a.Status != api.StatusCompleted {
		return &a, &ActivityError{Activity: a}
	}
	return &a, nil
}

// Query runs a query: path is the name under /public/v1/query/ and resp receives the response.
func (c *Client) Query(ctx context.Context, path string, req, resp any) error {
	return c.post(ctx, "/public/v1/query/"+path, req, resp)
}

func (c *Client) post(ctx context.Context, path string, body, out any) error {
	req, err := c.newRequest(ctx, path, body)
	if err != nil {
		return err
	}
	return c.do(req, out)
}

// do sends a prepared request and reads the answer into out.
func (c *Client) do(req *http.Request, out any) error {
	res, err := c.HTTP.Do(req)
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
