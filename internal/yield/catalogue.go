package yield

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Catalogue is the configuration file of networks, providers and yields the service offers. The same file describes
// the dev chain's contracts (internal/chain/devcatalogue writes theirs) or real deployments (an ERC-4626 vault, an
// Aave v3 pool) by address.
type Catalogue struct {
	Networks  []Network     `json:"networks"`
	Providers []Provider    `json:"providers"`
	Yields    []YieldConfig `json:"yields"`
	// Markets are the lending markets of the Borrow API (borrow_catalogue.go).
	Markets []MarketConfig `json:"markets,omitempty"`
}

// Network is one EVM network.
type Network struct {
	ID          string `json:"id"` // e.g. "ethereum", "base", "sigil-dev"
	Name        string `json:"name"`
	ChainID     int64  `json:"chainId"`
	RPCURL      string `json:"rpcUrl"`
	ExplorerURL string `json:"explorerUrl,omitempty"` // a transaction's page is ExplorerURL + "/tx/" + hash
	LogoURI     string `json:"logoURI,omitempty"`
	NativeToken Token  `json:"nativeToken"` // pays gas; the token of native staking (no address)
}

// Provider is a protocol or a validator provider.
type Provider struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"` // "protocol" or "validator_provider"
	Description string `json:"description,omitempty"`
	Website     string `json:"website,omitempty"`
	LogoURI     string `json:"logoURI,omitempty"`
}

// Token is an ERC-20 token, or the network's native token when Address is empty.
type Token struct {
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals uint8  `json:"decimals"`
	Address  string `json:"address,omitempty"`
	LogoURI  string `json:"logoURI,omitempty"`
	// AllowanceReset marks a token that refuses changing a non-zero allowance to another non-zero value (USDT on
	// Ethereum): an enter whose allowance is non-zero but short first approves 0. Other tokens skip that transaction.
	AllowanceReset bool `json:"allowanceReset,omitempty"`
}

// Kinds of yield, one transaction builder each. A deposit fee on an ERC-4626 vault or a staking yield goes through a
// fee wrapper contract (the fee-wrapped deposit builder).
const (
	KindERC4626         = "erc4626-vault"
	KindAllocatorVault  = "allocator-vault"
	KindLending         = "lending" // Aave v3 Pool signatures
	KindNativeStaking   = "native-staking"
	KindProviderStaking = "provider-staking"
)

