-- Key material sealed at rest (package seal): mnemonics, private keys, the coordinator's own keys. Each blob names the
-- master key version that wraps it; rotation rewraps the rows one by one.
CREATE TABLE sealed_secrets (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL DEFAULT '',
    blob       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX sealed_secrets_org ON sealed_secrets (org_id);
