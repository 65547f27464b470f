package yield

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/webhook"
)

// The event types a project's webhook endpoints may receive.
const (
	EventTransactionStatusChanged = "transaction.status_changed" // a transaction's status changed; data is the transaction
	EventPositionStatusChanged    = "position.status_changed"    // an action's status changed; data is the action
)

// EventTypes lists the event types, the default of an endpoint that names none.
var EventTypes = []string{EventTransactionStatusChanged, EventPositionStatusChanged}

const (
	maxWebhookEndpoints = 20   // per project
	maxWebhookURLLen    = 2048 // bytes
	// webhookURLCheckTimeout bounds the resolution of an endpoint's host when it is registered.
	webhookURLCheckTimeout = 10 * time.Second
	// webhookConcurrency is how many deliveries the worker posts at once: they wait on receivers, not on the CPU.
	webhookConcurrency = 16
	// defaultWebhookGather trades 20 ms of a delivery's latency for one claim for several events under load.
	defaultWebhookGather = 20 * time.Millisecond
)

// WebhookEndpoint is a project's endpoint as the API and the CLI show it: never its secret.
type WebhookEndpoint struct {
	ID        string   `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	CreatedAt string   `json:"createdAt"`
}

// WebhookEndpointInput is what registers an endpoint: POST /v1/webhooks's body. No events means all of them.
type WebhookEndpointInput struct {
	URL    string   `json:"url"`
	Secret string   `json:"secret"`
	Events []string `json:"events,omitempty"`
}

// webhookEvent is the body of a delivery. ID is the subject and the sequence, the same on every attempt and for every
// endpoint; Sequence numbers the subject's events 1, 2, 3 … in the order of its changes.
type webhookEvent struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"createdAt"`
	Sequence  int64  `json:"sequence"`
	Subject   string `json:"subject"`
	Data      any    `json:"data"`
}

// secretAAD binds a sealed secret to its endpoint: a blob copied onto another endpoint's row does not open.
func secretAAD(endpointID string) []byte {
	return []byte("sigil/yield/webhook-secret/" + endpointID)
}

// CreateWebhookEndpoint registers an endpoint of a project that exists: it checks the input (a URL the guard allows,
// a secret of 24 to 255 characters, known event types), seals the secret under the keyring and stores it. Bad input
// is a 400 naming the field, and stores nothing.
func CreateWebhookEndpoint(ctx context.Context, st *store.Store, ring *seal.Keyring, guard webhook.Guard, project string,
	in WebhookEndpointInput, now time.Time) (WebhookEndpoint, error) {
	if ring == nil {
		return WebhookEndpoint{}, errors.New("yield: webhooks need a master key (Config.Keyring) to seal their secrets")
	}
	events, err := checkWebhookInput(in)
	if err != nil {
		return WebhookEndpoint{}, err
	}
	if err := checkWebhookURL(ctx, guard, in.URL); err != nil {
		return WebhookEndpoint{}, err
	}
	row := store.YieldWebhookEndpoint{ID: uuid.NewString(), Project: project, URL: in.URL, Events: events, CreatedAt: now.UnixMilli()}
	if row.Secret, err = ring.Seal([]byte(in.Secret), secretAAD(row.ID)); err != nil {
		return WebhookEndpoint{}, err
	}
	err = st.Write(ctx, func(tx *store.Tx) error {
		if _, err := tx.ClaimYieldProject(ctx, project, 0, 0); errors.Is(err, store.ErrNotFound) {
			return notFoundError("Project %s not found; sigil yield keys create makes it", truncate(project, 128))
		} else if err != nil {
			return err
		}
		existing, err := tx.YieldWebhookEndpoints(ctx, project)
		if err != nil {
			return err
		}
		if len(existing) >= maxWebhookEndpoints {
			return badRequest("a project holds at most %d webhook endpoints; delete one first", maxWebhookEndpoints)
		}
		return tx.PutYieldWebhookEndpoint(ctx, row)
	})
	if err != nil {
		return WebhookEndpoint{}, err
	}
	return endpointDTO(row), nil
}

// checkWebhookInput checks what needs no network, and returns the event types without repeats (all when none).
func checkWebhookInput(in WebhookEndpointInput) ([]string, error) {
	if strings.TrimSpace(in.URL) == "" {
		return nil, fieldError("url", "is required")
	}
	if len(in.URL) > maxWebhookURLLen {
		return nil, fieldError("url", "is longer than %d bytes", maxWebhookURLLen)
	}
	if err := webhook.ValidateSecret(in.Secret); err != nil {
		return nil, fieldError("secret", "%s", strings.TrimPrefix(err.Error(), "webhook: "))
	}
	if len(in.Events) == 0 {
		return slices.Clone(EventTypes), nil
	}
	var events []string
	for i, ev := range in.Events {
		if !slices.Contains(EventTypes, ev) {
			return nil, fieldError(fmt.Sprintf("events[%d]", i), "%q is not an event type; they are %s", truncate(ev, 80),
				strings.Join(EventTypes, ", "))
		}
		if !slices.Contains(events, ev) {
			events = append(events, ev)
		}
	}
	return events, nil
}

// checkWebhookURL refuses a destination deliveries must not go to (webhook.Guard: https, public addresses), resolving
// its host; the worker checks again before every attempt, against DNS rebinding.
func checkWebhookURL(ctx context.Context, guard webhook.Guard, url string) error {
	ctx, cancel := context.WithTimeout(ctx, webhookURLCheckTimeout)
	defer cancel()
	if err := guard.CheckURL(ctx, url); err != nil {
		return fieldError("url", "%s", strings.TrimPrefix(err.Error(), "webhook: "))
	}
	return nil
}

