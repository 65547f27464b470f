-- Votes also find, by fingerprint, the activities waiting for a second factor of their submitter (MFA policies):
-- their own small index beside the one of the activities waiting for consensus.
CREATE INDEX activities_awaiting_authenticators ON activities (org_id, fingerprint) WHERE status = 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED';
