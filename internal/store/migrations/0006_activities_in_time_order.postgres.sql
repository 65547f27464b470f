-- Activities are indexed in the order they arrive. Identical bodies are found by (organization, the body's
-- timestampMs, fingerprint): the fingerprint alone is random, and a unique index on it took a random page of a growing
-- index into every commit. Votes find the activity they approve by fingerprint among those waiting for consensus only.
ALTER TABLE activities ADD COLUMN timestamp_ms BIGINT;
UPDATE activities SET timestamp_ms = COALESCE(CAST(record::json->>'timestampMs' AS BIGINT), 0);
ALTER TABLE activities ALTER COLUMN timestamp_ms SET NOT NULL;
ALTER TABLE activities DROP CONSTRAINT activities_org_id_fingerprint_key;
CREATE UNIQUE INDEX activities_body ON activities (org_id, timestamp_ms, fingerprint);
CREATE INDEX activities_awaiting_votes ON activities (org_id, fingerprint) WHERE status = 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
