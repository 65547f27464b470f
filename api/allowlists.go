package api

// IP allowlists: CIDR rules on the addresses a parent organization's credentials may reach the coordinator from, for
// the whole organization or one API key (whose list overrides the organization's). The shapes are @turnkey/http
// 6.6.0's (v1SetIpAllowlist*, v1RemoveIpAllowlist*, v1GetIpAllowlist*).

// The values of onEvaluationError: what a request gets when its address cannot be judged (the coordinator does not
// know where it came from, or a trusted proxy's forwarded header is malformed). DENY is the default.
const (
	OnEvaluationErrorAllow = "ALLOW"
	OnEvaluationErrorDeny  = "DENY"
)

// IPAllowlistIntentRule is one rule of SET_IP_ALLOWLIST: a CIDR block (192.168.1.0/24, 2001:db8::/32).
type IPAllowlistIntentRule struct {
	CIDR  string `json:"cidr"`
	Label string `json:"label,omitempty"`
}

// SetIPAllowlistIntent is ACTIVITY_TYPE_SET_IP_ALLOWLIST: the organization's list (no publicKey) or one API key's,
// replaced whole by these rules.
type SetIPAllowlistIntent struct {
	PublicKey         string                  `json:"publicKey,omitempty"`
	Enabled           *bool                   `json:"enabled,omitempty"`
	Rules             []IPAllowlistIntentRule `json:"rules,omitempty"`
	OnEvaluationError string                  `json:"onEvaluationError,omitempty"`
}

// SetIPAllowlistResult is empty, as the reference's.
type SetIPAllowlistResult struct{}

// RemoveIPAllowlistIntent is ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST: the organization's list, or one API key's.
type RemoveIPAllowlistIntent struct {
	PublicKey string `json:"publicKey,omitempty"`
}

// RemoveIPAllowlistResult is empty, as the reference's.
type RemoveIPAllowlistResult struct{}

// GetIPAllowlistRequest is the body of get_ip_allowlist.
type GetIPAllowlistRequest struct {
	OrganizationID string `json:"organizationId"`
	PublicKey      string `json:"publicKey,omitempty"`
}

// IPAllowlistRule is one rule as stored.
type IPAllowlistRule struct {
	CIDR      string `json:"cidr"`
	Label     string `json:"label,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"` // milliseconds since the epoch
}

// IPAllowlist is an organization's list or an API key's. Enabled is set for the organization's only; a key's list is
// enforced while it exists.
type IPAllowlist struct {
	OrganizationID    string            `json:"organizationId"`
	Rules             []IPAllowlistRule `json:"rules"`
	PublicKey         string            `json:"publicKey,omitempty"`
	Enabled           *bool             `json:"enabled,omitempty"`
	OnEvaluationError string            `json:"onEvaluationError,omitempty"`
}

// GetIPAllowlistResponse is one list; one never set has no rules (every address is allowed).
type GetIPAllowlistResponse struct {
	Allowlist IPAllowlist `json:"allowlist"`
}

// The activity types and the query of this file.
var (
	SetIPAllowlist = activity[SetIPAllowlistIntent, SetIPAllowlistResult](
		"SET_IP_ALLOWLIST", "set_ip_allowlist", "setIpAllowlistIntent", "setIpAllowlistResult")
	RemoveIPAllowlist = activity[RemoveIPAllowlistIntent, RemoveIPAllowlistResult](
		"REMOVE_IP_ALLOWLIST", "remove_ip_allowlist", "removeIpAllowlistIntent", "removeIpAllowlistResult")

	GetIPAllowlist = query[GetIPAllowlistRequest, GetIPAllowlistResponse]("get_ip_allowlist")
)
