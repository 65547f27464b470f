-- One-time codes of INIT_OTP / VERIFY_OTP. The code itself is never stored: code_hash is a keyed hash (HMAC with a
-- sealed server secret). A code issued by INIT_OTP_V3 (encrypted = 1) has a one-time target key in sealed_secrets
-- under the id 'otp/' || id. Rows are pruned once expired and past the SMS rate-limit window.
CREATE TABLE otp_codes (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL,
    otp_type        TEXT NOT NULL,
    contact         TEXT NOT NULL,
    contact_key     TEXT NOT NULL,
    user_identifier TEXT NOT NULL DEFAULT '',
    code_hash       TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    used            INTEGER NOT NULL DEFAULT 0,
    encrypted       INTEGER NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);
CREATE INDEX otp_codes_contact ON otp_codes (org_id, contact_key);
CREATE INDEX otp_codes_identifier ON otp_codes (org_id, user_identifier, created_at);
CREATE INDEX otp_codes_expiry ON otp_codes (org_id, expires_at);

-- Verification tokens already consumed by a login: a token is usable once, in whichever organization it is used.
-- A row is useless once its token has expired, and is pruned then.
CREATE TABLE used_tokens (
    token_id   TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT NOT NULL
);
CREATE INDEX used_tokens_expiry ON used_tokens (expires_at);
