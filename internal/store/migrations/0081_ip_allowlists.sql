-- IP allowlists of parent organizations: one row for the organization's list (public_key '') and one per API key with
-- a list of its own. rules is a JSON list of {cidr, label, createdAt}. Read on every authenticated request, so a change
-- holds at once on every process over the database.
CREATE TABLE ip_allowlists (
    org_id              TEXT NOT NULL,
    public_key          TEXT NOT NULL,
    enabled             INTEGER NOT NULL,
    on_evaluation_error TEXT NOT NULL,
    rules               TEXT NOT NULL,
    updated_at          BIGINT NOT NULL,
    PRIMARY KEY (org_id, public_key)
);
