-- What the mailer sent, per organization and recipient (list_email_events): metadata only, never a message's body or
-- the code in it.
CREATE TABLE email_events (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    message_id   TEXT NOT NULL,
    event_type   TEXT NOT NULL,
    from_address TEXT NOT NULL,
    to_address   TEXT NOT NULL,
    at_ms        BIGINT NOT NULL
);
CREATE INDEX email_events_recipient ON email_events (org_id, to_address, at_ms);
