-- The webhook outbox: one row per event and endpoint, written in the transaction of the change the event reports and
-- delivered after it commits. seq orders the rows (one endpoint's deliveries of one subject go in seq order); times
-- are unix nanoseconds. state is pending (lease_until says whether a worker holds it), delivered or dead.
CREATE TABLE webhook_deliveries (
    seq         $SERIAL_PK,
    id          TEXT NOT NULL UNIQUE,
    event_id    TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    org_id      TEXT NOT NULL,
    url         TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    subject     TEXT NOT NULL,
    sequence    BIGINT NOT NULL,
    body        TEXT NOT NULL,
    state       TEXT NOT NULL,
    attempts    INTEGER NOT NULL,
    next_at     BIGINT NOT NULL,
    lease_until BIGINT NOT NULL,
    last_status INTEGER NOT NULL,
    last_error  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    done_at     BIGINT NOT NULL
);
-- Claims walk the pending rows in seq order, skipping those not due or leased.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, seq);
CREATE INDEX webhook_deliveries_subject ON webhook_deliveries (endpoint_id, subject, state, seq);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
