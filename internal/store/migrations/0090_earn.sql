-- Earn (internal/coordinator/earn.go): the fee wrappers each organization deployed, and its Earn requests —
-- deployments, deposits, withdrawals and claims — each naming the send that carries it (its status is the send's).
-- Both are keyed by organization first: an organization's Earn state is its own rows, never its document.
CREATE TABLE earn_wrappers (
  org_id TEXT NOT NULL,
  network TEXT NOT NULL,
  wrapper TEXT NOT NULL,
  vault TEXT NOT NULL,
  splitter TEXT NOT NULL,
  client_fee_bps INTEGER NOT NULL,
  client_fee_wallet TEXT NOT NULL,
  platform_fee_bps INTEGER NOT NULL,
  deposits_disabled INTEGER NOT NULL DEFAULT 0,
  deploy_request_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (org_id, network, wrapper)
);

CREATE TABLE earn_requests (
  org_id TEXT NOT NULL,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  network TEXT NOT NULL,
  wrapper TEXT NOT NULL,
  wallet TEXT NOT NULL,
  amount TEXT NOT NULL,
  send_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX earn_requests_position ON earn_requests (org_id, wallet, wrapper, created_at);
