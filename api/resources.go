package api

// User is a user as queries return it.
type User struct {
	UserID          string          `json:"userId"`
	UserName        string          `json:"userName"`
	UserEmail       string          `json:"userEmail,omitempty"`
	UserPhoneNumber string          `json:"userPhoneNumber,omitempty"`
	Authenticators  []Authenticator `json:"authenticators"`
	APIKeys         []APIKey        `json:"apiKeys"`
	UserTags        []string        `json:"userTags"`
	OauthProviders  []OauthProvider `json:"oauthProviders"`
	CreatedAt       Timestamp       `json:"createdAt"`
	UpdatedAt       Timestamp       `json:"updatedAt"`
	MfaPolicies     []MfaPolicy     `json:"mfaPolicies"`
}

// Credential is the public half of a credential and its type.
type Credential struct {
	PublicKey        string `json:"publicKey"`
	Type             string `json:"type"`
	SessionProfileID string `json:"sessionProfileId,omitempty"`
}

// Credential types.
const (
	CredentialWebAuthn      = "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"
	CredentialAPIKeyP256    = "CREDENTIAL_TYPE_API_KEY_P256"
	CredentialAPIKeySecp256 = "CREDENTIAL_TYPE_API_KEY_SECP256K1"
	CredentialAPIKeyEd25519 = "CREDENTIAL_TYPE_API_KEY_ED25519"
	CredentialOTPAuthP256   = "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256"
	CredentialOAuthP256     = "CREDENTIAL_TYPE_OAUTH_KEY_P256"
)

// APIKey is an API key (or a session key) of a user.
type APIKey struct {
	Credential        Credential `json:"credential"`
	APIKeyID          string     `json:"apiKeyId"`
	APIKeyName        string     `json:"apiKeyName"`
	CreatedAt         Timestamp  `json:"createdAt"`
	UpdatedAt         Timestamp  `json:"updatedAt"`
	ExpirationSeconds string     `json:"expirationSeconds,omitempty"`
}

// Authenticator is a passkey of a user.
type Authenticator struct {
	Transports        []string   `json:"transports"`
	AttestationType   string     `json:"attestationType"`
	AAGUID            string     `json:"aaguid"`
	CredentialID      string     `json:"credentialId"`
	Model             string     `json:"model"`
	Credential        Credential `json:"credential"`
	AuthenticatorID   string     `json:"authenticatorId"`
	AuthenticatorName string     `json:"authenticatorName"`
	CreatedAt         Timestamp  `json:"createdAt"`
	UpdatedAt         Timestamp  `json:"updatedAt"`
}

// OauthProvider is an OIDC identity linked to a user.
type OauthProvider struct {
	ProviderID   string    `json:"providerId"`
	ProviderName string    `json:"providerName"`
	Issuer       string    `json:"issuer"`
	Audience     string    `json:"audience"`
	Subject      string    `json:"subject"`
	CreatedAt    Timestamp `json:"createdAt"`
	UpdatedAt    Timestamp `json:"updatedAt"`
}

// Tag is a user tag (or private-key tag).
type Tag struct {
	TagID     string    `json:"tagId"`
	TagName   string    `json:"tagName"`
	TagType   string    `json:"tagType"`
	CreatedAt Timestamp `json:"createdAt"`
	UpdatedAt Timestamp `json:"updatedAt"`
}

// Tag types.
const (
	TagTypeUser       = "TAG_TYPE_USER"
	TagTypePrivateKey = "TAG_TYPE_PRIVATE_KEY"
)

// Quorum is a set of users and how many of them must approve.
type Quorum struct {
	Threshold int32    `json:"threshold"`
	UserIDs   []string `json:"userIds"`
}

// Feature is an organization feature flag.
type Feature struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// OrganizationData is the organization as get_organization returns it.
type OrganizationData struct {
	OrganizationID string       `json:"organizationId,omitempty"`
	Name           string       `json:"name,omitempty"`
	Users          []User       `json:"users"`
	Policies       []Policy     `json:"policies"`
	PrivateKeys    []PrivateKey `json:"privateKeys"`
	Invitations    []Invitation `json:"invitations"`
	Tags           []Tag        `json:"tags"`
	RootQuorum     *Quorum      `json:"rootQuorum,omitempty"`
	Features       []Feature    `json:"features"`
	Wallets        []Wallet     `json:"wallets"`
}

// Policy is a policy as queries return it.
type Policy struct {
	PolicyID   string    `json:"policyId"`
	PolicyName string    `json:"policyName"`
	Effect     string    `json:"effect"`
	CreatedAt  Timestamp `json:"createdAt"`
	UpdatedAt  Timestamp `json:"updatedAt"`
	Notes      string    `json:"notes"`
	Consensus  string    `json:"consensus"`
	Condition  string    `json:"condition"`
	Time       string    `json:"time,omitempty"`
}