// YieldConfig is one yield opportunity.
type YieldConfig struct {
	// ID is derived from the other fields when empty, in the seed's shapes:
	// <network>-<token>-<slug>-<vault address>-4626-vault, <network>-<token>-<slug>-lending,
	// <network>-<native token>-native-staking, <network>-<native token>-<slug>-staking.
	ID          string `json:"id,omitempty"`
	Kind        string `json:"kind"`
	Network     string `json:"network"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	ProviderID  string `json:"providerId"`
	// Slug is the vault name (default: the share symbol), the lending protocol or the staking provider in the id
	// (default: ProviderID).
	Slug        string    `json:"slug,omitempty"`
	Token       Token     `json:"token"`                 // what is deposited; no address for native staking
	OutputToken *Token    `json:"outputToken,omitempty"` // vault share, aToken or liquid staking token
	Contracts   Contracts `json:"contracts"`
	Fees        Fees      `json:"fees"`
	// FeeSets lists the fee sets (10, 20) whose API keys see this yield; empty means every set.
	FeeSets     []int        `json:"feeSets,omitempty"`
	Status      *YieldStatus `json:"status,omitempty"` // default: enter and exit allowed
	EntryLimits *EntryLimits `json:"entryLimits,omitempty"`
	// CooldownSeconds is the unstaking cooldown of staking yields.
	CooldownSeconds int64 `json:"cooldownSeconds,omitempty"`
	// Audits are the security audits of the yield's contracts, shown by GET /v1/yields/{id}/risk.
	Audits []Audit `json:"audits,omitempty"`
}

// Audit is one security audit of a yield's contracts.
type Audit struct {
	Auditor string `json:"auditor"`
	Date    string `json:"date,omitempty"` // YYYY-MM-DD
	URL     string `json:"url,omitempty"`  // the report
}

// Contracts are a yield's contract addresses; which ones are required depends on the kind.
type Contracts struct {
	Vault      string `json:"vault,omitempty"`      // ERC-4626 and allocator vaults
	Pool       string `json:"pool,omitempty"`       // lending: the Aave v3 Pool
	Staking    string `json:"staking,omitempty"`    // native and provider staking
	FeeWrapper string `json:"feeWrapper,omitempty"` // required with a deposit fee outside an allocator vault
}

// Fees is a yield's fee configuration, in basis points of what the user pays.
type Fees struct {
	DepositBps     int64 `json:"depositBps,omitempty"`
	PerformanceBps int64 `json:"performanceBps,omitempty"`
	ManagementBps  int64 `json:"managementBps,omitempty"`
}

// YieldStatus says whether new enter and exit actions are built.
type YieldStatus struct {
	Enter bool `json:"enter"`
	Exit  bool `json:"exit"`
}

// EntryLimits bound one enter amount, in token units; empty means no bound.
type EntryLimits struct {
	Minimum string `json:"minimum,omitempty"`
	Maximum string `json:"maximum,omitempty"`
}

// Fee limits. An allocator vault's performance fee can never be below the service's 10% minimum.
const (
	MinAllocatorPerformanceFeeBps = 1_000
	maxAllocatorPerformanceFeeBps = 5_000
	maxAllocatorManagementFeeBps  = 500
	maxAllocatorDepositFeeBps     = 200
	maxWrapperDepositFeeBps       = 1_000
)

// DefaultCatalogueFile is the catalogue's file name in a data directory; sigil up writes the dev chain's there.
const DefaultCatalogueFile = "yield-catalogue.json"

// FeeSets are the two pre-configured fee sets a project (and so each of its API keys) can be on.
var FeeSets = []int{10, 20}

// LoadCatalogue reads and validates a catalogue file.
func LoadCatalogue(path string) (Catalogue, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Catalogue{}, fmt.Errorf("yield: read catalogue: %w", err)
	}
	var c Catalogue
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Catalogue{}, fmt.Errorf("yield: catalogue %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return Catalogue{}, fmt.Errorf("yield: catalogue %s: %w", path, err)
	}
	return c, nil
}

// WriteCatalogue writes c to path (created with mode 0600, replaced atomically).
func WriteCatalogue(path string, c Catalogue) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Validate checks the catalogue and fills in derived ids. It refuses a fee configuration the contracts would not
// honour, in particular an allocator vault's performance fee below the 10% minimum.
func (c *Catalogue) Validate() error {
	var errs []error
	networks := map[string]*Network{}
	for i := range c.Networks {
		n := &c.Networks[i]
		if err := n.validate(); err != nil {
			errs = append(errs, fmt.Errorf("networks[%d]: %w", i, err))
			continue
		}
		if networks[n.ID] != nil {
			errs = append(errs, fmt.Errorf("networks[%d]: id %q appears twice", i, n.ID))
		}
		networks[n.ID] = n
	}
	providers := map[string]bool{}
	for i, p := range c.Providers {
		if p.ID == "" || p.Name == "" {
			errs = append(errs, fmt.Errorf("providers[%d]: id and name are required", i))
		}
		if p.Type != "protocol" && p.Type != "validator_provider" {
			errs = append(errs, fmt.Errorf("providers[%d]: type must be protocol or validator_provider, got %q", i, p.Type))
		}
		providers[p.ID] = true
	}
	ids := map[string]bool{}
	for i := range c.Yields {
		y := &c.Yields[i]
		n := networks[y.Network]
		if n == nil {
			errs = append(errs, fmt.Errorf("yields[%d]: unknown network %q", i, y.Network))
			continue
		}
		if !providers[y.ProviderID] {
			errs = append(errs, fmt.Errorf("yields[%d]: unknown providerId %q", i, y.ProviderID))
		}
		if err := y.validate(n); err != nil {
			errs = append(errs, fmt.Errorf("yields[%d] (%s): %w", i, y.Name, err))
			continue
		}
		if y.ID == "" {
			y.ID = y.derivedID(n)
		}
		if ids[y.ID] {
			errs = append(errs, fmt.Errorf("yields[%d]: id %q appears twice", i, y.ID))
		}
		ids[y.ID] = true
	}
	errs = append(errs, c.validateMarkets(networks)...)
	return errors.Join(errs...)
}

func (n *Network) validate() error {
	switch {
	case n.ID == "" || n.ID != strings.ToLower(n.ID) || strings.ContainsAny(n.ID, " /"):
		return fmt.Errorf("id %q must be a lower-case slug", n.ID)
	case n.ChainID <= 0:
		return fmt.Errorf("chainId must be positive")
	case !strings.HasPrefix(n.RPCURL, "http://") && !strings.HasPrefix(n.RPCURL, "https://"):
		return fmt.Errorf("rpcUrl %q must be an http(s) URL", n.RPCURL)
	case n.NativeToken.Symbol == "" || n.NativeToken.Address != "":
		return fmt.Errorf("nativeToken needs a symbol and no address")
	}
	return nil
}

func (y *YieldConfig) validate(n *Network) error {
	if y.Name == "" {
		return errors.New("name is required")
	}
	if err := y.Token.validate("token", y.Kind == KindNativeStaking || y.Kind == KindProviderStaking); err != nil {
		return err
	}
	if y.OutputToken != nil {
		if err := y.OutputToken.validate("outputToken", false); err != nil {
			return err
		}
	}
	for _, set := range y.FeeSets {
		if !slices.Contains(FeeSets, set) {
			return fmt.Errorf("feeSets: %d is not a fee set (10 or 20)", set)
		}
	}
	if err := y.validateContracts(); err != nil {
		return err
	}
	if err := y.validateFees(); err != nil {
		return err
	}
	for i, a := range y.Audits {
		if err := a.validate(); err != nil {
			return fmt.Errorf("audits[%d]: %w", i, err)
		}
	}
	if l := y.EntryLimits; l != nil {
		for field, v := range map[string]string{"minimum": l.Minimum, "maximum": l.Maximum} {
			if v == "" {
				continue
			}
			if _, err := parseAmount("entryLimits."+field, v, y.Token.Decimals, y.Token.Symbol); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a Audit) validate() error {
	if a.Auditor == "" {
		return errors.New("auditor is required")
	}
	if a.Date != "" {
		if _, err := time.Parse(time.DateOnly, a.Date); err != nil {
			return fmt.Errorf("date %q is not YYYY-MM-DD", a.Date)
		}
	}
	if a.URL != "" && !strings.HasPrefix(a.URL, "https://") && !strings.HasPrefix(a.URL, "http://") {
		return fmt.Errorf("url %q must be an http(s) URL", a.URL)
	}
	return nil
}

func (t Token) validate(field string, native bool) error {
	if t.Symbol == "" {
		return fmt.Errorf("%s.symbol is required", field)
	}
	if native {
		if t.Address != "" {
			return fmt.Errorf("%s: staking takes the native token, which has no address", field)
		}
		return nil
	}
	if !common.IsHexAddress(t.Address) {
		return fmt.Errorf("%s.address %q is not an address", field, t.Address)
	}
	return nil
}

func (y *YieldConfig) validateContracts() error {
	need := func(name, addr string) error {
		if !common.IsHexAddress(addr) {
			return fmt.Errorf("contracts.%s %q is required for a %s yield and must be an address", name, addr, y.Kind)
		}
		return nil
	}
	var err error
	switch y.Kind {
	case KindERC4626, KindAllocatorVault:
		err = need("vault", y.Contracts.Vault)
		if err == nil && y.OutputToken == nil {
			err = errors.New("outputToken (the vault share) is required")
		}
		if err == nil && !strings.EqualFold(y.OutputToken.Address, y.Contracts.Vault) {
			err = errors.New("outputToken.address must be the vault: a vault's shares are its own token")
		}
	case KindLending:
		err = need("pool", y.Contracts.Pool)
		if err == nil && y.OutputToken == nil {
			err = errors.New("outputToken (the aToken) is required")
		}
	case KindNativeStaking:
		err = need("staking", y.Contracts.Staking)
	case KindProviderStaking:
		err = need("staking", y.Contracts.Staking)
		if err == nil && y.OutputToken == nil {
			err = errors.New("outputToken (the liquid staking token) is required")
		}
	default:
		return fmt.Errorf("kind %q is not one of %s, %s, %s, %s, %s", y.Kind, KindERC4626, KindAllocatorVault, KindLending,
			KindNativeStaking, KindProviderStaking)
	}
	if err == nil && y.Contracts.FeeWrapper != "" {
		err = need("feeWrapper", y.Contracts.FeeWrapper)
	}
	return err
}

func (y *YieldConfig) validateFees() error {
	f := y.Fees
	if f.DepositBps < 0 || f.PerformanceBps < 0 || f.ManagementBps < 0 {
		return errors.New("fees cannot be negative")
	}
	if y.Kind == KindAllocatorVault {
		switch {
		case f.PerformanceBps < MinAllocatorPerformanceFeeBps:
			return fmt.Errorf("fees.performanceBps %d is below the %d bps (10%%) minimum performance fee of an allocator vault",
				f.PerformanceBps, MinAllocatorPerformanceFeeBps)
		case f.PerformanceBps > maxAllocatorPerformanceFeeBps:
			return fmt.Errorf("fees.performanceBps %d is above the allocator vault's maximum of %d", f.PerformanceBps, maxAllocatorPerformanceFeeBps)
		case f.ManagementBps > maxAllocatorManagementFeeBps:
			return fmt.Errorf("fees.managementBps %d is above the allocator vault's maximum of %d", f.ManagementBps, maxAllocatorManagementFeeBps)
		case f.DepositBps > maxAllocatorDepositFeeBps:
			return fmt.Errorf("fees.depositBps %d is above the allocator vault's maximum of %d", f.DepositBps, maxAllocatorDepositFeeBps)
		case y.Contracts.FeeWrapper != "":
			return errors.New("contracts.feeWrapper: an allocator vault takes its deposit fee itself")
		}
		return nil
	}
	if f.PerformanceBps != 0 || f.ManagementBps != 0 {
		return errors.New("fees: performance and management fees need an allocator vault (kind allocator-vault)")
	}
	if f.DepositBps == 0 {
		return nil
	}
	if y.Kind == KindLending {
		return errors.New("fees.depositBps: the fee wrapper takes deposit fees on ERC-4626 vaults and staking, not on lending")
	}
	if y.Contracts.FeeWrapper == "" {
		return errors.New("fees.depositBps needs contracts.feeWrapper, which takes the fee atomically")
	}
	if f.DepositBps > maxWrapperDepositFeeBps {
		return fmt.Errorf("fees.depositBps %d is above the fee wrapper's maximum of %d", f.DepositBps, maxWrapperDepositFeeBps)
	}
	return nil
}

// derivedID builds the yield id in the seed's shapes, lower-case.
func (y *YieldConfig) derivedID(n *Network) string {
	token := strings.ToLower(y.Token.Symbol)
	slug := strings.ToLower(y.Slug)
	if slug == "" {
		slug = strings.ToLower(y.ProviderID)
		if (y.Kind == KindERC4626 || y.Kind == KindAllocatorVault) && y.OutputToken != nil {
			slug = strings.ToLower(y.OutputToken.Symbol)
		}
	}
	switch y.Kind {
	case KindERC4626, KindAllocatorVault:
		return fmt.Sprintf("%s-%s-%s-%s-4626-vault", n.ID, token, slug, strings.ToLower(y.Contracts.Vault))
	case KindLending:
		return fmt.Sprintf("%s-%s-%s-lending", n.ID, token, slug)
	case KindNativeStaking:
		return fmt.Sprintf("%s-%s-native-staking", n.ID, strings.ToLower(n.NativeToken.Symbol))
	default:
		return fmt.Sprintf("%s-%s-%s-staking", n.ID, strings.ToLower(n.NativeToken.Symbol), slug)
	}
}

// visibleTo reports whether keys of a fee set see the yield.
func (y *YieldConfig) visibleTo(feeSet int) bool {
	return len(y.FeeSets) == 0 || slices.Contains(y.FeeSets, feeSet)
}

func (y *YieldConfig) status() YieldStatus {
	if y.Status == nil {
		return YieldStatus{Enter: true, Exit: true}
	}
	return *y.Status
}

// feeWrapped reports whether deposits go through the fee wrapper.
func (y *YieldConfig) feeWrapped() bool {
	return y.Kind != KindAllocatorVault && y.Fees.DepositBps > 0
}