// ListWebhookEndpoints lists a project's endpoints, oldest first.
func ListWebhookEndpoints(ctx context.Context, st *store.Store, project string) ([]WebhookEndpoint, error) {
	rows, err := st.YieldWebhookEndpoints(ctx, project)
	if err != nil {
		return nil, err
	}
	out := make([]WebhookEndpoint, len(rows))
	for i, e := range rows {
		out[i] = endpointDTO(e)
	}
	return out, nil
}

// DeleteWebhookEndpoint removes one of a project's endpoints; its deliveries not made yet are abandoned (dead, with
// the reason). Another project's endpoint is not found, as one that does not exist.
func DeleteWebhookEndpoint(ctx context.Context, st *store.Store, project, id string, now time.Time) error {
	err := st.Write(ctx, func(tx *store.Tx) error {
		return tx.DeleteYieldWebhookEndpoint(ctx, project, id, "the endpoint was deleted", now.UnixNano())
	})
	if errors.Is(err, store.ErrNotFound) {
		return notFoundError("Webhook endpoint %s not found", truncate(id, 80))
	}
	return err
}

func endpointDTO(e store.YieldWebhookEndpoint) WebhookEndpoint {
	return WebhookEndpoint{ID: e.ID, URL: e.URL, Events: e.Events, CreatedAt: isoMillis(e.CreatedAt)}
}

// webhookGuard is where deliveries may go.
func (s *Service) webhookGuard() webhook.Guard {
	return webhook.Guard{AllowPrivate: s.cfg.WebhooksAllowPrivate}
}

func (s *Service) handleCreateWebhook(r *http.Request, k *keyInfo) (any, error) {
	var body WebhookEndpointInput
	if err := edge.Decode(r, &body); err != nil {
		return nil, err
	}
	out, err := CreateWebhookEndpoint(r.Context(), s.store, s.cfg.Keyring, s.webhookGuard(), k.project, body, s.now())
	return edge.WithStatus(http.StatusCreated, out), err
}

func (s *Service) handleListWebhooks(r *http.Request, k *keyInfo) (any, error) {
	return ListWebhookEndpoints(r.Context(), s.store, k.project)
}

func (s *Service) handleDeleteWebhook(r *http.Request, k *keyInfo) (any, error) {
	id := r.PathValue("id")
	if err := DeleteWebhookEndpoint(r.Context(), s.store, k.project, id, s.now()); err != nil {
		return nil, err
	}
	return map[string]string{"id": id}, nil
}

// emit writes an event of a subject into the outbox for each of the project's endpoints that wants its type, in the
// transaction of the change it reports, and says whether it wrote any. A subject's events are numbered only when some
// endpoint receives them.
func (s *Service) emit(ctx context.Context, tx *store.Tx, project, eventType, subject string, data any) (bool, error) {
	endpoints, err := tx.YieldWebhookEndpoints(ctx, project)
	if err != nil {
		return false, err
	}
	endpoints = slices.DeleteFunc(endpoints, func(e store.YieldWebhookEndpoint) bool { return !slices.Contains(e.Events, eventType) })
	if len(endpoints) == 0 {
		return false, nil
	}
	seq, err := tx.NextYieldWebhookSequence(ctx, subject)
	if err != nil {
		return false, err
	}
	now := s.now()
	ev := webhookEvent{ID: fmt.Sprintf("%s:%d", subject, seq), Type: eventType, CreatedAt: isoMillis(now.UnixMilli()),
		Sequence: seq, Subject: subject, Data: data}
	body, err := json.Marshal(ev)
	if err != nil {
		return false, err
	}
	ds := make([]store.WebhookDelivery, len(endpoints))
	for i, e := range endpoints {
		ds[i] = store.WebhookDelivery{ID: store.NewDeliveryID(), EventID: ev.ID, EndpointID: e.ID, OrgID: project, URL: e.URL,
			EventType: eventType, Subject: subject, Sequence: seq, Body: body, CreatedAt: now.UnixNano(),
			Scheme: webhook.SchemeHMAC, Secret: e.Secret, Source: store.WebhookSourceYield}
	}
	return true, tx.EnqueueWebhookDeliveries(ctx, ds)
}

// RunWebhooks delivers the yield service's share of the webhook outbox until ctx ends, signing each delivery with
// its endpoint's secret (HMAC). Every process may run it: the outbox hands each delivery to one worker at a time.
func (s *Service) RunWebhooks(ctx context.Context) error {
	ring := s.cfg.Keyring
	if ring == nil {
		return errors.New("yield: webhooks need a master key (Config.Keyring) to open their secrets")
	}
	queue := s.store.WebhookQueue(store.WebhookSourceYield).OpenSecrets(func(endpointID string, sealed []byte) ([]byte, error) {
		return ring.Open(sealed, secretAAD(endpointID))
	})
	defer func() { _ = queue.Flush(context.WithoutCancel(ctx)) }() // the outcomes of the last attempts
	w := &webhook.Worker{Queue: queue, Guard: s.webhookGuard(), Backoff: s.cfg.WebhookBackoff,
		PollInterval: s.cfg.WebhookPollInterval, Gather: defaultWebhookGather, Concurrency: webhookConcurrency,
		Log: s.log, Now: s.now, Jitter: s.webhookJitter}
	s.webhookWorker.Store(w)
	defer s.webhookWorker.Store(nil)
	return w.Run(ctx)
}

// notifyWebhooks wakes this process's worker once a transaction that wrote deliveries has committed; deliveries other
// processes write are found by its poll.
func (s *Service) notifyWebhooks() {
	if w := s.webhookWorker.Load(); w != nil {
		w.Notify()
	}
}
