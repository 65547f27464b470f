package coordinator

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/webhook"
)

// Webhooks: an organization's endpoints, kept in its document, and the events they receive. An activity that reaches
// a status (completed, failed, rejected, consensus needed) writes one delivery per subscribed endpoint into the outbox
// in the same transaction as the activity's record, so an event exists exactly when its change does; a webhook.Worker
// (RunWebhooks) posts them after the commit, signed with an Ed25519 key whose public half is served at
// api.WebhookJWKSPath. Endpoints of a parent organization receive its sub-organizations' events too, as Turnkey's do.

const (
	resWebhookEndpoint  = "WEBHOOK_ENDPOINT"
	maxWebhookEndpoints = 20
	// maxWebhookSubscriptions bounds an endpoint's subscriptions (the reference sets none): every event is matched
	// against each, and four event types with filters of up to 4 KiB need few.
	maxWebhookSubscriptions = 20
	maxWebhookURLLen        = 2048
	maxWebhookFiltersLen    = 4096
	webhookURLCheckTimeout  = 5 * time.Second
	maxDeliveryList         = 100
)

// The activity types of this file.
var (
	createWebhookEndpoint = activity(api.CreateWebhookEndpoint, on(resWebhookEndpoint, actCreate),
		validateCreateWebhookEndpoint, execCreateWebhookEndpoint)
	updateWebhookEndpoint = activity(api.UpdateWebhookEndpoint, on(resWebhookEndpoint, actUpdate),
		validateUpdateWebhookEndpoint, execUpdateWebhookEndpoint)
	deleteWebhookEndpoint = activity(api.DeleteWebhookEndpoint, on(resWebhookEndpoint, actDelete),
		validateDeleteWebhookEndpoint, execDeleteWebhookEndpoint)
	// Sigil's own: Turnkey has no way to send a dead letter again.
	replayWebhookDeliveries = activity(api.ReplayWebhookDeliveries, on(resWebhookEndpoint, actUpdate),
		validateReplayWebhookDeliveries, execReplayWebhookDeliveries)
)

// The queries of this file.
var (
	listWebhookEndpoints  = query(api.ListWebhookEndpoints, queryListWebhookEndpoints)
	listWebhookDeliveries = query(api.ListWebhookDeliveries, queryListWebhookDeliveries)
)

// WebhookEndpoint is an endpoint as the organization document keeps it.
type WebhookEndpoint struct {
	ID            string                 `json:"id"`
	URL           string                 `json:"url"`
	Name          string                 `json:"name"`
	Active        bool                   `json:"active"`
	Subscriptions []*WebhookSubscription `json:"subscriptions"`
	CreatedAt     time.Time              `json:"createdAt"`
	UpdatedAt     time.Time              `json:"updatedAt"`
}

// WebhookSubscription is one event type an endpoint receives, narrowed by its filters.
type WebhookSubscription struct {
	EventType   string        `json:"eventType"`
	FiltersJSON string        `json:"filtersJson,omitempty"` // as given, shown back
	Filters     webhookFilter `json:"filters"`
	Active      bool          `json:"active"`
}

// webhookFilter is what filtersJson may say: every list given must hold the event's value. Activity updates are
// filtered by type, status and organization; balance updates by network (CAIP-2) and address.
type webhookFilter struct {
	ActivityTypes    []string `json:"activityTypes,omitempty"`
	ActivityStatuses []string `json:"activityStatuses,omitempty"`
	OrganizationIDs  []string `json:"organizationIds,omitempty"`
	Networks         []string `json:"networks,omitempty"`
	Addresses        []string `json:"addresses,omitempty"`
}

func inFilter(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }

func (f webhookFilter) matches(rec *record) bool {
	return inFilter(f.ActivityTypes, rec.Type) && inFilter(f.ActivityStatuses, rec.Status) && inFilter(f.OrganizationIDs, rec.OrganizationID)
}

func (f webhookFilter) matchesBalance(network, address string) bool {
	if len(f.Addresses) > 0 && !slices.ContainsFunc(f.Addresses, func(a string) bool { return addressKey(a) == addressKey(address) }) {
		return false
	}
	return inFilter(f.Networks, network)
}

