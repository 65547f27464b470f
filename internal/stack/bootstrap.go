package stack

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/yield"
	"github.com/sigil/sigil/stamp"
)

// BootstrapFile is the name of the bootstrap record in the data directory.
const BootstrapFile = "bootstrap.json"

// Bootstrap is DIR/bootstrap.json: what the first start of the stack created and where each service listens. Fields
// of parts that are not running are absent. The file holds the root user's private key and is readable by its owner
// only: in clear in dev mode (APIPrivateKey, what sigil api and sigil demo stamp with), sealed under the master key in
// production mode (APIPrivateKeySealed, the base64 of a seal blob: sigil keys root opens it into a key file).
type Bootstrap struct {
	OrganizationID      string `json:"organizationId"`
	UserID              string `json:"userId"`
	APIPublicKey        string `json:"apiPublicKey"`
	APIPrivateKey       string `json:"apiPrivateKey,omitempty"`
	APIPrivateKeySealed string `json:"apiPrivateKeySealed,omitempty"`
	CoordinatorURL      string `json:"coordinatorUrl"`
	// DevOutboxURL lists the OTP messages the dev outbox received.
	DevOutboxURL string `json:"devOutboxUrl,omitempty"`
	// The dev chain: its JSON-RPC URL and chain id, the faucet, the yield service's network id for it, and the
	// deployed contracts by name.
	ChainRPCURL string            `json:"chainRpcUrl,omitempty"`
	ChainID     int64             `json:"chainId,omitempty"`
	FaucetURL   string            `json:"faucetUrl,omitempty"`
	Network     string            `json:"network,omitempty"`
	Contracts   map[string]string `json:"contracts,omitempty"`
	// Chains lists every dev chain, the one above first.
	Chains []chain.Bootstrap `json:"chains,omitempty"`
	// Solana is the Solana dev node: its JSON-RPC URL, CAIP-2 id, genesis hash and faucet (requestAirdrop).
	Solana *solanadev.Bootstrap `json:"solana,omitempty"`
	// The yield service, and API keys of two projects: one on the 10% fee set, one on the 20% set.
	YieldURL      string `json:"yieldUrl,omitempty"`
	YieldAPIKey   string `json:"yieldApiKey,omitempty"`
	YieldAPIKey20 string `json:"yieldApiKey20,omitempty"`
	// The auth proxy, the root organization's proxy configuration, and the organization dashboard.
	AuthProxyURL      string `json:"authProxyUrl,omitempty"`
	AuthProxyConfigID string `json:"authProxyConfigId,omitempty"`
	DashboardURL      string `json:"dashboardUrl,omitempty"`
	// FramesURL serves the export, import and export-and-sign frames: /export, /import, /export-and-sign, what
	// @turnkey/react-wallet-kit takes as exportIframeUrl and importIframeUrl.
	FramesURL string `json:"framesUrl,omitempty"`
}

// ErrRootKeySealed reports a root key that bootstrap.json holds sealed (production mode), asked for without the
// master key.
var ErrRootKeySealed = errors.New("bootstrap.json holds the root key sealed under the master key (sigil up --prod): " +
	"write it to a key file with sigil keys root --out FILE, given the master key, and pass --key FILE")

// RootKey is the root user's API key, as dev mode keeps it.
func (b *Bootstrap) RootKey() (*stamp.APIKey, error) { return b.OpenRootKey(nil) }

// OpenRootKey is the root user's API key, opening with the master key one that production mode sealed.
func (b *Bootstrap) OpenRootKey(ring *seal.Keyring) (*stamp.APIKey, error) {
	hexKey := b.APIPrivateKey
	if hexKey == "" && b.APIPrivateKeySealed != "" {
		if ring == nil {
			return nil, ErrRootKeySealed
		}
		blob, err := base64.StdEncoding.DecodeString(b.APIPrivateKeySealed)
		if err != nil {
			return nil, errors.New("bootstrap.json apiPrivateKeySealed is not base64")
		}
		raw, err := ring.Open(blob, b.rootKeyAAD())
		if err != nil {
			return nil, fmt.Errorf("bootstrap.json apiPrivateKeySealed: %w", err)
		}
		hexKey = string(raw)
		defer clear(raw)
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, hexKey)
	if err != nil {
		return nil, fmt.Errorf("bootstrap.json apiPrivateKey: %w", err)
	}
	return key, nil
}

// SealRootKey keeps the root key sealed under the active master key version, and nowhere in clear. It reports
// whether the record changed: a key in clear, or sealed under an older version, is sealed again.
func (b *Bootstrap) SealRootKey(ring *seal.Keyring) (bool, error) {
	if b.APIPrivateKey == "" {
		blob, err := base64.StdEncoding.DecodeString(b.APIPrivateKeySealed)
		if err != nil || !ring.NeedsRewrap(blob) {
			return false, err
		}
		if blob, err = ring.Rewrap(blob); err != nil {
			return false, err
		}
		b.APIPrivateKeySealed = base64.StdEncoding.EncodeToString(blob)
		return true, nil
	}
	if _, err := b.RootKey(); err != nil {
		return false, err
	}
	blob, err := ring.Seal([]byte(b.APIPrivateKey), b.rootKeyAAD())
	if err != nil {
		return false, err
	}
	b.APIPrivateKey, b.APIPrivateKeySealed = "", base64.StdEncoding.EncodeToString(blob)
	return true, nil
}

