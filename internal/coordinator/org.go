package coordinator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/internal/store"
)

// Org is an organization's document: the bounded part of what the coordinator knows about one organization (users,
// policies, tags, wallets, keys, settings: each under a limit), loaded whole for each activity — decisions need the
// users, tags, quorum and policies together — and written back whole with a new version. What grows without bound
// lives in rows of the organization instead: wallet accounts (WalletAccount), sub-organizations, activities.
type Org struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	ParentID   string  `json:"parentId,omitempty"`
	RootQuorum Quorum  `json:"rootQuorum"`
	Users      []*User `json:"users"`
	Tags       []*Tag  `json:"tags"`
	// PrivateKeyTags label private keys (tags.go).
	PrivateKeyTags []*Tag            `json:"privateKeyTags,omitempty"`
	Policies       []*Policy         `json:"policies"`
	Wallets        []*Wallet         `json:"wallets"`
	PrivateKeys    []*PrivateKey     `json:"privateKeys"`
	Features       map[string]string `json:"features,omitempty"`
	// AuthProxy is the organization's auth proxy configuration (authproxy.go), nil until ENABLE_AUTH_PROXY.
	AuthProxy *AuthProxyState `json:"authProxy,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`

	// OAuth2Credentials are the organization's OAuth 2.0 client registrations (oauth2.go).
	OAuth2Credentials []*OAuth2Credential `json:"oauth2Credentials,omitempty"`
	// Interfaces are the smart contract interfaces uploaded for policies (interfaces.go); their bodies are stored
	// apart.
	Interfaces []*ContractInterface `json:"interfaces,omitempty"`
	// Controls are the organization's velocity controls (controls.go).
	Controls []*VelocityControl `json:"controls,omitempty"`
	// SessionProfiles limit the sessions logins issue (sessions.go); immutable once created.
	SessionProfiles []*SessionProfile `json:"sessionProfiles,omitempty"`
	// Webhooks are the organization's webhook endpoints (webhooks.go).
	Webhooks []*WebhookEndpoint `json:"webhooks,omitempty"`
	// Invitations are the people invited to the organization by e-mail (invitations.go).
	Invitations []*Invitation `json:"invitations,omitempty"`
	// GasUsage is a billing organization's gas-spend limits of sponsored sends (gas.go); nil for none.
	GasUsage *GasUsageConfig `json:"gasUsage,omitempty"`
	// AccountRemovals counts the activities that deleted wallet accounts (wallet_accounts.go): accounts are rows apart
	// from the document, and a deletion must change the document's version all the same.
	AccountRemovals int64 `json:"accountRemovals,omitempty"`

	version int64              // the stored version this document was read at
	stored  []byte             // the document as read, to skip writing one that did not change
	indexed []store.IndexEntry // its index entries as read, to skip rewriting unchanged ones
}

// Quorum is a set of users and how many of them must approve.
type Quorum struct {
	UserIDs   []string `json:"userIds"`
	Threshold int32    `json:"threshold"`
}

