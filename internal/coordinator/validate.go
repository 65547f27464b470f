package coordinator

import (
	"fmt"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/stamp"
)

// Limits on what one request may hold.
const (
	maxNameLen       = 256
	maxItemsPerCall  = 100
	maxExpirationSec = 10 * 365 * 24 * 3600 // ten years
)

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

// checkName accepts a name or label a person gives: not empty, and a label (checkLabel).
func checkName(path, name string) error {
	if strings.TrimSpace(name) == "" {
		return apierr.Invalid("%s must not be empty", path)
	}
	return checkLabel(path, name)
}

// checkLabel accepts an optional name or label: at most maxNameLen bytes, and no control characters or bidirectional
// overrides, which would let a name show one thing and be another (in a dashboard, a log line, an e-mail).
func checkLabel(path, label string) error {
	if len(label) > maxNameLen {
		return apierr.Invalid("%s is longer than %d bytes", path, maxNameLen)
	}
	if i := strings.IndexFunc(label, isDeceptive); i >= 0 {
		r, _ := utf8.DecodeRuneInString(label[i:])
		return apierr.Invalid("%s must not contain control characters or bidirectional overrides; it has U+%04X at byte %d", path, r, i)
	}
	return nil
}

// isDeceptive: C0 controls, DEL, and the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069).
func isDeceptive(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// checkEmail accepts a plain address (no display name), as users type it.
func checkEmail(path, email string) error {
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@"):], ".") {
		return apierr.New(apierr.InvalidArgument, "INVALID_EMAIL", "%s: %q is not a valid e-mail address", path, email)
	}
	return nil
}

// checkPhone accepts E.164 numbers: a plus sign and up to 15 digits.
func checkPhone(path, phone string) error {
	if !e164.MatchString(phone) {
		return apierr.Invalid("%s: %q is not an E.164 phone number (a plus sign, the country code and the number, digits only, for example +14155550123)", path, phone)
	}
	return nil
}

func checkID(path, id string) error {
	if _, err := uuid.Parse(id); err != nil {
		return apierr.Invalid("%s: %q is not a valid id", path, id)
	}
	return nil
}

func checkIDs(path string, ids []string, allowEmpty bool) error {
	if len(ids) == 0 && !allowEmpty {
		return apierr.Invalid("%s must list at least one id", path)
	}
	if len(ids) > maxItemsPerCall {
		return apierr.Invalid("%s lists %d ids; at most %d are accepted per request", path, len(ids), maxItemsPerCall)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("%s[%d]", path, i), id); err != nil {
			return err
		}
		if seen[id] {
			return apierr.Invalid("%s lists %s twice", path, id)
		}
		seen[id] = true
	}
	return nil
}

// checkAPIKey validates an API key's parameters and returns its public key normalized to lower-case hex.
func checkAPIKey(path string, k api.APIKeyParamsV2) (string, error) {
	if err := checkName(path+".apiKeyName", k.APIKeyName); err != nil {
		return "", err
	}
	switch k.CurveType {
	case api.CurveP256, api.CurveSecp256k1, api.CurveEd25519:
	default:
		return "", apierr.Invalid("%s.curveType: %q is not one of API_KEY_CURVE_P256, API_KEY_CURVE_SECP256K1, API_KEY_CURVE_ED25519", path, k.CurveType)
	}
	pub, err := stamp.NormalizePublicKey(stamp.Curve(k.CurveType), k.PublicKey)
	if err != nil {
		return "", apierr.Invalid("%s.publicKey: %s", path, err.Error())
	}
	if k.ExpirationSeconds != "" {
		if _, err := parseExpiration(k.ExpirationSeconds); err != nil {
			return "", apierr.Invalid("%s.expirationSeconds: %s", path, err.Error())
		}
	}
	return pub, nil
}