func validateCreateWebhookEndpoint(p *api.CreateWebhookEndpointIntent) error {
	if err := checkName("parameters.name", p.Name); err != nil {
		return err
	}
	if err := checkWebhookURLSyntax("parameters.url", p.URL); err != nil {
		return err
	}
	if len(p.Subscriptions) > maxWebhookSubscriptions {
		return apierr.Invalid("parameters.subscriptions holds %d subscriptions; an endpoint holds at most %d", len(p.Subscriptions), maxWebhookSubscriptions)
	}
	for i, s := range p.Subscriptions {
		if _, err := newWebhookSubscription(fmt.Sprintf("parameters.subscriptions[%d]", i), s); err != nil {
			return err
		}
	}
	return nil
}

// checkWebhookURLSyntax checks what can be checked without resolving the host; the webhook.Guard checks the rest.
func checkWebhookURLSyntax(path, url string) error {
	if len(url) > maxWebhookURLLen {
		return apierr.Invalid("%s is longer than %d bytes", path, maxWebhookURLLen)
	}
	if strings.TrimSpace(url) == "" {
		return apierr.Invalid("%s must not be empty", path)
	}
	return nil
}

func newWebhookSubscription(path string, s api.WebhookSubscriptionParams) (*WebhookSubscription, error) {
	switch s.EventType {
	case api.WebhookActivityUpdates, api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates, api.WebhookSendTransactionUpdates:
	default:
		return nil, apierr.Invalid("%s.eventType: %q is not an event type; Sigil sends %s, %s, %s and %s", path, s.EventType,
			api.WebhookActivityUpdates, api.WebhookBalanceConfirmedUpdates, api.WebhookBalanceFinalizedUpdates, api.WebhookSendTransactionUpdates)
	}
	sub := &WebhookSubscription{EventType: s.EventType, FiltersJSON: s.FiltersJSON, Active: s.IsActive == nil || *s.IsActive}
	if s.FiltersJSON == "" {
		return sub, nil
	}
	if len(s.FiltersJSON) > maxWebhookFiltersLen {
		return nil, apierr.Invalid("%s.filtersJson is longer than %d bytes", path, maxWebhookFiltersLen)
	}
	dec := json.NewDecoder(strings.NewReader(s.FiltersJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sub.Filters); err != nil || dec.More() {
		return nil, apierr.Invalid("%s.filtersJson must be a JSON object with activityTypes, activityStatuses or organizationIds (lists of strings): %v", path, err)
	}
	return sub, nil
}

// checkWebhookURL refuses destinations a delivery must not go to (webhook.Guard: https, public addresses), resolving
// the host; the worker checks again before every attempt, against DNS rebinding.
func (x *execution) checkWebhookURL(path, url string) error {
	ctx, cancel := context.WithTimeout(x.ctx, webhookURLCheckTimeout)
	defer cancel()
	if err := x.c.webhookGuard().CheckURL(ctx, url); err != nil {
		return apierr.Invalid("%s: %v", path, err)
	}
	return nil
}

func execCreateWebhookEndpoint(x *execution, p *api.CreateWebhookEndpointIntent) (*api.CreateWebhookEndpointResult, error) {
	if len(x.org.Webhooks) >= maxWebhookEndpoints {
		return nil, apierr.New(apierr.ResourceExhausted, "REQUEST_INVALID", "an organization holds at most %d webhook endpoints", maxWebhookEndpoints)
	}
	if err := x.checkWebhookURL("parameters.url", p.URL); err != nil {
		return nil, err
	}
	e := &WebhookEndpoint{ID: newID(), URL: p.URL, Name: p.Name, Active: true, Subscriptions: []*WebhookSubscription{},
		CreatedAt: x.now, UpdatedAt: x.now}
	for i, s := range p.Subscriptions {
		sub, err := newWebhookSubscription(fmt.Sprintf("parameters.subscriptions[%d]", i), s)
		if err != nil {
			return nil, err
		}
		if sub.EventType != api.WebhookActivityUpdates && x.org.ParentID != "" {
			return nil, apierr.Denied("parameters.subscriptions[%d].eventType: %s endpoints are managed from the billing organization %s, "+
				"which receives its sub-organizations' balance events", i, sub.EventType, x.org.ParentID)
		}
		e.Subscriptions = append(e.Subscriptions, sub)
	}
	x.org.Webhooks = append(x.org.Webhooks, e)
	return &api.CreateWebhookEndpointResult{EndpointID: e.ID, WebhookEndpoint: e.wire(x.org.ID)}, nil
}

func validateUpdateWebhookEndpoint(p *api.UpdateWebhookEndpointIntent) error {
	if err := checkID("parameters.endpointId", p.EndpointID); err != nil {
		return err
	}
	if p.Name != nil {
		if err := checkName("parameters.name", *p.Name); err != nil {
			return err
		}
	}
	if p.URL != nil {
		return checkWebhookURLSyntax("parameters.url", *p.URL)
	}
	return nil
}

func execUpdateWebhookEndpoint(x *execution, p *api.UpdateWebhookEndpointIntent) (*api.UpdateWebhookEndpointResult, error) {
	e := x.org.webhook(p.EndpointID)
	if e == nil {
		return nil, apierr.NotFoundf("no webhook endpoint %s in organization %s", p.EndpointID, x.org.ID)
	}
	if p.URL != nil && *p.URL != e.URL {
		if err := x.checkWebhookURL("parameters.url", *p.URL); err != nil {
			return nil, err
		}
		e.URL = *p.URL
		if err := x.tx.RetargetWebhookDeliveries(x.ctx, e.ID, e.URL); err != nil {
			return nil, err
		}
	}
	if p.Name != nil {
		e.Name = *p.Name
	}
	if p.IsActive != nil && *p.IsActive != e.Active {
		e.Active = *p.IsActive
		if !e.Active {
			if err := x.tx.AbandonWebhookDeliveries(x.ctx, e.ID, "the endpoint was deactivated", x.now.UnixNano()); err != nil {
				return nil, err
			}
		}
	}
	e.UpdatedAt = x.now
	return &api.UpdateWebhookEndpointResult{EndpointID: e.ID, WebhookEndpoint: e.wire(x.org.ID)}, nil
}

func validateDeleteWebhookEndpoint(p *api.DeleteWebhookEndpointIntent) error {
	return checkID("parameters.endpointId", p.EndpointID)
}

func execDeleteWebhookEndpoint(x *execution, p *api.DeleteWebhookEndpointIntent) (*api.DeleteWebhookEndpointResult, error) {
	i := slices.IndexFunc(x.org.Webhooks, func(e *WebhookEndpoint) bool { return e.ID == p.EndpointID })
	if i < 0 {
		return nil, apierr.NotFoundf("no webhook endpoint %s in organization %s", p.EndpointID, x.org.ID)
	}
	if err := x.tx.AbandonWebhookDeliveries(x.ctx, p.EndpointID, "the endpoint was deleted", x.now.UnixNano()); err != nil {
		return nil, err
	}
	x.org.Webhooks = slices.Delete(x.org.Webhooks, i, i+1)
	return &api.DeleteWebhookEndpointResult{EndpointID: p.EndpointID}, nil
}

func validateReplayWebhookDeliveries(p *api.ReplayWebhookDeliveriesIntent) error {
	if err := checkID("parameters.endpointId", p.EndpointID); err != nil {
		return err
	}
	if len(p.DeliveryIDs) > api.MaxReplayDeliveries {
		return apierr.Invalid("parameters.deliveryIds holds %d ids; at most %d at once", len(p.DeliveryIDs), api.MaxReplayDeliveries)
	}
	seen := make(map[string]bool, len(p.DeliveryIDs))
	for i, id := range p.DeliveryIDs {
		path := fmt.Sprintf("parameters.deliveryIds[%d]", i)
		if err := checkID(path, id); err != nil {
			return err
		}
		if seen[id] {
			return apierr.Invalid("%s: %s is named twice", path, id)
		}
		seen[id] = true
	}
	return nil
}

// execReplayWebhookDeliveries queues dead deliveries of an active endpoint again, under their event ids (a receiver
// deduplicates by them), to the endpoint's URL as it is now.
func execReplayWebhookDeliveries(x *execution, p *api.ReplayWebhookDeliveriesIntent) (*api.ReplayWebhookDeliveriesResult, error) {
	e := x.org.webhook(p.EndpointID)
	if e == nil {
		return nil, apierr.NotFoundf("no webhook endpoint %s in organization %s", p.EndpointID, x.org.ID)
	}
	if !e.Active {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "webhook endpoint %s is not active: activate it before replaying its deliveries", e.ID)
	}
	ids, err := x.tx.ReplayWebhookDeliveries(x.ctx, e.ID, e.URL, p.DeliveryIDs, x.now.UnixNano(), api.MaxReplayDeliveries)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("parameters.deliveryIds: %v", strings.TrimPrefix(err.Error(), store.ErrNotFound.Error()+": "))
	}
	if err != nil {
		return nil, err
	}
	x.webhooks = x.webhooks || len(ids) > 0
	return &api.ReplayWebhookDeliveriesResult{EndpointID: e.ID, DeliveryIDs: append([]string{}, ids...)}, nil
}

