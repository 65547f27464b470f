-- Webhooks of the yield service. A project registers endpoints (URL, the event types it wants, a secret the
-- deliveries are signed with); the secret is sealed with the master key (seal, associated data naming the endpoint)
-- and stored as base64, never in plain form. events is a comma-separated list of event types.
CREATE TABLE yield_webhook_endpoints (
    id         TEXT PRIMARY KEY,
    project    TEXT NOT NULL,
    url        TEXT NOT NULL,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX yield_webhook_endpoints_project ON yield_webhook_endpoints (project, created_at);

-- The number of the latest event of each subject (a transaction or an action), so that its events carry 1, 2, 3 …
-- in the order of its changes; written in the transaction of the change.
CREATE TABLE yield_webhook_sequences (
    subject  TEXT PRIMARY KEY,
    sequence BIGINT NOT NULL
);

-- The outbox carries the yield service's deliveries too: scheme says how one is signed (turnkey: Ed25519 with the
-- coordinator's key; hmac: with the endpoint's secret, sealed as in yield_webhook_endpoints), source which service's
-- worker delivers it.
ALTER TABLE webhook_deliveries ADD COLUMN scheme TEXT NOT NULL DEFAULT 'turnkey';
ALTER TABLE webhook_deliveries ADD COLUMN secret TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN source TEXT NOT NULL DEFAULT 'coordinator';
-- Each worker claims its source's due rows in seq order.
CREATE INDEX webhook_deliveries_source_due ON webhook_deliveries (source, state, seq);
