package api

// The Secrets API: arbitrary secrets (API credentials, another system's seed phrase, a signing key of another scheme)
// imported through HPKE bundles as wallets are, sealed at rest, and exported to a key the caller names. The shapes are
// @turnkey/http 6.6.0's (v1InitImportSecrets*, v1ImportSecrets*, v1ExportSecrets*, v1DeleteSecrets*, v1ListSecrets*).

// EncryptionSuiteEnclaveV1 is the one transport encryption suite of secrets: HPKE (DHKEM P-256, HKDF-SHA256,
// AES-256-GCM) bundles in @turnkey/crypto's formats, the ones wallet imports and exports use.
const EncryptionSuiteEnclaveV1 = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"

// KeyValue is v1KeyValue: a secret's static property, or an export's request context.
type KeyValue struct {
	Key   string `json:"key,omitempty"`
	Value string `json:"value,omitempty"`
}

// InitImportSecretsIntent is ACTIVITY_TYPE_INIT_IMPORT_SECRETS: one-time keys for the caller's next import.
type InitImportSecretsIntent struct {
	EncryptionSuite string `json:"encryptionSuite"`
	NumSecrets      int    `json:"numSecrets"`
}

// InitImportSecretsResult holds one signed target bundle per secret to import ({"version", "data", "dataSignature",
// "enclaveQuorumPublic"}, its data naming targetPublic, organizationId and userId), which @turnkey/crypto's
// encryptSecretToBundle verifies and encrypts to.
type InitImportSecretsResult struct {
	EnclaveTargetMessages []string `json:"enclaveTargetMessages"`
}

// ImportSecretParams is one secret of an import: its ciphertext to one of the target keys of the last
// INIT_IMPORT_SECRETS, and what policies will read of it.
type ImportSecretParams struct {
	Name string `json:"name,omitempty"`
	// SecretPayload is the JSON {"encappedPublic", "ciphertext"} encryptSecretToBundle returns.
	SecretPayload    string     `json:"secretPayload"`
	TargetPublicKey  string     `json:"targetPublicKey"`
	EncryptionSuite  string     `json:"encryptionSuite"`
	StaticProperties []KeyValue `json:"staticProperties,omitempty"`
}

// ImportSecretsIntent is ACTIVITY_TYPE_IMPORT_SECRETS.
type ImportSecretsIntent struct {
	Secrets []ImportSecretParams `json:"secrets"`
}

// ImportSecretsResult names the imported secrets, in the order of the parameters.
type ImportSecretsResult struct {
	SecretIDs []string `json:"secretIds"`
}

// ExportSecretParams is one secret of an export and the client key it is encrypted to.
type ExportSecretParams struct {
	SecretID        string     `json:"secretId"`
	TargetPublicKey string     `json:"targetPublicKey"`
	EncryptionSuite string     `json:"encryptionSuite"`
	RequestContext  []KeyValue `json:"requestContext,omitempty"`
}

// ExportSecretsIntent is ACTIVITY_TYPE_EXPORT_SECRETS: all of its secrets, or none.
type ExportSecretsIntent struct {
	Secrets []ExportSecretParams `json:"secrets"`
}

// ExportSecretsResult holds one signed bundle per secret, in the order of the parameters (the export bundle of
// EXPORT_WALLET, which @turnkey/crypto's decryptSecretBundle opens).
type ExportSecretsResult struct {
	SecretPayloads []string `json:"secretPayloads"`
}

// DeleteSecretsIntent is ACTIVITY_TYPE_DELETE_SECRETS.
type DeleteSecretsIntent struct {
	SecretIDs []string `json:"secretIds"`
}

// DeleteSecretsResult names the deleted secrets, in the order requested.
type DeleteSecretsResult struct {
	SecretIDs []string `json:"secretIds"`
}

// ListSecretsRequest is the body of list_secrets.
type ListSecretsRequest struct {
	OrganizationID    string      `json:"organizationId"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
}

// SecretMetadata is what anyone who may read the organization sees of a secret: never its value.
type SecretMetadata struct {
	SecretID         string     `json:"secretId"`
	Name             string     `json:"name,omitempty"`
	StaticProperties []KeyValue `json:"staticProperties"`
	CreatedAtUnixMs  string     `json:"createdAtUnixMs"`
}

// ListSecretsResponse is a page of the organization's secrets, the most recently created first.
type ListSecretsResponse struct {
	Secrets []SecretMetadata `json:"secrets"`
}

// The activity types and the query of this file.
var (
	InitImportSecrets = activity[InitImportSecretsIntent, InitImportSecretsResult](
		"INIT_IMPORT_SECRETS", "init_import_secrets", "initImportSecretsIntent", "initImportSecretsResult")
	ImportSecrets = activity[ImportSecretsIntent, ImportSecretsResult](
		"IMPORT_SECRETS", "import_secrets", "importSecretsIntent", "importSecretsResult")
	ExportSecrets = activity[ExportSecretsIntent, ExportSecretsResult](
		"EXPORT_SECRETS", "export_secrets", "exportSecretsIntent", "exportSecretsResult")
	DeleteSecrets = activity[DeleteSecretsIntent, DeleteSecretsResult](
		"DELETE_SECRETS", "delete_secrets", "deleteSecretsIntent", "deleteSecretsResult")

	ListSecrets = query[ListSecretsRequest, ListSecretsResponse]("list_secrets")
)