func queryListWebhookEndpoints(r *reader, _ *api.OrganizationRequest) (*api.ListWebhookEndpointsResponse, error) {
	out := &api.ListWebhookEndpointsResponse{WebhookEndpoints: []api.WebhookEndpointData{}}
	for _, e := range r.org.Webhooks {
		out.WebhookEndpoints = append(out.WebhookEndpoints, e.wire(r.org.ID))
	}
	return out, nil
}

func (o *Org) webhook(id string) *WebhookEndpoint {
	for _, e := range o.Webhooks {
		if e.ID == id {
			return e
		}
	}
	return nil
}

func (e *WebhookEndpoint) wire(orgID string) api.WebhookEndpointData {
	subs := make([]api.WebhookSubscriptionParams, len(e.Subscriptions))
	for i, s := range e.Subscriptions {
		active := s.Active
		subs[i] = api.WebhookSubscriptionParams{EventType: s.EventType, FiltersJSON: s.FiltersJSON, IsActive: &active}
	}
	return api.WebhookEndpointData{EndpointID: e.ID, OrganizationID: orgID, URL: e.URL, Name: e.Name, IsActive: e.Active, Subscriptions: subs}
}

// wants reports whether the endpoint receives the activity's update.
func (e *WebhookEndpoint) wants(rec *record) bool {
	if !e.Active {
		return false
	}
	for _, s := range e.Subscriptions {
		if s.Active && s.EventType == api.WebhookActivityUpdates && s.Filters.matches(rec) {
			return true
		}
	}
	return false
}

