package authproxy

import (
	"crypto/ecdh"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/stamp"
)

// Identity is the proxy service's own keys: the HPKE key organizations' proxy keys are encrypted to, and the API
// key it stamps configuration look-ups with. Neither belongs to an organization.
type Identity struct {
	// EncryptionKey opens the proxy keys the coordinator encrypted (bundle.Open).
	EncryptionKey *ecdh.PrivateKey
	// ServiceKey stamps resolve_auth_proxy_config.
	ServiceKey *stamp.APIKey
}

// NewIdentity generates a fresh identity.
func NewIdentity() (*Identity, error) {
	enc, err := bundle.NewTargetKey()
	if err != nil {
		return nil, err
	}
	svc, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return nil, err
	}
	return &Identity{EncryptionKey: enc, ServiceKey: svc}, nil
}

// EncryptionPublicKey is the public half of the HPKE key, for the coordinator's configuration.
func (id *Identity) EncryptionPublicKey() *ecdh.PublicKey { return id.EncryptionKey.PublicKey() }

// ServicePublicKey is the public half of the service key (compressed hex), for the coordinator's configuration.
func (id *Identity) ServicePublicKey() string { return id.ServiceKey.PublicKeyHex() }

// String never shows the private keys.
func (id *Identity) String() string {
	return fmt.Sprintf("auth proxy identity (service key %s)", id.ServicePublicKey())
}

// identityFile is the JSON form of an identity on disk.
type identityFile struct {
	EncryptionPrivateKey string `json:"encryptionPrivateKey"`
	ServicePrivateKey    string `json:"servicePrivateKey"`
}

// LoadOrCreateIdentity reads the identity file at path, creating it (mode 0600) with a new identity when it does not
// exist.
func LoadOrCreateIdentity(path string) (*Identity, error) {
	id, err := LoadIdentity(path)
	if !errors.Is(err, os.ErrNotExist) {
		return id, err
	}
	if id, err = NewIdentity(); err != nil {
		return nil, err
	}
	return id, id.Save(path)
}

// LoadIdentity reads an identity file.
func LoadIdentity(path string) (*Identity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(data)
	var f identityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("auth proxy identity %s is not valid JSON", path)
	}
	raw, err := hex.DecodeString(f.EncryptionPrivateKey)
	if err != nil {
		return nil, fmt.Errorf("auth proxy identity %s: encryptionPrivateKey is not hex", path)
	}
	defer keys.Zero(raw)
	enc, err := bundle.ParseTargetKey(raw)
	if err != nil {
		return nil, fmt.Errorf("auth proxy identity %s: %w", path, err)
	}
	svc, err := stamp.ParseAPIKey(stamp.CurveP256, f.ServicePrivateKey)
	if err != nil {
		return nil, fmt.Errorf("auth proxy identity %s: servicePrivateKey: %w", path, err)
	}
	return &Identity{EncryptionKey: enc, ServiceKey: svc}, nil
}

// Save writes the identity readable by its owner only.
func (id *Identity) Save(path string) error {
	data, err := json.MarshalIndent(identityFile{EncryptionPrivateKey: hex.EncodeToString(id.EncryptionKey.Bytes()),
		ServicePrivateKey: id.ServiceKey.PrivateKeyHex()}, "", "  ")
	if err != nil {
		return err
	}
	defer keys.Zero(data)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
