package bundle

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
)

// ExportData is the signed data of an export bundle, in the field order of
// the enclave's ServerSendData.
type ExportData struct {
	EncappedPublic string `json:"encappedPublic"`
	Ciphertext     string `json:"ciphertext"`
	OrganizationID string `json:"organizationId"`
}

// ExportBundle encrypts secret (a mnemonic's UTF-8 bytes or a raw private
// key) to the client's target key and signs the result, giving the
// exportBundle of EXPORT_WALLET / EXPORT_PRIVATE_KEY / EXPORT_WALLET_ACCOUNT
// that @turnkey/crypto's decryptExportBundle opens.
func ExportBundle(signer *ecdsa.PrivateKey, target *ecdh.PublicKey, organizationID string, secret []byte) (string, error) {
	if organizationID == "" {
		return "", fmt.Errorf("bundle: an export bundle must name its organization")
	}
	c, err := Seal(target, secret)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(ExportData{EncappedPublic: c.EncappedPublic, Ciphertext: c.Ciphertext, OrganizationID: organizationID})
	if err != nil {
		return "", err
	}
	return Sign(signer, data)
}

// OpenExportBundle is the client side of ExportBundle, as decryptExportBundle
// does it: verify the signer, check the organization, decrypt.
func OpenExportBundle(exportBundle string, signer *ecdsa.PublicKey, receiver *ecdh.PrivateKey, organizationID string) ([]byte, error) {
	data, err := Verify(exportBundle, signer)
	if err != nil {
		return nil, err
	}
	var d ExportData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%w: signed data is not a JSON object: %v", ErrMalformed, err)
	}
	if d.OrganizationID != organizationID {
		return nil, fmt.Errorf("%w: made for %q, want %q", ErrOrganization, d.OrganizationID, organizationID)
	}
	return Open(receiver, Ciphertext{EncappedPublic: d.EncappedPublic, Ciphertext: d.Ciphertext})
}
