-- One row per billing organization whose sponsored sends are signed: the worker that signs one takes the row's lock
-- (an upsert) in the transaction that reserves the send's most possible cost, after checking the organization's
-- gas-spend limits with the reservations of the sends signed before it, so that signings of one billing
-- organization's sends, from any process, check and reserve one after another. signed counts them.
CREATE TABLE sponsor_spend_locks (
    org_id TEXT PRIMARY KEY,
    signed BIGINT NOT NULL
);
