-- Every table of an organization's rows is keyed by the organization first, so that a database distributed by
-- organization (docs/SCALING.md) can keep each organization's rows together: a distributed table's primary and unique
-- keys must hold its distribution column. Look-ups by an id alone (a sealed key opened by its id, an activity or a
-- delivery by its id) read a plain index of the id, which such a database keeps on every node. Each table's index of
-- the organization alone goes: the primary key begins with it.
ALTER TABLE sealed_secrets DROP CONSTRAINT sealed_secrets_pkey;
ALTER TABLE sealed_secrets ADD PRIMARY KEY (org_id, id);
CREATE INDEX sealed_secrets_id ON sealed_secrets (id);
DROP INDEX sealed_secrets_org;
ALTER TABLE otp_codes DROP CONSTRAINT otp_codes_pkey;
ALTER TABLE otp_codes ADD PRIMARY KEY (org_id, id);
-- seq stays the order of arrival (one sequence for the table); the key is an organization's rows in that order,
-- which activities_org was.
ALTER TABLE activities DROP CONSTRAINT activities_pkey;
ALTER TABLE activities ADD PRIMARY KEY (org_id, seq);
DROP INDEX activities_org;
ALTER TABLE activities DROP CONSTRAINT activities_id_key;
CREATE INDEX activities_id ON activities (id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
ALTER TABLE webhook_deliveries ADD PRIMARY KEY (org_id, seq);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_id_key;
CREATE INDEX webhook_deliveries_id ON webhook_deliveries (id);
ALTER TABLE contract_interfaces DROP CONSTRAINT contract_interfaces_pkey;
ALTER TABLE contract_interfaces ADD PRIMARY KEY (org_id, id);
CREATE INDEX contract_interfaces_id ON contract_interfaces (id);
DROP INDEX contract_interfaces_org;
ALTER TABLE email_events DROP CONSTRAINT email_events_pkey;
ALTER TABLE email_events ADD PRIMARY KEY (org_id, id);
CREATE INDEX email_events_id ON email_events (id);
-- An activity sends at most once: its id is unique within its organization, the only one it belongs to.
ALTER TABLE send_transactions DROP CONSTRAINT send_transactions_pkey;
ALTER TABLE send_transactions ADD PRIMARY KEY (org_id, id);
CREATE INDEX send_transactions_id ON send_transactions (id);
ALTER TABLE send_transactions DROP CONSTRAINT send_transactions_activity_id_key;
ALTER TABLE send_transactions ADD CONSTRAINT send_transactions_activity UNIQUE (org_id, activity_id);