// listeners are the endpoints an organization's activity updates go to: its own and its parent's. The parent's
// document is read (through the cache, checked against the stored version) only when the organization has one.
func (c *Coordinator) listeners(ctx context.Context, org *Org) ([]*WebhookEndpoint, error) {
	out := org.Webhooks
	if org.ParentID == "" {
		return out, nil
	}
	parent, err := c.loadOrg(ctx, org.ParentID)
	if err != nil {
		if errors.Is(err, errOrgNotFound) {
			return out, nil
		}
		return nil, err
	}
	return append(slices.Clip(out), parent.Webhooks...), nil
}

// enqueueActivityUpdate writes the activity's update into the outbox for every endpoint that wants it, in the
// transaction that records the update, and says whether it wrote any.
func (c *Coordinator) enqueueActivityUpdate(ctx context.Context, tx *store.Tx, org *Org, rec *record, now time.Time) (bool, error) {
	ds, err := c.activityDeliveries(ctx, org, rec, now, false)
	if err != nil || len(ds) == 0 {
		return false, err
	}
	return true, tx.EnqueueWebhookDeliveries(ctx, ds)
}

// newActivityDeliveries are the outbox rows of a new activity's first update (activityDeliveries), leased to this
// process's worker when one runs: nothing of the activity's can wait before them, so the worker is handed them after
// the commit (webhooksCommitted) instead of claiming them. If this process dies first, they are claimed when the
// lease ends.
func (c *Coordinator) newActivityDeliveries(ctx context.Context, org *Org, rec *record) ([]store.WebhookDelivery, error) {
	offered := c.webhookWorker.Load() != nil
	ds, err := c.activityDeliveries(ctx, org, rec, rec.UpdatedAt, offered)
	if err != nil || len(ds) == 0 || !offered {
		return ds, err
	}
	until := c.now().Add(cmp.Or(c.cfg.Webhooks.OfferLease, webhook.DefaultOfferLease)).UnixNano()
	for i := range ds {
		ds[i].LeaseUntil = until
	}
	return ds, nil
}

