package webhook_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/sigil/sigil/internal/webhook"
	"github.com/sigil/sigil/internal/webhook/webhooktest"
)

// A sender signs, a receiver verifies with the keys of the sender's JWKS.
func ExampleVerify() {
	signer, _ := webhook.NewSigner("whk_2026_05", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)))
	body := []byte(`{"type":"ACTIVITY_UPDATES"}`)
	at := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	h, _ := signer.Headers(webhook.Meta{EventID: "evt-1", EventType: "ACTIVITY_UPDATES", OrganizationID: "org-1"}, body, at)

	// The receiver fetched GET /public/v1/discovery/webhooks/jwks.
	keys := webhook.JWKS(signer.VerificationKey()).Keys
	fmt.Println(keys[0].Kid, keys[0].Kty, keys[0].Crv, keys[0].Alg)

	v, err := webhook.Verify(h, body, []webhook.VerificationKey{signer.VerificationKey()}, 5*time.Minute, at.Add(time.Second))
	fmt.Println(v.EventID, v.KeyID, err)
	_, err = webhook.Verify(h, []byte(`{"type":"other"}`), []webhook.VerificationKey{signer.VerificationKey()}, 5*time.Minute, at)
	fmt.Println(err)
	// Output:
	// whk_2026_05 OKP Ed25519 EdDSA
	// evt-1 whk_2026_05 <nil>
	// invalid_signature
}

// A worker on a queue; the outbox tables implement Queue in production.
func ExampleWorker() {
	signer, err := webhook.NewSigner("whk_2026_05", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)))
	if err != nil {
		log.Fatal(err)
	}
	q := webhooktest.New()
	w := &webhook.Worker{
		Queue:   q,
		Signer:  signer,
		Guard:   webhook.Guard{}, // https to public addresses only
		Timeout: 10 * time.Second,
		Backoff: webhook.Backoff{Base: 10 * time.Second, Cap: time.Hour, MaxAttempts: 10},
	}
	// Registering an endpoint: check its URL and secret first.
	if err := w.Guard.CheckURL(context.Background(), "http://169.254.169.254/"); err != nil {
		fmt.Println(http.StatusBadRequest, err)
	}
	fmt.Println(webhook.ValidateSecret("too short"))

	// Whoever writes an event queues its deliveries, then wakes the worker.
	q.Add(webhook.Delivery{ID: "dlv-1", EventID: "evt-1", URL: "https://hooks.example.com/turnkey",
		EventType: "ACTIVITY_UPDATES", OrgID: "org-1", Subject: "activity-1", Sequence: 1, Body: []byte(`{}`)}, time.Now())
	w.Notify()
	// go w.Run(ctx)

	// Output:
	// 400 webhook: refused destination: "http://169.254.169.254/": the scheme must be https
	// webhook: the secret must be 24 to 255 characters; it is 9
}
