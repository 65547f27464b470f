-- The yield service (package yield). Numbered 0010 so that it never collides with the coordinator's migrations.

-- API keys of the yield service. The key itself is never stored: key_hash is its SHA-256 (the key is 256 random
-- bits, so a plain hash is enough). A key belongs to a project and selects that project's fee set (10 or 20).
CREATE TABLE yield_api_keys (
    key_hash   TEXT PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    project    TEXT NOT NULL,
    fee_set    INTEGER NOT NULL,
    created_at BIGINT NOT NULL
);

-- Actions (enter, exit, manage) built for a project. body is the yield service's JSON of the fields that never change.
CREATE TABLE yield_actions (
    id           TEXT PRIMARY KEY,
    project      TEXT NOT NULL,
    address      TEXT NOT NULL,
    yield_id     TEXT NOT NULL,
    intent       TEXT NOT NULL,
    type         TEXT NOT NULL,
    status       TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    completed_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX yield_actions_address ON yield_actions (project, address, created_at);

-- The transactions of an action, in signing order. status moves CREATED -> BROADCASTED -> CONFIRMED | FAILED (or
-- SKIPPED when an earlier step failed); the receipt watcher polls the ones that are BROADCASTED.
CREATE TABLE yield_transactions (
    id             TEXT PRIMARY KEY,
    action_id      TEXT NOT NULL REFERENCES yield_actions (id),
    step_index     INTEGER NOT NULL,
    status         TEXT NOT NULL,
    hash           TEXT NOT NULL DEFAULT '',
    error          TEXT NOT NULL DEFAULT '',
    body           TEXT NOT NULL,
    broadcasted_at BIGINT NOT NULL DEFAULT 0,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX yield_transactions_action ON yield_transactions (action_id, step_index);
CREATE INDEX yield_transactions_status ON yield_transactions (status);

-- Price-per-share samples: `shares` of the yield's share (or index) were worth `assets` of its token at that block.
-- Rates are computed from them over a window of block time.
CREATE TABLE yield_price_samples (
    yield_id     TEXT NOT NULL,
    block_number BIGINT NOT NULL,
    block_time   BIGINT NOT NULL,
    shares       TEXT NOT NULL,
    assets       TEXT NOT NULL,
    PRIMARY KEY (yield_id, block_number)
);
CREATE INDEX yield_price_samples_time ON yield_price_samples (yield_id, block_time);
