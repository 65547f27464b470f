package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/webhook"
)

// maxDeliveryBytes caps the body the receiver reads: an activity is far smaller.
const maxDeliveryBytes = 4 << 20

// runWebhooksListen is sigil webhooks listen: a local receiver for development. It registers itself as an endpoint of
// the organization (a dev stack allows http endpoints on loopback), verifies every delivery's signature against the
// coordinator's webhook JWKS as a production receiver must, prints each event, and deletes the endpoint when stopped.
func runWebhooksListen(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	coord := registerCoordinatorFlags(fs)
	listen := fs.String("listen", "127.0.0.1:0", "address to receive deliveries on")
	register := fs.Bool("register", true, "create an endpoint for this receiver, and delete it when stopped; false only receives (point an endpoint at it yourself)")
	filters := fs.String("filters", "", `the subscription's filtersJson, for example {"activityTypes":["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]}`)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	c, orgID, err := coord.client(e)
	if err != nil {
		return err
	}
	rx := &listener{jwksURL: c.BaseURL + api.WebhookJWKSPath, out: e.stdout}
	if err := rx.refreshKeys(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rx, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	endpointURL := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(e.stdout, "receiving on %s; Ctrl-C stops\n", endpointURL)
	if *register {
		id, err := registerEndpoint(ctx, c, orgID, endpointURL, *filters)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "registered endpoint %s of organization %s\n", id, orgID)
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, _, err := c.DeleteWebhookEndpoint(ctx, orgID, id); err != nil {
				fmt.Fprintf(e.stderr, "deleting endpoint %s: %v\n", id, err)
				return
			}
			fmt.Fprintf(e.stdout, "deleted endpoint %s\n", id)
		}()
	}
	<-ctx.Done()
	return nil
}

func registerEndpoint(ctx context.Context, c *client.Client, orgID, url, filters string) (string, error) {
	res, _, err := c.CreateWebhookEndpoint(ctx, orgID, api.CreateWebhookEndpointIntent{URL: url, Name: "sigil webhooks listen",
		Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates, FiltersJSON: filters}}})
	if err != nil {
		return "", fmt.Errorf("registering the endpoint (a stack started with --exposed refuses local URLs): %w", err)
	}
	return res.EndpointID, nil
}

// listener verifies and prints deliveries.
type listener struct {
	jwksURL string

	mu   sync.Mutex
	keys []webhook.VerificationKey
	out  io.Writer
}

func (l *listener) refreshKeys(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.jwksURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the webhook keys: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching the webhook keys from %s: %s", l.jwksURL, resp.Status)
	}
	keys, err := webhook.ParseJWKS(raw)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.keys = keys
	l.mu.Unlock()
	return nil
}

func (l *listener) verify(r *http.Request, body []byte) (webhook.Verified, error) {
	l.mu.Lock()
	keys := l.keys
	l.mu.Unlock()
	v, err := webhook.Verify(r.Header, body, keys, 5*time.Minute, time.Now())
	if errors.Is(err, webhook.ErrMissingKey) && l.refreshKeys(r.Context()) == nil { // the coordinator's key changed
		l.mu.Lock()
		keys = l.keys
		l.mu.Unlock()
		v, err = webhook.Verify(r.Header, body, keys, 5*time.Minute, time.Now())
	}
	return v, err
}

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDeliveryBytes))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	v, err := l.verify(r, body)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		fmt.Fprintf(l.out, "refused a delivery: %v\n", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var a struct{ ID, Type, Status string }
	_ = json.Unmarshal(body, &a)
	var pretty bytes.Buffer
	if json.Indent(&pretty, body, "  ", "  ") != nil {
		pretty.Reset()
		pretty.Write(body)
	}
	fmt.Fprintf(l.out, "%s %s %s (verified, key %s) organization %s: activity %s %s %s\n  %s\n",
		v.Timestamp.UTC().Format(time.RFC3339), v.EventType, v.EventID, v.KeyID, v.OrganizationID, a.ID, a.Type, a.Status, pretty.String())
	w.WriteHeader(http.StatusNoContent)
}

// deliveryStates are the --state values of sigil webhooks deliveries, by their wire names' last word.
var deliveryStates = map[string]string{"": "", "pending": api.WebhookDeliveryPending, "delivered": api.WebhookDeliveryDelivered,
	"dead": api.WebhookDeliveryDead}

// runWebhooksDeliveries is sigil webhooks deliveries: an endpoint's latest deliveries, as list_webhook_deliveries
// gives them.
func runWebhooksDeliveries(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	coord := registerCoordinatorFlags(fs)
	endpoint := fs.String("endpoint", "", "the endpoint's id (required)")
	state := fs.String("state", "", "only deliveries in this state: pending, delivered or dead")
	limit := fs.Int("limit", 0, "at most this many, newest first (default and most 100)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	wire, ok := deliveryStates[*state]
	if !ok {
		return e.usageErrorf("--state %q is not pending, delivered or dead", *state)
	}
	if *endpoint == "" {
		return e.usageErrorf("--endpoint is required")
	}
	c, orgID, err := coord.client(e)
	if err != nil {
		return err
	}
	res, err := c.ListWebhookDeliveries(ctx, api.ListWebhookDeliveriesRequest{OrganizationID: orgID, EndpointID: *endpoint, State: wire, Limit: *limit})
	if err != nil {
		return err
	}
	return printJSON(e, res.Deliveries)
}

// runWebhooksReplay is sigil webhooks replay: an endpoint's dead deliveries, the named ones or all, are queued again
// under their event ids (the REPLAY_WEBHOOK_DELIVERIES activity, decided by the organization's policies).
func runWebhooksReplay(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	coord := registerCoordinatorFlags(fs)
	endpoint := fs.String("endpoint", "", "the endpoint's id (required)")
	var ids []string
	fs.Func("delivery", "a dead delivery's id (repeatable; default every dead delivery of the endpoint)", func(v string) error {
		ids = append(ids, v)
		return nil
	})
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *endpoint == "" {
		return e.usageErrorf("--endpoint is required")
	}
	c, orgID, err := coord.client(e)
	if err != nil {
		return err
	}
	res, _, err := c.ReplayWebhookDeliveries(ctx, orgID, api.ReplayWebhookDeliveriesIntent{EndpointID: *endpoint, DeliveryIDs: ids})
	if err != nil {
		return err
	}
	return printJSON(e, res)
}
