-- Transactions the coordinator sends (ETH_SEND_TRANSACTION, ETH_SEND_RAW_TRANSACTION): one row per send, written in
-- the transaction of the activity that allowed it (activity_id is unique: an activity sends at most once) and moved
-- through its states by the send workers. request is the calls and fee fields as the activity gave them; nonce is -1
-- until one is assigned; raw_tx is the signed transaction (hex) once signed, rebroadcast as it is until included.
-- lease_until is when a worker's claim on the row ends; times are unix nanoseconds.
CREATE TABLE send_transactions (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    activity_id  TEXT NOT NULL UNIQUE,
    network      TEXT NOT NULL,
    from_address TEXT NOT NULL,
    key_secret   TEXT NOT NULL,
    request      TEXT NOT NULL,
    status       TEXT NOT NULL,
    nonce        BIGINT NOT NULL,
    tx_hash      TEXT NOT NULL,
    raw_tx       TEXT NOT NULL,
    error        TEXT NOT NULL,
    attempts     INTEGER NOT NULL,
    next_at      BIGINT NOT NULL,
    lease_until  BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
-- Workers walk the sends not yet final of their network that are due.
CREATE INDEX send_transactions_due ON send_transactions (network, status, next_at);
CREATE INDEX send_transactions_hash ON send_transactions (org_id, tx_hash);

-- The next nonce the coordinator gives each address on each network: raised to the chain's pending count when that
-- is ahead, and taken by one send at a time under the row's lock, so concurrent sends (from any process) get
-- consecutive nonces.
CREATE TABLE send_nonces (
    network    TEXT NOT NULL,
    address    TEXT NOT NULL,
    next_nonce BIGINT NOT NULL,
    PRIMARY KEY (network, address)
);