// User is a user and its credentials.
type User struct {
	ID             string           `json:"id"`
	Name           string           `json:"name"`
	Email          string           `json:"email,omitempty"`
	EmailVerified  bool             `json:"emailVerified,omitempty"`
	Phone          string           `json:"phone,omitempty"`
	PhoneVerified  bool             `json:"phoneVerified,omitempty"`
	Tags           []string         `json:"tags"`
	APIKeys        []*APIKey        `json:"apiKeys"`
	Authenticators []*Authenticator `json:"authenticators"`
	OAuthProviders []*OAuthProvider `json:"oauthProviders"`
	// MfaPolicies say when the user must authenticate with further credentials (mfa.go), by order.
	MfaPolicies []*MfaPolicy `json:"mfaPolicies,omitempty"`
	// ImportTarget is the sealed one-time key of the user's pending import (INIT_IMPORT_*), if any.
	ImportTarget string    `json:"importTarget,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// APIKey is an API key or a session key of a user.
type APIKey struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	PublicKey  string `json:"publicKey"` // lower-case hex, as stamps carry it
	Curve      string `json:"curve"`
	Type       string `json:"type"` // CREDENTIAL_TYPE_*
	Expiration string `json:"expirationSeconds,omitempty"`
	// SessionProfileID names the session profile that limits a session key (sessions.go); empty for none.
	SessionProfileID string `json:"sessionProfileId,omitempty"`
	// Method is how the session of a session key was opened, as MFA policies name it (AUTHENTICATION_TYPE_OAUTH,
	// _EMAIL_OTP, _SMS_OTP); empty when it is not known.
	Method string `json:"method,omitempty"`
	// CreatedBy and Origin say where the key came from (lineage.go).
	CreatedBy string `json:"createdBy,omitempty"`
	Origin    string `json:"origin,omitempty"`
	// ExpiresAt is zero for a key that never expires.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Expired reports whether the key can no longer be used at now.
func (k *APIKey) Expired(now time.Time) bool {
	return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)
}

// Authenticator is a passkey.
type Authenticator struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	CredentialID      string    `json:"credentialId"` // base64url, no padding
	PublicKeyCOSE     []byte    `json:"publicKeyCose"`
	PublicKeyHex      string    `json:"publicKeyHex"`
	Algorithm         int64     `json:"algorithm"`
	AAGUID            string    `json:"aaguid"`
	AttestationType   string    `json:"attestationType"`
	AttestationFormat string    `json:"attestationFormat"`
	RPIDHash          []byte    `json:"rpIdHash"`
	Transports        []string  `json:"transports"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`

	// CreatedBy and Origin say where the passkey came from (lineage.go).
	CreatedBy string `json:"createdBy,omitempty"`
	Origin    string `json:"origin,omitempty"`
}

// OAuthProvider is an OIDC identity (issuer, subject, audience) linked to a user.
type OAuthProvider struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Issuer    string    `json:"issuer"`
	Subject   string    `json:"subject"`
	Audience  string    `json:"audience"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	// CreatedBy and Origin say where the link came from (lineage.go).
	CreatedBy string `json:"createdBy,omitempty"`
	Origin    string `json:"origin,omitempty"`
}