// enqueueNewActivity writes a new activity's first update into the outbox (newActivityDeliveries), in the
// transaction that records it, and returns the rows to hand to the worker once it commits.
func (c *Coordinator) enqueueNewActivity(ctx context.Context, tx *store.Tx, org *Org, rec *record) ([]store.WebhookDelivery, error) {
	ds, err := c.newActivityDeliveries(ctx, org, rec)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	return ds, tx.EnqueueWebhookDeliveries(ctx, ds)
}

// webhooksCommitted tells this process's worker, once a transaction has committed, of the deliveries it wrote: those
// leased to it are offered, and a claim is asked for the others (notify: the transaction wrote deliveries not listed).
func (c *Coordinator) webhooksCommitted(ds []store.WebhookDelivery, notify bool) {
	w := c.webhookWorker.Load()
	if w == nil {
		return
	}
	offered := make([]webhook.Delivery, 0, len(ds))
	for _, d := range ds {
		if d.LeaseUntil != 0 {
			offered = append(offered, d.Delivery())
		}
	}
	if len(offered) < len(ds) || notify {
		w.Notify()
	}
	if len(offered) > 0 {
		w.Offer(offered) // refused by a worker that has stopped: claimed when the lease ends
	}
}

// activityDeliveries are the outbox rows that report the activity's update to the endpoints that want it. The event
// id is the activity and its status, so an update written twice is the same event; the subject is the activity, so
// its updates arrive in order.
func (c *Coordinator) activityDeliveries(ctx context.Context, org *Org, rec *record, now time.Time, offered bool) ([]store.WebhookDelivery, error) {
	endpoints, err := c.listeners(ctx, org)
	if err != nil || len(endpoints) == 0 {
		return nil, err
	}
	// An update to a final status is written by reference: the record never changes again, so the outbox keeps no
	// copy of it and a claim renders it again (renderActivityEvent). Its body is rendered now only to be offered.
	byReference := finalStatus(rec.Status)
	var body []byte
	var ds []store.WebhookDelivery
	for _, e := range endpoints {
		if !e.wants(rec) {
			continue
		}
		if body == nil && (offered || !byReference) {
			if body, err = activityEventBody(rec); err != nil {
				return nil, err
			}
		}
		ds = append(ds, store.WebhookDelivery{ID: store.NewDeliveryID(), EventID: activityEventID(rec), EndpointID: e.ID, OrgID: rec.OrganizationID,
			Tenant: org.billingID(), URL: e.URL, EventType: api.WebhookActivityUpdates, Subject: rec.ID, Sequence: activityStatusOrder(rec.Status), Body: body,
			ByReference: byReference, CreatedAt: now.UnixNano()})
	}
	return ds, nil
}

// billingID is the organization whose endpoints, the organization's own and its parent's, are one tenant's for the
// delivery worker's caps (webhook.Delivery.Tenant): the billing organization.
func (o *Org) billingID() string { return cmp.Or(o.ParentID, o.ID) }

// activityEventID is the event id of an activity's update to its current status, the same on every attempt.
func activityEventID(rec *record) string { return rec.ID + ":" + rec.Status }

// activityEventBody is the body of an activity's update: the activity as the API shows it, to no one in particular.
func activityEventBody(rec *record) ([]byte, error) {
	act := rec.render("")
	return marshalActivity(&act)
}

// finalStatus reports whether an activity in the status can change no more.
func finalStatus(status string) bool {
	return status == api.StatusCompleted || status == api.StatusFailed || status == api.StatusRejected
}

