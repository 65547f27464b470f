// Package webhook is the delivery half of Sigil's webhooks: it signs a
// delivery, checks that its destination is safe to call, posts it and
// schedules retries. It does not decide what an event is, nor store one.
//
// What it does:
//
//   - Turnkey-style deliveries (Signer, JWKS, Verify): Ed25519 signatures over
//     "v1.ed25519.<signing_key_id>.<timestamp_ms>.<event_id>.<raw_body>" with
//     Turnkey's documented X-Turnkey-* headers (hex signature, millisecond
//     timestamp, an event id stable across retries), and the JSON Web Key Set
//     receivers fetch to verify them. Verify is the receiver's side, for
//     `sigil webhooks listen` and tests; it makes the checks of
//     @turnkey/crypto's verifyTurnkeyWebhookSignature, in the same order.
//   - HMAC deliveries for the yield service (SignHMAC, VerifyHMAC,
//     ValidateSecret): HMAC-SHA256 under a per-endpoint secret of 24 to 255
//     characters (Yield.xyz's rule for its endpoints), in the header
//     X-Sigil-Signature: t=<unix seconds>,v1=<hex> over "<t>.<raw body>",
//     with X-Sigil-Event-Id and X-Sigil-Event-Type.
//   - Safe by default (Guard): https only, no user info, and no destination
//     that resolves to a loopback, private, link-local (cloud metadata
//     included), CGNAT, multicast, unspecified or otherwise non-public
//     address, checked when a URL is registered, before every attempt and
//     again on the address actually dialled (DNS rebinding). Redirects are
//     never followed, and no more than a few KiB of a response is read.
//   - A delivery Worker: claims due deliveries from a Queue, posts them
//     concurrently up to a limit while keeping the order of one subject's
//     deliveries, retries failures with exponential backoff and full jitter,
//     and moves a delivery that runs out of attempts, or gets an answer not
//     worth retrying (DefaultRetry: a 3xx or 4xx for Turnkey-style
//     deliveries, as Turnkey documents), to the dead-letter state. Its process
//     can also hand it deliveries it has just written and leased to it (Offer),
//     which it posts without a claim.
//     webhooktest.Queue is an in-memory Queue for tests.
//   - Fair to tenants (fairness.go): the attempts in flight are capped per
//     endpoint and per tenant, claims leave those at their caps alone, and an
//     endpoint that keeps timing out has its circuit opened, so one tenant's
//     hanging receivers hold its own share of the slots and no one else's.
//
// What it does not do: it knows no SQL and no event payloads. The outbox
// tables (events, endpoints, deliveries, their leases and dead letters) and
// the coordinator's writing of an event in the same transaction as the change
// it reports live elsewhere; they reach this package through the Queue
// interface. It does not import the coordinator or store packages.
package webhook
