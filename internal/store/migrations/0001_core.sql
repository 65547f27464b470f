-- Organizations are stored as one JSON document each, versioned; everything the coordinator must find without
-- knowing the organization (credentials, sub-organization filters) is in org_index, kept in step with the document.
CREATE TABLE organizations (
    id         TEXT PRIMARY KEY,
    parent_id  TEXT NOT NULL DEFAULT '',
    version    BIGINT NOT NULL,
    data       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX organizations_parent ON organizations (parent_id, created_at);

CREATE TABLE org_index (
    kind      TEXT NOT NULL,
    value     TEXT NOT NULL,
    org_id    TEXT NOT NULL,
    parent_id TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (kind, value, org_id)
);
CREATE INDEX org_index_org ON org_index (org_id);

-- One row per activity. (org_id, fingerprint) is unique: an identical body is one activity, in every process.
CREATE TABLE activities (
    seq         $SERIAL_PK,
    id          TEXT NOT NULL UNIQUE,
    org_id      TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    type        TEXT NOT NULL,
    status      TEXT NOT NULL,
    record      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    UNIQUE (org_id, fingerprint)
);
CREATE INDEX activities_org ON activities (org_id, seq);

-- Passkey signature counters change on every passkey request, so they live beside the document.
CREATE TABLE webauthn_counters (
    org_id        TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    sign_count    BIGINT NOT NULL,
    PRIMARY KEY (org_id, credential_id)
);