// renderActivityEvent renders again the body of an activity update written by reference: the stored activity, which
// has not left the final status the event reports. No other event is written by reference.
func (c *Coordinator) renderActivityEvent(ctx context.Context, d store.WebhookDelivery) ([]byte, error) {
	if d.EventType != api.WebhookActivityUpdates {
		return nil, store.Undeliverable("%s events carry their body", d.EventType)
	}
	row, err := c.store.ActivityByID(ctx, d.OrgID, d.Subject)
	if errors.Is(err, store.ErrNotFound) {
		return nil, store.Undeliverable("activity %s is gone", d.Subject)
	}
	if err != nil {
		return nil, err
	}
	rec, err := c.decodeRecord(row)
	if err != nil {
		return nil, store.Undeliverable("activity %s: %v", d.Subject, err)
	}
	if activityEventID(rec) != d.EventID {
		return nil, store.Undeliverable("activity %s is %s, not what event %s reports", rec.ID, rec.Status, d.EventID)
	}
	return activityEventBody(rec)
}

// activityStatusOrder numbers an activity's statuses in the order it can pass through them.
func activityStatusOrder(status string) int64 {
	if status == api.StatusConsensusNeeded {
		return 1
	}
	return 2
}

// webhookGuard is where deliveries may go.
func (c *Coordinator) webhookGuard() webhook.Guard {
	return webhook.Guard{AllowPrivate: c.cfg.Webhooks.AllowPrivateNetworks}
}

// WebhookConfig configures webhook deliveries.
type WebhookConfig struct {
	// AllowPrivateNetworks lets endpoints be http URLs and private, loopback or link-local addresses: for local
	// development and tests only.
	AllowPrivateNetworks bool
	// Backoff is the retry schedule (webhook.Backoff's defaults: 10 s doubling to 1 h, 10 attempts).
	Backoff webhook.Backoff
	// PollInterval is how often a worker looks for deliveries written by other processes (default 5 s).
	PollInterval time.Duration
	// Gather is how long a woken worker waits for more deliveries before it claims (default 20 ms): events written
	// close together then cost the store one claim and one commit of outcomes for many (webhook.Worker.Gather).
	Gather time.Duration
	// Timeout bounds one attempt, from dialling to the last byte read (default webhook.DefaultTimeout, 10 s).
	Timeout time.Duration
	// OfferLease is how long a new activity's deliveries stay leased to the worker of the process that wrote them,
	// which is handed them without a claim (default webhook.DefaultOfferLease, 2 minutes): if that process dies,
	// another worker (or the same after a restart) claims them once it ends.
	OfferLease time.Duration
}

// defaultWebhookGather trades 20 ms of a delivery's latency for batches under load.
const defaultWebhookGather = 20 * time.Millisecond

// webhookConcurrency is how many deliveries a worker posts at once, and so the most one claim takes: deliveries wait
// on receivers, not on the CPU, and a bigger claim costs the store fewer writes per delivery.
const webhookConcurrency = 64

// webhookSigner derives the delivery signing key from the token key (HKDF with its own label), so that it is sealed
// at rest like it and needs no key of its own; its id names the public key, so a rotation of the token key is a new
// key id.
func (c *Coordinator) webhookSigner(ctx context.Context) (*webhook.Signer, error) {
	k, err := c.ownKey(ctx, tokenKeyName)
	if err != nil {
		return nil, err
	}
	scalar, err := k.Bytes()
	if err != nil {
		return nil, err
	}
	defer keys.Zero(scalar)
	seed, err := hkdf.Key(sha256.New, scalar, nil, "sigil/webhook/ed25519/v1", ed25519.SeedSize)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(seed)
	priv := ed25519.NewKeyFromSeed(seed)
	sum := sha256.Sum256(priv.Public().(ed25519.PublicKey))
	return webhook.NewSigner("sigil-webhook-"+hex.EncodeToString(sum[:8]), priv)
}

// WebhookJWKSHandler serves GET api.WebhookJWKSPath: the keys receivers verify deliveries with.
func (c *Coordinator) WebhookJWKSHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			edge.Fail(w, r, edge.Errorf(http.StatusMethodNotAllowed, "method not allowed"))
			return
		}
		s, err := c.webhookSigner(r.Context())
		if err != nil {
			edge.Respond(w, r, nil, err)
			return
		}
		w.Header().Set("Cache-Control", webhook.JWKSCacheControl)
		edge.Respond(w, r, webhook.JWKS(s.VerificationKey()), nil)
	})
}

