package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// bootstrapFile is DIR/bootstrap.json: what the first start of the stack created and where each service listens.
// Fields of parts that are not running are absent.
type bootstrapFile struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId"`
	APIPublicKey   string `json:"apiPublicKey"`
	APIPrivateKey  string `json:"apiPrivateKey"`
	CoordinatorURL string `json:"coordinatorUrl"`
	// DevOutboxURL lists the OTP messages the dev outbox received (sigil up only).
	DevOutboxURL string `json:"devOutboxUrl,omitempty"`
	// The dev chain: its JSON-RPC URL and chain id, the faucet, the yield service's network id for it, and the
	// deployed contracts by name.
	ChainRPCURL string            `json:"chainRpcUrl,omitempty"`
	ChainID     int64             `json:"chainId,omitempty"`
	FaucetURL   string            `json:"faucetUrl,omitempty"`
	Network     string            `json:"network,omitempty"`
	Contracts   map[string]string `json:"contracts,omitempty"`
	// The yield service, and API keys of two projects: one on the 10% fee set, one on the 20% set.
	YieldURL      string `json:"yieldUrl,omitempty"`
	YieldAPIKey   string `json:"yieldApiKey,omitempty"`
	YieldAPIKey20 string `json:"yieldApiKey20,omitempty"`
	// The auth proxy, the root organization's proxy configuration, and the organization dashboard.
	AuthProxyURL      string `json:"authProxyUrl,omitempty"`
	AuthProxyConfigID string `json:"authProxyConfigId,omitempty"`
	DashboardURL      string `json:"dashboardUrl,omitempty"`
}

// setDevOutboxURL records where the dev outbox is served.
func setDevOutboxURL(dir, url string) error {
	b, err := readBootstrap(dir)
	if err != nil {
		return err
	}
	b.DevOutboxURL = url
	return writeBootstrap(dir, b)
}

func bootstrapPath(dir string) string { return filepath.Join(dir, "bootstrap.json") }

func readBootstrap(dir string) (*bootstrapFile, error) {
	data, err := os.ReadFile(bootstrapPath(dir))
	if err != nil {
		return nil, fmt.Errorf("read %s (has `sigil up --dir %s` run?): %w", bootstrapPath(dir), dir, err)
	}
	var b bootstrapFile
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", bootstrapPath(dir), err)
	}
	return &b, nil
}

// writeBootstrap writes the file readable by its owner only: it holds the root user's private key.
func writeBootstrap(dir string, b *bootstrapFile) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	tmp := bootstrapPath(dir) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, bootstrapPath(dir))
}
