-- Activities are indexed in the order they arrive. Identical bodies are found by (organization, the body's
-- timestampMs, fingerprint): the fingerprint alone is random, and a unique index on it took a random page of a growing
-- index into every commit. Votes find the activity they approve by fingerprint among those waiting for consensus only.
-- The row id is a plain INTEGER PRIMARY KEY: AUTOINCREMENT wrote sqlite_sequence in every commit, and ids of deleted
-- rows are never needed again. SQLite drops a table's constraints only by copying it.
CREATE TABLE activities_new (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    org_id       TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    timestamp_ms BIGINT NOT NULL,
    type         TEXT NOT NULL,
    status       TEXT NOT NULL,
    record       TEXT NOT NULL,
    evaluations  TEXT NOT NULL DEFAULT '[]',
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
INSERT INTO activities_new (seq, id, org_id, fingerprint, timestamp_ms, type, status, record, evaluations, created_at, updated_at)
    SELECT seq, id, org_id, fingerprint, COALESCE(CAST(json_extract(record, '$.timestampMs') AS INTEGER), 0), type, status,
        record, evaluations, created_at, updated_at
    FROM activities ORDER BY seq;
DROP TABLE activities;
ALTER TABLE activities_new RENAME TO activities;
CREATE UNIQUE INDEX activities_body ON activities (org_id, timestamp_ms, fingerprint);
CREATE INDEX activities_org ON activities (org_id, seq);
CREATE INDEX activities_awaiting_votes ON activities (org_id, fingerprint) WHERE status = 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
