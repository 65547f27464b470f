package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// NewSubmitRequest builds, without sending it, the request Submit sends for an activity: the envelope with
// timestampMs from c.Now and the client's GenerateAppProofs, stamped by c.Stamper, ready for c.HTTP.Do. It serves
// callers that send requests themselves, a load generator that prepares its next request ahead for example. Read the
// answer with ReadResponse into an api.ActivityResponse; unlike Submit, nothing is retried and nothing waits for an
// activity still pending. orgID "" is the client's Organization.
func (c *Client) NewSubmitRequest(ctx context.Context, orgID string, spec api.ActivitySpec, params any) (*http.Request, error) {
	orgID, err := c.organization(orgID)
	if err != nil {
		return nil, err
	}
	rawParams, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	env := api.SubmitRequest{Type: spec.Type, TimestampMs: strconv.FormatInt(now().UnixMilli(), 10),
		OrganizationID: orgID, Parameters: rawParams}
	if c.GenerateAppProofs {
		env.GenerateAppProofs = &c.GenerateAppProofs
	}
	return c.newRequest(ctx, "/public/v1/submit/"+spec.Path, env)
}

// NewQueryRequest builds, without sending it, the stamped request Query sends for the query at path (the name under
// /public/v1/query/) with body. Read the answer with ReadResponse.
func (c *Client) NewQueryRequest(ctx context.Context, path string, body any) (*http.Request, error) {
	return c.newRequest(ctx, "/public/v1/query/"+path, c.withOrganization(body))
}

func (c *Client) newRequest(ctx context.Context, path string, body any) (*http.Request, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	name, value, err := c.Stamper.Stamp(raw)
	if err != nil {
		return nil, fmt.Errorf("client: stamp: %w", err)
	}
	req.Header.Set(name, value)
	return req, nil
}

// ReadResponse reads the coordinator's answer to a request of NewSubmitRequest or NewQueryRequest into out and closes
// its body. A refusal is an *apierr.Error, as from Submit and Query.
func ReadResponse(res *http.Response, out any) error {
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		var b apierr.Body
		if json.Unmarshal(data, &b) != nil || b.Message == "" {
			return &apierr.Error{Code: apierr.Unknown, HTTP: res.StatusCode, Message: res.Status}
		}
		return apierr.FromBody(res.StatusCode, b)
	}
	return json.Unmarshal(data, out)
}
