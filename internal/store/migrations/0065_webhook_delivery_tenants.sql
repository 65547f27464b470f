-- The tenant whose endpoint a delivery goes to: the billing organization of the endpoint's organization (the yield
-- service: the project). A worker caps the attempts in flight per tenant, and a claim leaves alone the tenants at
-- their cap, so that one tenant's slow receivers cannot take every delivery slot. Rows written before are counted for
-- their organization.
ALTER TABLE webhook_deliveries ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
UPDATE webhook_deliveries SET tenant = org_id WHERE state = 'pending';
