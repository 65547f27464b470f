-- Smart contract interfaces (ABIs, IDLs) uploaded for policies: up to 400 KB each, so kept out of the organization
-- document that every activity loads; the document lists them by id and address.
CREATE TABLE contract_interfaces (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX contract_interfaces_org ON contract_interfaces (org_id);
