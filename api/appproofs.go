package api

// ListAppProofs is the query of an activity's app proofs.
var ListAppProofs = query[GetActivityRequest, ListAppProofsResponse]("list_app_proofs")

// App proof constants.
const (
	AppProofScheme            = "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"
	AppProofAddressDerivation = "APP_PROOF_TYPE_ADDRESS_DERIVATION"
	AppProofPolicyOutcome     = "APP_PROOF_TYPE_POLICY_OUTCOME"
)

// ListAppProofsResponse lists an activity's app proofs.
type ListAppProofsResponse struct {
	AppProofs []AppProof `json:"appProofs"`
}

// AppProofPayload is what an app proof's proofPayload holds (as a JSON string).
type AppProofPayload struct {
	Type                   string                  `json:"type"`
	TimestampMs            string                  `json:"timestampMs"`
	AddressDerivationProof *AddressDerivationProof `json:"addressDerivationProof,omitempty"`
	PolicyOutcomeProof     *PolicyOutcomeProof     `json:"policyOutcomeProof,omitempty"`
}

// AddressDerivationProof states that a wallet derived an address at a path.
type AddressDerivationProof struct {
	OrganizationID string `json:"organizationId"`
	WalletID       string `json:"walletId"`
	DerivationPath string `json:"derivationPath"`
	Address        string `json:"address"`
}

// PolicyOutcomeProof states the policy engine's outcome for an activity, over digests of what it decided on.
type PolicyOutcomeProof struct {
	OrganizationID               string            `json:"organizationId"`
	Outcome                      string            `json:"outcome"`
	DecisionContextDigest        string            `json:"decisionContextDigest"`
	OrganizationDataDigest       string            `json:"organizationDataDigest"`
	ParentOrganizationDataDigest string            `json:"parentOrganizationDataDigest"`
	UserRequestApprovals         []RequestApproval `json:"userRequestApprovals"`
}

// RequestApproval is one approval an outcome rested on: who approved, with which key, over which activity.
type RequestApproval struct {
	UserID      string `json:"userId"`
	PublicKey   string `json:"publicKey"`
	Signature   string `json:"signature"`
	Fingerprint string `json:"fingerprint"`
}
