-- The Secrets API's secrets are keyed by their organization first, as every table of an organization's rows is on
-- PostgreSQL (0110, docs/SCALING.md): the primary key becomes (org_id, id), which also serves the organization's
-- list in id order, and replaces the index that did.
ALTER TABLE org_secrets DROP CONSTRAINT org_secrets_pkey;
ALTER TABLE org_secrets ADD PRIMARY KEY (org_id, id);
DROP INDEX org_secrets_org;
