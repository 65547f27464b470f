package store

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// OTPCode is one issued one-time code. Only a keyed hash of the code is stored.
type OTPCode struct {
	ID             string
	OrgID          string
	Type           string // OTP_TYPE_EMAIL or OTP_TYPE_SMS
	Contact        string // canonical form
	UserIdentifier string // "" when the request gave none
	CodeHash       []byte
	Attempts       int
	Used           bool
	// Encrypted: issued by INIT_OTP_V3, so only an encrypted bundle (VERIFY_OTP_V2) may verify it. Its target key is
	// the sealed secret OTPTargetSecretID(ID).
	Encrypted bool
	CreatedAt int64 // unix nanoseconds
	ExpiresAt int64
}

// OTPTargetSecretID is the sealed_secrets id of the one-time target key of an INIT_OTP_V3 code.
func OTPTargetSecretID(otpID string) string { return "otp/" + otpID }

const otpColumns = "id, org_id, otp_type, contact, user_identifier, code_hash, attempts, used, encrypted, created_at, expires_at"

func scanOTPCode(row interface{ Scan(...any) error }) (OTPCode, error) {
	var c OTPCode
	var hash string
	var used, encrypted int
	err := row.Scan(&c.ID, &c.OrgID, &c.Type, &c.Contact, &c.UserIdentifier, &hash, &c.Attempts, &used, &encrypted, &c.CreatedAt, &c.ExpiresAt)
	if err != nil {
		return OTPCode{}, notFound(err)
	}
	c.Used, c.Encrypted = used != 0, encrypted != 0
	if c.CodeHash, err = hex.DecodeString(hash); err != nil {
		return OTPCode{}, fmt.Errorf("store: otp code %s: corrupt hash", c.ID)
	}
	return c, nil
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// InsertOTPCode stores a new code.
func (t *Tx) InsertOTPCode(ctx context.Context, c OTPCode) error {
	_, err := t.exec(ctx, "INSERT INTO otp_codes ("+otpColumns+", contact_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		c.ID, c.OrgID, c.Type, c.Contact, c.UserIdentifier, hex.EncodeToString(c.CodeHash), c.Attempts, flag(c.Used),
		flag(c.Encrypted), c.CreatedAt, c.ExpiresAt, strings.ToLower(c.Contact))
	if err != nil {
		return fmt.Errorf("store: insert otp code: %w", err)
	}
	return nil
}

// OTPCode reads one code of an organization.
func (t *Tx) OTPCode(ctx context.Context, orgID, id string) (OTPCode, error) {
	return scanOTPCode(t.queryRow(ctx, "SELECT "+otpColumns+" FROM otp_codes WHERE org_id = ? AND id = ?", orgID, id))
}

// RelatedOTPCodes returns the organization's codes that may count against a new one: the unused codes of the same
// type for the contact (compared case-insensitively) that expire after now, and, when userIdentifier is not empty,
// the codes requested under that identifier since the given time; oldest first.
func (t *Tx) RelatedOTPCodes(ctx context.Context, orgID, typ, contact, userIdentifier string, now, since int64) ([]OTPCode, error) {
	rows, err := t.query(ctx, "SELECT "+otpColumns+" FROM otp_codes WHERE org_id = ? AND ("+
		"(otp_type = ? AND contact_key = ? AND used = 0 AND expires_at > ?) OR "+
		"(user_identifier <> '' AND user_identifier = ? AND created_at >= ?)) ORDER BY created_at, id",
		orgID, typ, strings.ToLower(contact), now, userIdentifier, since)
	if err != nil {
		return nil, fmt.Errorf("store: related otp codes: %w", err)
	}
	defer rows.Close()
	var out []OTPCode
	for rows.Next() {
		c, err := scanOTPCode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// UpdateOTPCode stores a checked code's attempts and used flag, if the row still has the attempts it was read with
// and is unused (compare-and-set). It reports whether it updated: false means a concurrent check got there first.
func (t *Tx) UpdateOTPCode(ctx context.Context, orgID, id string, readAttempts, attempts int, used bool) (bool, error) {
	res, err := t.exec(ctx, "UPDATE otp_codes SET attempts = ?, used = ? WHERE org_id = ? AND id = ? AND attempts = ? AND used = 0",
		attempts, flag(used), orgID, id, readAttempts)
	if err != nil {
		return false, fmt.Errorf("store: update otp code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PruneOTPCodes deletes the organization's codes that expired and were created before the given time, with their
// sealed target keys, and reports how many codes it deleted.
func (t *Tx) PruneOTPCodes(ctx context.Context, orgID string, before int64) (int64, error) {
	const stale = "org_id = ? AND expires_at < ? AND created_at < ?"
	if _, err := t.exec(ctx, "DELETE FROM sealed_secrets WHERE org_id = ? AND id IN (SELECT 'otp/' || id FROM otp_codes WHERE "+stale+" AND encrypted = 1)",
		orgID, orgID, before, before); err != nil {
		return 0, fmt.Errorf("store: prune otp target keys: %w", err)
	}
	res, err := t.exec(ctx, "DELETE FROM otp_codes WHERE "+stale, orgID, before, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune otp codes: %w", err)
	}
	return res.RowsAffected()
}

// UseToken records that a verification token was consumed, unless it already was: it reports whether this call
// recorded it. Rows of tokens that expired before usedAt are pruned first. On PostgreSQL a concurrent use of the same
// token waits for the other transaction and then finds the row.
func (t *Tx) UseToken(ctx context.Context, tokenID, orgID string, expiresAt, usedAt int64) (bool, error) {
	if _, err := t.exec(ctx, "DELETE FROM used_tokens WHERE expires_at < ?", usedAt); err != nil {
		return false, fmt.Errorf("store: prune used tokens: %w", err)
	}
	res, err := t.exec(ctx, "INSERT INTO used_tokens (token_id, org_id, expires_at, used_at) VALUES (?, ?, ?, ?) ON CONFLICT (token_id) DO NOTHING",
		tokenID, orgID, expiresAt, usedAt)
	if err != nil {
		return false, fmt.Errorf("store: use token: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PutSecretIfAbsent stores a sealed blob unless a row with its id exists, and reports whether it stored it. A
// process creating the same secret concurrently (PostgreSQL) makes this one wait and then report false.
func (t *Tx) PutSecretIfAbsent(ctx context.Context, s Secret) (bool, error) {
	res, err := t.exec(ctx, "INSERT INTO sealed_secrets (id, org_id, blob, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, id) DO NOTHING",
		s.ID, s.OrgID, base64.StdEncoding.EncodeToString(s.Blob), s.CreatedAt)
	if err != nil {
		return false, fmt.Errorf("store: put secret: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