// rootKeyAAD binds the sealed root key to its purpose and organization.
func (b *Bootstrap) rootKeyAAD() []byte {
	return []byte("sigil/bootstrap.json/apiPrivateKey/" + b.OrganizationID)
}

// BootstrapPath is DIR/bootstrap.json.
func BootstrapPath(dir string) string { return filepath.Join(dir, BootstrapFile) }

// ReadBootstrap reads DIR/bootstrap.json. A missing file is an error that wraps os.ErrNotExist.
func ReadBootstrap(dir string) (*Bootstrap, error) {
	data, err := os.ReadFile(BootstrapPath(dir))
	if err != nil {
		return nil, fmt.Errorf("read %s (has sigil up --dir %s run?): %w", BootstrapPath(dir), dir, err)
	}
	var b Bootstrap
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", BootstrapPath(dir), err)
	}
	return &b, nil
}

// WriteBootstrap replaces DIR/bootstrap.json, readable by its owner only: it holds the root user's private key.
func WriteBootstrap(dir string, b *Bootstrap) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	tmp := BootstrapPath(dir) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, BootstrapPath(dir))
}

// ensureRoot returns the record of DIR/bootstrap.json, or on the first start creates the root organization (a root
// user with a P-256 API key) and records it at once, so that its key is never lost whatever fails next. With a
// keyring (production mode) the record holds the root key sealed under it, never in clear: one written in clear
// before is sealed in place. A start with no record over a database that has its root organization (another
// process's first start, with another --dir) is refused: only that start's record holds the root user's key.
func ensureRoot(ctx context.Context, coord *coordinator.Coordinator, dir string, ring *seal.Keyring) (Bootstrap, error) {
	b, err := ReadBootstrap(dir)
	if err == nil {
		if ring == nil {
			return *b, nil
		}
		changed, err := b.SealRootKey(ring)
		if err != nil || !changed {
			return *b, err
		}
		return *b, WriteBootstrap(dir, b)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return Bootstrap{}, err
	}
	boot, err := coord.CreateFirstRootOrganization(ctx, "Sigil", "root")
	if exists := (*coordinator.RootExistsError)(nil); errors.As(err, &exists) {
		return Bootstrap{}, fmt.Errorf("%s has no %s, but the database already has its root organization %s, created by the "+
			"first start over it: copy that start's %s (and %s) into %s (every process over one database serves the same root "+
			"organization; only that file holds its root user's key), or give this start a database of its own",
			dir, BootstrapFile, exists.OrganizationID, BootstrapFile, AuthProxyIdentityFile, dir)
	}
	if err != nil {
		return Bootstrap{}, err
	}
	root := Bootstrap{OrganizationID: boot.OrganizationID, UserID: boot.UserID, APIPublicKey: boot.APIKey.PublicKeyHex(),
		APIPrivateKey: boot.APIKey.PrivateKeyHex()}
	if ring != nil {
		if _, err := root.SealRootKey(ring); err != nil {
			return Bootstrap{}, err
		}
	}
	return root, WriteBootstrap(dir, &root)
}

// ensureYieldKeys creates each dev project's yield API key that b lacks (one project per fee set), so that a file
// written before one of them existed gets it on the next start; keys it holds are kept.
func ensureYieldKeys(ctx context.Context, svc *yield.Service, b *Bootstrap) error {
	for _, k := range []struct {
		project string
		feeSet  int
		key     *string
	}{{"sigil-dev", 10, &b.YieldAPIKey}, {"sigil-dev-20", 20, &b.YieldAPIKey20}} {
		if *k.key == "" {
			var err error
			if *k.key, err = svc.CreateAPIKey(ctx, k.project, k.feeSet); err != nil {
				return err
			}
		}
	}
	return nil
}

// ensureRootAuthProxy enables the root organization's proxy on the first start (every origin, e-mail OTP), and on
// later starts rotates its key if it is encrypted to another identity (a lost identity file). It returns the
// configuration id. It talks to the coordinator through h, its HTTP handler, in this process: the coordinator need
// not listen yet.
func ensureRootAuthProxy(ctx context.Context, h http.Handler, id *authproxy.Identity, b *Bootstrap, ring *seal.Keyring) (string, error) {
	key, err := b.OpenRootKey(ring)
	if err != nil {
		return "", err
	}
	root := client.NewInProcess(h, key)
	if b.AuthProxyConfigID == "" {
		enabled, _, err := root.EnableAuthProxy(ctx, b.OrganizationID)
		if err != nil {
			return "", err
		}
		_, _, err = root.UpdateAuthProxyConfig(ctx, b.OrganizationID, api.UpdateAuthProxyConfigIntent{
			AllowedOrigins: []string{"*"}, AllowedAuthMethods: []string{api.AuthMethodEmail}})
		return enabled.ConfigID, err
	}
	resolved, err := client.NewInProcess(h, id.ServiceKey).ResolveAuthProxyConfig(ctx, b.AuthProxyConfigID)
	if err != nil {
		return "", err
	}
	own := fmt.Sprintf("%x", id.EncryptionPublicKey().Bytes())
	if resolved.Config.Enabled && resolved.EncryptionPublicKey != own {
		if _, _, err := root.RotateAuthProxyKey(ctx, b.OrganizationID); err != nil {
			return "", err
		}
	}
	return b.AuthProxyConfigID, nil
}
