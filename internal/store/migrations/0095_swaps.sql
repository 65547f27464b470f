-- Swaps (internal/coordinator/swaps.go), in tables of their own keyed by organization first: each organization's
-- swap configuration (its client fee and who receives it), the quotes it asked for, the swaps executed from them and
-- its claims of the fees it earned. A quote's row holds everything its execution needs (quote, JSON) and, once
-- executed, the swap's id; a swap is unique per quote, so a quote executes once. A swap's outcome (JSON) is written
-- when it is final, and read from there after. Times are unix milliseconds.
CREATE TABLE swap_configs (
    org_id         TEXT PRIMARY KEY,
    fee_receiver   TEXT NOT NULL,
    fee_bps        INTEGER NOT NULL,
    stable_fee_bps INTEGER NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE TABLE swap_quotes (
    org_id      TEXT NOT NULL,
    id          TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    quote       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    swap_id     TEXT NOT NULL,
    PRIMARY KEY (org_id, id)
);
-- Expired quotes that were never executed are dropped, oldest first.
CREATE INDEX swap_quotes_expiry ON swap_quotes (org_id, expires_at);

CREATE TABLE swaps (
    org_id      TEXT NOT NULL,
    id          TEXT NOT NULL,
    quote_id    TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    send_id     TEXT NOT NULL,
    status      TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, quote_id)
);

CREATE TABLE swap_fee_claims (
    org_id      TEXT NOT NULL,
    id          TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    claims      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (org_id, id)
);
