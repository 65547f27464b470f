package otp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Type is the OTP delivery channel, as the API spells it.
type Type string

// Delivery channels.
const (
	TypeEmail Type = "OTP_TYPE_EMAIL"
	TypeSMS   Type = "OTP_TYPE_SMS"
)

// Errors, wrapped with a message for the caller; test with errors.Is. The
// coordinator maps ErrLimit and ErrRateLimited to RESOURCE_EXHAUSTED, the
// verify errors to a failed verification, ErrInvalidRequest to
// INVALID_ARGUMENT.
var (
	ErrInvalidRequest = errors.New("invalid OTP request")
	// ErrLimit: the contact already has MaxLiveCodes live codes. The text is the reference's, which its SDKs recognize.
	//lint:ignore ST1005 the reference's SDKs match this exact message.
	ErrLimit = errors.New("Max number of OTPs have been initiated")
	// ErrRateLimited: too many SMS codes for one userIdentifier recently.
	ErrRateLimited = errors.New("too many OTP requests for this user")
	// ErrInvalidCode: the entry does not match; the attempt was counted.
	ErrInvalidCode = errors.New("invalid OTP code")
	// ErrAttemptsExhausted: the code took MaxAttempts wrong entries and is dead.
	ErrAttemptsExhausted = errors.New("OTP code has no attempts left")
	ErrExpired           = errors.New("OTP code expired")
	ErrUsed              = errors.New("OTP code already used")
)

// Limits are the tunable rules. DefaultLimits gives the reference's values.
type Limits struct {
	MaxAttempts  int           // wrong entries after which a code is dead
	MaxLiveCodes int           // live codes per contact at once
	SMSWindow    time.Duration // window of the per-userIdentifier SMS limit
	SMSPerWindow int           // SMS codes per userIdentifier per window
	DefaultTTL   time.Duration // validity when expirationSeconds is absent
	MaxTTL       time.Duration // largest expirationSeconds accepted
}

// DefaultLimits: 3 attempts, 3 live codes per contact, 3 SMS per 3 minutes
// per userIdentifier, validity 300 s by default and 600 s at most.
func DefaultLimits() Limits {
	return Limits{
		MaxAttempts: 3, MaxLiveCodes: 3, SMSWindow: 3 * time.Minute, SMSPerWindow: 3,
		DefaultTTL: 5 * time.Minute, MaxTTL: 10 * time.Minute,
	}
}

func (l Limits) validate() error {
	if l.MaxAttempts < 1 || l.MaxLiveCodes < 1 || l.SMSPerWindow < 1 || l.SMSWindow <= 0 ||
		l.DefaultTTL <= 0 || l.MaxTTL < l.DefaultTTL {
		return fmt.Errorf("otp: invalid limits %+v: counts must be >= 1, durations > 0, MaxTTL >= DefaultTTL", l)
	}
	return nil
}

// Record is one issued code, as the coordinator stores it. Only the keyed
// hash of the code is kept.
type Record struct {
	ID             string
	OrganizationID string
	Type           Type
	Contact        string // canonical form, see NormalizeContact
	UserIdentifier string // empty when the request gave none
	CodeHash       []byte
	Attempts       int // wrong entries so far
	CreatedAt      time.Time
	ExpiresAt      time.Time
	Used           bool
}

// Live reports whether the code can still be verified at now.
func (r Record) Live(now time.Time, l Limits) bool {
	return !r.Used && now.Before(r.ExpiresAt) && r.Attempts < l.MaxAttempts
}

// Request is what INIT_OTP asks for, already decoded.
type Request struct {
	ID             string // new record's id, chosen by the caller (a UUID)
	OrganizationID string
	Type           Type
	Contact        string
	Length         int           // 0: DefaultLength
	Numeric        bool          // digits only (alphanumeric: false)
	TTL            time.Duration // 0: Limits.DefaultTTL
	UserIdentifier string
}

// Manager applies Limits with a Hasher and a clock.
type Manager struct {
	limits Limits
	hasher *Hasher
	now    func() time.Time
}

// NewManager checks the limits and keys the hasher with secret; now
// defaults to time.Now.
func NewManager(secret []byte, limits Limits, now func() time.Time) (*Manager, error) {
	if err := limits.validate(); err != nil {
		return nil, err
	}
	h, err := NewHasher(secret)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Manager{limits: limits, hasher: h, now: now}, nil
}

// Limits returns the limits in force.
func (m *Manager) Limits() Limits { return m.limits }

