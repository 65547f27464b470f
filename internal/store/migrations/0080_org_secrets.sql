-- The Secrets API's secrets: one row per secret of an organization, its value sealed in sealed_secrets (sealed_id),
-- its name (unique in the organization when given) and its static properties (a JSON list of {key, value}), which
-- policies read. Ids are time-ordered, so the id orders a list by creation.
CREATE TABLE org_secrets (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    name       TEXT,
    properties TEXT NOT NULL,
    sealed_id  TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX org_secrets_org ON org_secrets (org_id, id);
CREATE UNIQUE INDEX org_secrets_name ON org_secrets (org_id, name) WHERE name IS NOT NULL;

-- The one-time keys INIT_IMPORT_SECRETS made for a user's next import: the private half sealed in sealed_secrets,
-- found by its public key, deleted when a secret is imported with it or the user asks for new ones.
CREATE TABLE secret_import_targets (
    org_id     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    public_key TEXT NOT NULL,
    sealed_id  TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (org_id, user_id, public_key)
);
