package api

// RootUserParamsV4 is a root user of CREATE_SUB_ORGANIZATION_V7.
type RootUserParamsV4 struct {
	UserName        string                  `json:"userName"`
	UserEmail       string                  `json:"userEmail,omitempty"`
	UserPhoneNumber string                  `json:"userPhoneNumber,omitempty"`
	APIKeys         []APIKeyParamsV2        `json:"apiKeys"`
	Authenticators  []AuthenticatorParamsV2 `json:"authenticators"`
	OauthProviders  []OauthProviderParams   `json:"oauthProviders"`
}

// RootUserParamsV5 is a root user of CREATE_SUB_ORGANIZATION_V8.
type RootUserParamsV5 struct {
	UserName        string                  `json:"userName"`
	UserEmail       string                  `json:"userEmail,omitempty"`
	UserPhoneNumber string                  `json:"userPhoneNumber,omitempty"`
	APIKeys         []APIKeyParamsV2        `json:"apiKeys"`
	Authenticators  []AuthenticatorParamsV2 `json:"authenticators"`
	OauthProviders  []OauthProviderParamsV2 `json:"oauthProviders"`
}

// WalletParams creates a wallet together with a sub-organization.
type WalletParams struct {
	WalletName     string                `json:"walletName"`
	Accounts       []WalletAccountParams `json:"accounts"`
	MnemonicLength *int32                `json:"mnemonicLength,omitempty"`
}

// WalletAccountParams describes one account to derive.
type WalletAccountParams struct {
	Curve         string `json:"curve"`
	PathFormat    string `json:"pathFormat"`
	Path          string `json:"path"`
	AddressFormat string `json:"addressFormat"`
	Name          string `json:"name,omitempty"`
}

// WalletResult is a created wallet and its addresses.
type WalletResult struct {
	WalletID  string   `json:"walletId"`
	Addresses []string `json:"addresses"`
}

// ClientSignature proves the holder of a verification token's key approved its use.
type ClientSignature struct {
	PublicKey string `json:"publicKey"`
	Scheme    string `json:"scheme"`
	Message   string `json:"message"`
	Signature string `json:"signature"`
}

// CreateSubOrganizationIntentV7 is ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7.
type CreateSubOrganizationIntentV7 struct {
	SubOrganizationName  string             `json:"subOrganizationName"`
	RootUsers            []RootUserParamsV4 `json:"rootUsers"`
	RootQuorumThreshold  *int32             `json:"rootQuorumThreshold"`
	Wallet               *WalletParams      `json:"wallet,omitempty"`
	DisableEmailRecovery *bool              `json:"disableEmailRecovery,omitempty"`
	DisableEmailAuth     *bool              `json:"disableEmailAuth,omitempty"`
	DisableSmsAuth       *bool              `json:"disableSmsAuth,omitempty"`
	DisableOtpEmailAuth  *bool              `json:"disableOtpEmailAuth,omitempty"`
	VerificationToken    string             `json:"verificationToken,omitempty" sigil:"secret"`
	ClientSignature      *ClientSignature   `json:"clientSignature,omitempty"`
}

// CreateSubOrganizationIntentV8 is ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8.
type CreateSubOrganizationIntentV8 struct {
	SubOrganizationName  string             `json:"subOrganizationName"`
	RootUsers            []RootUserParamsV5 `json:"rootUsers"`
	RootQuorumThreshold  *int32             `json:"rootQuorumThreshold"`
	Wallet               *WalletParams      `json:"wallet,omitempty"`
	DisableEmailRecovery *bool              `json:"disableEmailRecovery,omitempty"`
	DisableEmailAuth     *bool              `json:"disableEmailAuth,omitempty"`
	DisableSmsAuth       *bool              `json:"disableSmsAuth,omitempty"`
	DisableOtpEmailAuth  *bool              `json:"disableOtpEmailAuth,omitempty"`
	VerificationToken    string             `json:"verificationToken,omitempty" sigil:"secret"`
	ClientSignature      *ClientSignature   `json:"clientSignature,omitempty"`
}

// CreateSubOrganizationResult is the result of V7 and V8 (under resultV7 / resultV8 keys).
type CreateSubOrganizationResult struct {
	SubOrganizationID string        `json:"subOrganizationId"`
	Wallet            *WalletResult `json:"wallet,omitempty"`
	RootUserIDs       []string      `json:"rootUserIds"`
}

// DeleteSubOrganizationIntent is ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION.
type DeleteSubOrganizationIntent struct {
	DeleteWithoutExport *bool `json:"deleteWithoutExport,omitempty"`
}

// DeleteSubOrganizationResult names the deleted organization.
type DeleteSubOrganizationResult struct {
	SubOrganizationUUID string `json:"subOrganizationUuid"`
}

// UpdateRootQuorumIntent is ACTIVITY_TYPE_UPDATE_ROOT_QUORUM.
type UpdateRootQuorumIntent struct {
	Threshold *int32   `json:"threshold"`
	UserIDs   []string `json:"userIds"`
}

// UpdateRootQuorumResult is empty.
type UpdateRootQuorumResult struct{}

// UpdateOrganizationNameIntent is ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME.
type UpdateOrganizationNameIntent struct {
	OrganizationName string `json:"organizationName"`
}

// UpdateOrganizationNameResult echoes the new name.
type UpdateOrganizationNameResult struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	CreateSubOrganizationV7 = activity[CreateSubOrganizationIntentV7, CreateSubOrganizationResult]("CREATE_SUB_ORGANIZATION_V7", "create_sub_organization", "createSubOrganizationIntentV7", "createSubOrganizationResultV7")
	CreateSubOrganizationV8 = activity[CreateSubOrganizationIntentV8, CreateSubOrganizationResult]("CREATE_SUB_ORGANIZATION_V8", "create_sub_organization", "createSubOrganizationIntentV8", "createSubOrganizationResultV8")
	DeleteSubOrganization   = activity[DeleteSubOrganizationIntent, DeleteSubOrganizationResult]("DELETE_SUB_ORGANIZATION", "delete_sub_organization", "deleteSubOrganizationIntent", "deleteSubOrganizationResult")
	UpdateRootQuorum        = activity[UpdateRootQuorumIntent, UpdateRootQuorumResult]("UPDATE_ROOT_QUORUM", "update_root_quorum", "updateRootQuorumIntent", "updateRootQuorumResult")
	UpdateOrganizationName  = activity[UpdateOrganizationNameIntent, UpdateOrganizationNameResult]("UPDATE_ORGANIZATION_NAME", "update_organization_name", "updateOrganizationNameIntent", "updateOrganizationNameResult")
)

// The queries of this file: their paths and their request and response types.
var (
	GetOrganization     = query[OrganizationRequest, GetOrganizationResponse]("get_organization")
	ListSubOrgs         = query[ListSubOrgsRequest, ListSubOrgsResponse]("list_suborgs")
	ListVerifiedSubOrgs = query[ListSubOrgsRequest, ListSubOrgsResponse]("list_verified_suborgs")
)