// RunWebhooks delivers the outbox until ctx ends. Every process may run it: the outbox hands each delivery to one
// worker at a time.
func (c *Coordinator) RunWebhooks(ctx context.Context) error {
	signer, err := c.webhookSigner(ctx)
	if err != nil {
		return err
	}
	queue := c.store.WebhookQueue(store.WebhookSourceCoordinator).RenderBodies(c.renderActivityEvent)
	c.webhookQueue.Store(queue)
	defer func() { _ = queue.Flush(context.WithoutCancel(ctx)) }() // the outcomes of the last attempts
	w := &webhook.Worker{Queue: queue, Signer: signer, Guard: c.webhookGuard(), Backoff: c.cfg.Webhooks.Backoff,
		PollInterval: c.cfg.Webhooks.PollInterval, Gather: cmp.Or(c.cfg.Webhooks.Gather, defaultWebhookGather),
		Concurrency: webhookConcurrency, Timeout: c.cfg.Webhooks.Timeout, OfferLease: c.cfg.Webhooks.OfferLease, Log: c.cfg.Logger, Now: c.cfg.Now}
	c.webhookWorker.Store(w)
	defer c.webhookWorker.Store(nil)
	return w.Run(ctx)
}

// notifyWebhooks wakes this process's worker once a transaction that wrote deliveries has committed; deliveries other
// processes write are found by its poll.
func (c *Coordinator) notifyWebhooks() {
	if w := c.webhookWorker.Load(); w != nil {
		w.Notify()
	}
}

func queryListWebhookDeliveries(r *reader, q *api.ListWebhookDeliveriesRequest) (*api.ListWebhookDeliveriesResponse, error) {
	if err := checkID("endpointId", q.EndpointID); err != nil {
		return nil, err
	}
	if r.org.webhook(q.EndpointID) == nil {
		return nil, apierr.NotFoundf("no webhook endpoint %s in organization %s", q.EndpointID, r.org.ID)
	}
	state, ok := map[string]string{"": "", api.WebhookDeliveryPending: store.DeliveryPending,
		api.WebhookDeliveryDelivered: store.DeliveryDelivered, api.WebhookDeliveryDead: store.DeliveryDead}[q.State]
	if !ok {
		return nil, apierr.Invalid("state: %q is not %s, %s or %s", q.State, api.WebhookDeliveryPending, api.WebhookDeliveryDelivered, api.WebhookDeliveryDead)
	}
	if q.Limit < 0 || q.Limit > maxDeliveryList {
		return nil, apierr.Invalid("limit: %d is not between 1 and %d", q.Limit, maxDeliveryList)
	}
	// This process's worker keeps the outcomes of its latest attempts for a moment (store.WebhookQueue): write them
	// first, so that the list shows what happened.
	if wq := r.c.webhookQueue.Load(); wq != nil {
		if err := wq.Flush(r.ctx); err != nil {
			return nil, err
		}
	}
	rows, err := r.c.store.ListWebhookDeliveries(r.ctx, q.EndpointID, state, cmp.Or(q.Limit, maxDeliveryList))
	if err != nil {
		return nil, err
	}
	out := &api.ListWebhookDeliveriesResponse{Deliveries: []api.WebhookDelivery{}}
	for _, d := range rows {
		out.Deliveries = append(out.Deliveries, deliveryWire(d))
	}
	return out, nil
}

func deliveryWire(d store.WebhookDelivery) api.WebhookDelivery {
	ms := func(ns int64) string { return strconv.FormatInt(ns/int64(time.Millisecond), 10) }
	w := api.WebhookDelivery{DeliveryID: d.ID, EventID: d.EventID, EventType: d.EventType, OrganizationID: d.OrgID, Subject: d.Subject,
		Attempts: d.Attempts, LastStatusCode: d.LastStatus, LastError: d.LastError, CreatedMs: ms(d.CreatedAt)}
	switch d.State {
	case store.DeliveryPending:
		w.State, w.NextAttemptMs = api.WebhookDeliveryPending, ms(d.NextAt)
	case store.DeliveryDelivered:
		w.State, w.CompletedMs = api.WebhookDeliveryDelivered, ms(d.DoneAt)
	default:
		w.State, w.CompletedMs = api.WebhookDeliveryDead, ms(d.DoneAt)
	}
	return w
}
