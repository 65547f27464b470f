-- On PostgreSQL the secrets are now keyed by (org_id, id). One SQLite file is never distributed, and SQLite changes a
-- primary key only by copying its table: its secrets keep their key and their (org_id, id) index (0110 says why).
SELECT 1;