// Policy is a policy as stored: its expressions are sources, compiled (once per process) when decisions need them.
type Policy struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Effect    string    `json:"effect"`
	Condition string    `json:"condition,omitempty"`
	Consensus string    `json:"consensus,omitempty"`
	Time      string    `json:"time,omitempty"` // when the policy is active; empty: always
	Notes     string    `json:"notes"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Policy finds a policy by id.
func (o *Org) Policy(id string) *Policy {
	return byID(o.Policies, id, func(x *Policy) string { return x.ID })
}

// clone returns a deep copy, for running an activity whose changes may have to be thrown away.
func (o *Org) clone() *Org {
	data, _ := json.Marshal(o)
	var c Org
	_ = json.Unmarshal(data, &c)
	c.version = o.version
	return &c
}

// Tag is a user tag.
type Tag struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Index kinds: how organizations are found without knowing their id. The sub-organization filters of list_suborgs
// and the credential look-up of every stamp use the same entries.
const (
	indexName         = "NAME"
	indexUsername     = "USERNAME"
	indexEmail        = "EMAIL"
	indexPhone        = "PHONE_NUMBER"
	indexPublicKey    = "PUBLIC_KEY"
	indexCredentialID = "CREDENTIAL_ID"
	indexOIDC         = "OIDC_IDENTITY"
	indexAddress      = "WALLET_ACCOUNT_ADDRESS"
	// Contacts a user proved to own (an OTP login, or a verification token at sign-up).
	indexVerifiedEmail = "VERIFIED_EMAIL"
	indexVerifiedPhone = "VERIFIED_PHONE_NUMBER"
)

// oidcIdentity is the index value of an OIDC identity: the SHA-256 of the JSON triple, which no other triple shares,
// short whatever the claims' lengths, and free of the NUL bytes PostgreSQL text refuses.
func oidcIdentity(issuer, subject, audience string) string {
	triple, _ := json.Marshal([]string{issuer, subject, audience})
	sum := sha256.Sum256(triple)
	return hex.EncodeToString(sum[:])
}

// indexEntries derives the organization's index entries from its document; the store keeps them in step.
func (o *Org) indexEntries() []store.IndexEntry {
	var out []store.IndexEntry
	add := func(kind, value string) {
		if value != "" {
			out = append(out, store.IndexEntry{Kind: kind, Value: value})
		}
	}
	add(indexName, o.Name)
	for _, u := range o.Users {
		add(indexUsername, u.Name)
		add(indexEmail, strings.ToLower(u.Email))
		add(indexPhone, u.Phone)
		if u.EmailVerified {
			add(indexVerifiedEmail, strings.ToLower(u.Email))
		}
		if u.PhoneVerified {
			add(indexVerifiedPhone, u.Phone)
		}
		for _, k := range u.APIKeys {
			add(indexPublicKey, k.PublicKey)
		}
		for _, a := range u.Authenticators {
			add(indexCredentialID, a.CredentialID)
			add(indexPublicKey, a.PublicKeyHex)
		}
		for _, p := range u.OAuthProviders {
			add(indexOIDC, oidcIdentity(p.Issuer, p.Subject, p.Audience))
		}
	}
	for _, k := range o.PrivateKeys { // wallet accounts are found by their own address index (store.AccountOwners)
		for _, a := range k.Addresses {
			add(indexAddress, addressKey(a.Address))
		}
	}
	out = append(out, o.authProxyIndex()...)
	slices.SortFunc(out, func(a, b store.IndexEntry) int { return strings.Compare(a.Kind+a.Value, b.Kind+b.Value) })
	return slices.Compact(out)
}

func decodeOrg(row store.Org) (*Org, error) {
	var o Org
	if err := json.Unmarshal(row.Data, &o); err != nil {
		return nil, fmt.Errorf("organization %s: corrupt document: %w", row.ID, err)
	}
	o.version, o.stored = row.Version, row.Data
	o.indexed = o.indexEntries()
	return &o, nil
}

func (o *Org) row() (store.Org, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return store.Org{}, err
	}
	return store.Org{ID: o.ID, ParentID: o.ParentID, Version: o.version, Data: data, CreatedAt: o.CreatedAt.UnixNano()}, nil
}

// User finds a user by id.
func (o *Org) User(id string) *User { return byID(o.Users, id, func(x *User) string { return x.ID }) }

// Tag finds a tag by id.
func (o *Org) Tag(id string) *Tag { return byID(o.Tags, id, func(x *Tag) string { return x.ID }) }

// byID finds the item of a list with an id, or nil.
func byID[T any](items []*T, id string, idOf func(*T) string) *T {
	for _, it := range items {
		if idOf(it) == id {
			return it
		}
	}
	return nil
}

// IsRoot reports whether a user is in the root quorum.
func (o *Org) IsRoot(userID string) bool { return slices.Contains(o.RootQuorum.UserIDs, userID) }

// apiKeyByPublicKey finds the user and key registered under a public key.
func (o *Org) apiKeyByPublicKey(pub string) (*User, *APIKey) {
	for _, u := range o.Users {
		for _, k := range u.APIKeys {
			if k.PublicKey == pub {
				return u, k
			}
		}
	}
	return nil, nil
}

// hasCredential reports whether the user still holds the API key or passkey with this id.
func (u *User) hasCredential(id string) bool {
	for _, k := range u.APIKeys {
		if k.ID == id {
			return true
		}
	}
	for _, a := range u.Authenticators {
		if a.ID == id {
			return true
		}
	}
	return false
}

// authenticatorByCredentialID finds the user and passkey registered under a credential id.
func (o *Org) authenticatorByCredentialID(id string) (*User, *Authenticator) {
	for _, u := range o.Users {
		for _, a := range u.Authenticators {
			if a.CredentialID == id {
				return u, a
			}
		}
	}
	return nil, nil
}