func parseExpiration(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive whole number of seconds", s)
	}
	if n > maxExpirationSec {
		return 0, fmt.Errorf("%s seconds is more than the maximum of %d (ten years)", s, maxExpirationSec)
	}
	return n, nil
}

var transports = map[string]bool{
	"AUTHENTICATOR_TRANSPORT_BLE": true, "AUTHENTICATOR_TRANSPORT_INTERNAL": true, "AUTHENTICATOR_TRANSPORT_NFC": true,
	"AUTHENTICATOR_TRANSPORT_USB": true, "AUTHENTICATOR_TRANSPORT_HYBRID": true,
}

func checkAuthenticator(path string, a api.AuthenticatorParamsV2) error {
	if err := checkName(path+".authenticatorName", a.AuthenticatorName); err != nil {
		return err
	}
	if a.Challenge == "" {
		return apierr.Invalid("%s.challenge must not be empty", path)
	}
	for i, t := range a.Attestation.Transports {
		if !transports[t] {
			return apierr.Invalid("%s.attestation.transports[%d]: %q is not an AUTHENTICATOR_TRANSPORT_* value", path, i, t)
		}
	}
	return nil
}

// userSpec is a user to create, whatever version of the parameters described it.
type userSpec struct {
	path           string
	Name           string
	Email          string
	Phone          string
	APIKeys        []api.APIKeyParamsV2
	Authenticators []api.AuthenticatorParamsV2
	OAuth          []oauthSpec
	Tags           []string
}

type oauthSpec struct {
	Name   string
	Token  string
	Claims *api.OidcClaims
}

func checkUserSpec(u userSpec) error {
	if err := checkName(u.path+".userName", u.Name); err != nil {
		return err
	}
	if u.Email != "" {
		if err := checkEmail(u.path+".userEmail", u.Email); err != nil {
			return err
		}
	}
	if u.Phone != "" {
		if err := checkPhone(u.path+".userPhoneNumber", u.Phone); err != nil {
			return err
		}
	}
	if len(u.APIKeys) > maxLongLivedKeysPerUser+maxExpiringKeysPerUser || len(u.Authenticators) > maxAuthenticatorsPerUser {
		return limitReached("%s: a user holds at most %d API keys that never expire, %d that expire and %d authenticators",
			u.path, maxLongLivedKeysPerUser, maxExpiringKeysPerUser, maxAuthenticatorsPerUser)
	}
	for i, k := range u.APIKeys {
		if _, err := checkAPIKey(fmt.Sprintf("%s.apiKeys[%d]", u.path, i), k); err != nil {
			return err
		}
	}
	for i, a := range u.Authenticators {
		if err := checkAuthenticator(fmt.Sprintf("%s.authenticators[%d]", u.path, i), a); err != nil {
			return err
		}
	}
	for i, p := range u.OAuth {
		if err := checkOAuthSpec(fmt.Sprintf("%s.oauthProviders[%d]", u.path, i), p); err != nil {
			return err
		}
	}
	return checkIDs(u.path+".userTags", u.Tags, true)
}

func checkOAuthSpec(path string, p oauthSpec) error {
	if err := checkName(path+".providerName", p.Name); err != nil {
		return err
	}
	if p.Token == "" && p.Claims == nil {
		return apierr.Invalid("%s needs an oidcToken or oidcClaims", path)
	}
	if p.Claims != nil && (p.Claims.Iss == "" || p.Claims.Sub == "" || p.Claims.Aud == "") {
		return apierr.Invalid("%s.oidcClaims needs iss, sub and aud", path)
	}
	return nil
}

func checkUserSpecs(users []userSpec) error {
	if len(users) == 0 {
		return apierr.Invalid("parameters.users must list at least one user")
	}
	if len(users) > maxItemsPerCall {
		return apierr.Invalid("parameters.users lists %d users; at most %d per request", len(users), maxItemsPerCall)
	}
	for _, u := range users {
		if err := checkUserSpec(u); err != nil {
			return err
		}
	}
	return nil
}
