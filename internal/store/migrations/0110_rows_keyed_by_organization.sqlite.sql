-- On PostgreSQL every table of an organization's rows is now keyed by the organization first, for a database
-- distributed by organization (docs/SCALING.md). One SQLite file is never distributed, and SQLite changes a primary key
-- only by copying its table with every column (which a later migration adding one would then have to know): its
-- tables keep their keys, with the organization-first indexes they have. Sealed secrets need one unique index by
-- (organization, id), the conflict target that stores the coordinator's own keys once on both backends; it replaces
-- the index of the organization alone.
CREATE UNIQUE INDEX sealed_secrets_org_id ON sealed_secrets (org_id, id);
DROP INDEX sealed_secrets_org;