// Issue validates req, applies the limits to related, and returns the new
// record to store and the code to send (never stored, never logged).
//
// related must hold the organization's records that could count against
// the request: those for the same contact that may still be live, and, when
// req.UserIdentifier is set, those with that identifier created within
// Limits.SMSWindow. Extra records are ignored, so a superset is fine.
func (m *Manager) Issue(req Request, related []Record) (Record, string, error) {
	now := m.now()
	rec, err := m.validate(req, now)
	if err != nil {
		return Record{}, "", err
	}
	if err := m.checkLimits(rec, related, now); err != nil {
		return Record{}, "", err
	}
	length := req.Length
	if length == 0 {
		length = DefaultLength
	}
	code, err := Generate(length, !req.Numeric)
	if err != nil {
		return Record{}, "", err
	}
	rec.CodeHash = m.hasher.Hash(rec.ID, code)
	return rec, code, nil
}

func (m *Manager) validate(req Request, now time.Time) (Record, error) {
	if req.ID == "" || req.OrganizationID == "" {
		return Record{}, fmt.Errorf("%w: id and organization are required", ErrInvalidRequest)
	}
	if req.Length != 0 && (req.Length < MinLength || req.Length > MaxLength) {
		return Record{}, fmt.Errorf("%w: otpLength %d, want %d to %d", ErrInvalidRequest, req.Length, MinLength, MaxLength)
	}
	ttl := req.TTL
	if ttl == 0 {
		ttl = m.limits.DefaultTTL
	}
	if ttl < 0 || ttl > m.limits.MaxTTL {
		return Record{}, fmt.Errorf("%w: expirationSeconds %d, want 1 to %d", ErrInvalidRequest, int64(ttl/time.Second), int64(m.limits.MaxTTL/time.Second))
	}
	contact, err := NormalizeContact(req.Type, req.Contact)
	if err != nil {
		return Record{}, err
	}
	return Record{
		ID: req.ID, OrganizationID: req.OrganizationID, Type: req.Type, Contact: contact,
		UserIdentifier: req.UserIdentifier, CreatedAt: now, ExpiresAt: now.Add(ttl),
	}, nil
}

func (m *Manager) checkLimits(rec Record, related []Record, now time.Time) error {
	live, recent := 0, 0
	var oldestRecent time.Time
	for _, r := range related {
		if r.OrganizationID != rec.OrganizationID {
			continue
		}
		if r.Type == rec.Type && strings.EqualFold(r.Contact, rec.Contact) && r.Live(now, m.limits) {
			live++
		}
		if rec.Type == TypeSMS && rec.UserIdentifier != "" && r.Type == TypeSMS &&
			r.UserIdentifier == rec.UserIdentifier && now.Sub(r.CreatedAt) < m.limits.SMSWindow {
			recent++
			if oldestRecent.IsZero() || r.CreatedAt.Before(oldestRecent) {
				oldestRecent = r.CreatedAt
			}
		}
	}
	if live >= m.limits.MaxLiveCodes {
		return fmt.Errorf("%w: %d codes for this contact are still live; use one or wait until they expire", ErrLimit, live)
	}
	if recent >= m.limits.SMSPerWindow {
		wait := oldestRecent.Add(m.limits.SMSWindow).Sub(now).Round(time.Second)
		return fmt.Errorf("%w: %d SMS codes in the last %s; try again in %s", ErrRateLimited, recent, m.limits.SMSWindow, wait)
	}
	return nil
}

// Check verifies entry against rec and returns the record to store back:
// on a wrong entry with one more attempt counted, on success marked used.
// The returned record must be stored even when the error is not nil.
//
// Two concurrent checks of one record must not both count from the same
// Attempts: store with a compare-and-set on (Attempts, Used), for example
// UPDATE … WHERE id = ? AND attempts = <rec.Attempts> AND NOT used, and treat
// a lost race as a failed check.
func (m *Manager) Check(rec Record, entry string) (Record, error) {
	now := m.now()
	switch {
	case rec.Used:
		return rec, fmt.Errorf("%w: request a new code", ErrUsed)
	case !now.Before(rec.ExpiresAt):
		return rec, fmt.Errorf("%w at %s: request a new code", ErrExpired, rec.ExpiresAt.UTC().Format(time.RFC3339))
	case rec.Attempts >= m.limits.MaxAttempts:
		return rec, fmt.Errorf("%w: request a new code", ErrAttemptsExhausted)
	}
	if !m.hasher.Matches(rec.ID, entry, rec.CodeHash) {
		rec.Attempts++
		left := m.limits.MaxAttempts - rec.Attempts
		if left == 0 {
			return rec, fmt.Errorf("%w: no attempts left, request a new code", ErrInvalidCode)
		}
		return rec, fmt.Errorf("%w: %d attempt(s) left", ErrInvalidCode, left)
	}
	rec.Used = true
	return rec, nil
}

// ParseExpirationSeconds reads the API's expirationSeconds string ("" means
// the default, returned as 0).
func ParseExpirationSeconds(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<31 {
		return 0, fmt.Errorf("%w: expirationSeconds %q is not a positive number of seconds", ErrInvalidRequest, s)
	}
	return time.Duration(n) * time.Second, nil
}
