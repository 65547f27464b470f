package authproxy

import (
	"crypto/ecdh"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/seal"
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

// identityFile is the JSON form of an identity on disk: the public halves, and the private keys either in clear (dev
// mode) or sealed under the master key (production mode: Sealed, the base64 of a seal blob of the JSON of the two
// private keys).
type identityFile struct {
	EncryptionPrivateKey string `json:"encryptionPrivateKey,omitempty"`
	ServicePrivateKey    string `json:"servicePrivateKey,omitempty"`
	Sealed               string `json:"sealed,omitempty"`
	EncryptionPublicKey  string `json:"encryptionPublicKey,omitempty"`
	ServicePublicKey     string `json:"servicePublicKey,omitempty"`
}

// privateKeys is what an identity file seals.
type privateKeys struct {
	EncryptionPrivateKey string `json:"encryptionPrivateKey"`
	ServicePrivateKey    string `json:"servicePrivateKey"`
}

// sealedIdentityAAD binds the sealed blob to its purpose: it opens as nothing else.
var sealedIdentityAAD = []byte("sigil/authproxy.json/private-keys")

// ErrSealed reports an identity file sealed under the master key, read without it.
var ErrSealed = errors.New("its private keys are sealed under the master key (production mode): give the master key (--master-key-file, SIGIL_MASTER_KEY or --master-key-command)")

// LoadOrCreateIdentity reads the identity file at path, creating it (mode 0600) with a new identity when it does not
// exist. With a keyring (production mode) the private keys are kept sealed under it: a file that holds them in clear,
// or sealed under a retired master key version, is written again sealed under the active one.
func LoadOrCreateIdentity(path string, ring *seal.Keyring) (*Identity, error) {
	id, f, err := loadIdentity(path, ring)
	if errors.Is(err, os.ErrNotExist) {
		if id, err = NewIdentity(); err != nil {
			return nil, err
		}
		return id, id.Save(path, ring)
	}
	if err != nil {
		return nil, err
	}
	if ring != nil && (f.Sealed == "" || needsRewrap(ring, f.Sealed)) {
		return id, id.Save(path, ring)
	}
	return id, nil
}

// LoadIdentity reads an identity file; ring opens one sealed under the master key (nil: a sealed file is ErrSealed).
func LoadIdentity(path string, ring *seal.Keyring) (*Identity, error) {
	id, _, err := loadIdentity(path, ring)
	return id, err
}

func loadIdentity(path string, ring *seal.Keyring) (*Identity, *identityFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer keys.Zero(data)
	var f identityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, fmt.Errorf("auth proxy identity %s is not valid JSON", path)
	}
	priv := privateKeys{EncryptionPrivateKey: f.EncryptionPrivateKey, ServicePrivateKey: f.ServicePrivateKey}
	if f.Sealed != "" {
		if priv, err = openPrivateKeys(f.Sealed, ring); err != nil {
			return nil, nil, fmt.Errorf("auth proxy identity %s: %w", path, err)
		}
	}
	id, err := parseIdentity(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("auth proxy identity %s: %w", path, err)
	}
	return id, &f, nil
}

func openPrivateKeys(sealed string, ring *seal.Keyring) (privateKeys, error) {
	var priv privateKeys
	if ring == nil {
		return priv, ErrSealed
	}
	blob, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return priv, errors.New("sealed is not base64")
	}
	raw, err := ring.Open(blob, sealedIdentityAAD)
	if err != nil {
		return priv, err
	}
	defer keys.Zero(raw)
	if err := json.Unmarshal(raw, &priv); err != nil {
		return priv, errors.New("the sealed private keys are not valid JSON")
	}
	return priv, nil
}

func parseIdentity(priv privateKeys) (*Identity, error) {
	raw, err := hex.DecodeString(priv.EncryptionPrivateKey)
	if err != nil {
		return nil, errors.New("encryptionPrivateKey is not hex")
	}
	defer keys.Zero(raw)
	enc, err := bundle.ParseTargetKey(raw)
	if err != nil {
		return nil, err
	}
	svc, err := stamp.ParseAPIKey(stamp.CurveP256, priv.ServicePrivateKey)
	if err != nil {
		return nil, fmt.Errorf("servicePrivateKey: %w", err)
	}
	return &Identity{EncryptionKey: enc, ServiceKey: svc}, nil
}

func needsRewrap(ring *seal.Keyring, sealed string) bool {
	blob, err := base64.StdEncoding.DecodeString(sealed)
	return err == nil && ring.NeedsRewrap(blob)
}

// Save writes the identity readable by its owner only: its private keys sealed under ring, or in clear without one.
func (id *Identity) Save(path string, ring *seal.Keyring) error {
	priv := privateKeys{EncryptionPrivateKey: hex.EncodeToString(id.EncryptionKey.Bytes()), ServicePrivateKey: id.ServiceKey.PrivateKeyHex()}
	f := identityFile{EncryptionPublicKey: hex.EncodeToString(id.EncryptionPublicKey().Bytes()), ServicePublicKey: id.ServicePublicKey()}
	if ring == nil {
		f.EncryptionPrivateKey, f.ServicePrivateKey = priv.EncryptionPrivateKey, priv.ServicePrivateKey
	} else {
		raw, err := json.Marshal(priv)
		if err != nil {
			return err
		}
		blob, err := ring.Seal(raw, sealedIdentityAAD)
		keys.Zero(raw)
		if err != nil {
			return err
		}
		f.Sealed = base64.StdEncoding.EncodeToString(blob)
	}
	data, err := json.MarshalIndent(f, "", "  ")
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
