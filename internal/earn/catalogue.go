package earn

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// The providers of the curated vaults, as the reference names them.
const (
	ProviderMorpho = "EARN_PROVIDER_MORPHO"
	ProviderAave   = "EARN_PROVIDER_AAVE"
)

// MaxClientFeeBps is the most a client may take of the yield (the reference's cap, and EarnWrapper's), and
// MaxTotalFeeBps the most the client's and the platform's fees may take together.
const (
	MaxClientFeeBps = 4000
	MaxTotalFeeBps  = 5000
)

// Catalogue is every network's Earn deployment and curated vaults. The dev chain's is made from its fixtures
// (internal/chain/devearn); a deployment on real networks reads one from a file (Load).
type Catalogue struct {
	Networks []Network `json:"networks"`
}

// Network is Earn on one EVM network: the factory that deploys wrappers (and fixes the platform's fee), the reward
// distributor and the Merkl-compatible API that serves its reward trees, and the vaults offered.
type Network struct {
	CAIP2 string `json:"caip2"` // eip155:<chain id>; the coordinator sends on it (a send network of the same id)
	// Factory is the EarnWrapperFactory (internal/contracts/src/EarnWrapperFactory.sol).
	Factory common.Address `json:"factory"`
	// Distributor is the reward distributor (Merkl's Distributor, or the dev chain's EarnRewardDistributor), and
	// RewardsAPI the base URL of the API serving its trees in Merkl's v4 shape (GET /v4/users/{address}/rewards).
	Distributor common.Address `json:"rewardDistributor"`
	RewardsAPI  string         `json:"rewardsApi"`
	Vaults      []Vault        `json:"vaults"`
}

// Vault is one curated vault: an ERC-4626 vault over Morpho Blue markets, or an Aave v3 reserve (whose catalogue
// address is the reserve's asset, as the reference lists it).
type Vault struct {
	Address  common.Address `json:"address"`
	Provider string         `json:"provider"`
	Name     string         `json:"name"`
	Curator  string         `json:"curator,omitempty"`
	Asset    Asset          `json:"asset"`
	// Morpho: Morpho Blue and the ids of the markets the vault supplies to (APY and exposures are read from them).
	Morpho    common.Address `json:"morpho,omitempty"`
	MarketIDs []common.Hash  `json:"marketIds,omitempty"`
	// Aave: the Pool of the reserve.
	AavePool common.Address `json:"aavePool,omitempty"`
}

// Asset is a vault's underlying token, with the price at which its amounts are shown in USD and sorted by.
type Asset struct {
	Address  common.Address `json:"address"`
	Symbol   string         `json:"symbol"`
	Decimals int            `json:"decimals"`
	PriceUSD float64        `json:"priceUsd"`
}

// Load reads a catalogue file (JSON, the shape of Catalogue) and checks it.
func Load(path string) (*Catalogue, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Catalogue
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, c.Check()
}

// Check refuses a catalogue the activities could not use: a network without a factory, a vault of an unknown
// provider or without what its provider needs, a vault listed twice.
func (c *Catalogue) Check() error {
	var errs []error
	seen := map[string]bool{}
	for i, n := range c.Networks {
		at := fmt.Sprintf("networks[%d] (%s)", i, n.CAIP2)
		if !strings.HasPrefix(n.CAIP2, "eip155:") || seen[n.CAIP2] {
			errs = append(errs, fmt.Errorf("%s: caip2 must be an EVM network listed once", at))
		}
		seen[n.CAIP2] = true
		if n.Factory == (common.Address{}) {
			errs = append(errs, fmt.Errorf("%s: factory is required", at))
		}
		vaults := map[common.Address]bool{}
		for j, v := range n.Vaults {
			vat := fmt.Sprintf("%s.vaults[%d]", at, j)
			switch {
			case vaults[v.Address]:
				errs = append(errs, fmt.Errorf("%s: %s is listed twice", vat, v.Address.Hex()))
			case v.Provider == ProviderMorpho && (v.Morpho == (common.Address{}) || len(v.MarketIDs) == 0):
				errs = append(errs, fmt.Errorf("%s: a Morpho vault needs morpho and marketIds", vat))
			case v.Provider == ProviderAave && (v.AavePool == (common.Address{}) || v.Address != v.Asset.Address):
				errs = append(errs, fmt.Errorf("%s: an Aave reserve needs aavePool, and its address is its asset's", vat))
			case v.Provider != ProviderMorpho && v.Provider != ProviderAave:
				errs = append(errs, fmt.Errorf("%s: provider %q is not %s or %s", vat, v.Provider, ProviderMorpho, ProviderAave))
			case v.Asset.Decimals < 0 || v.Asset.Decimals > 36:
				errs = append(errs, fmt.Errorf("%s: asset decimals %d", vat, v.Asset.Decimals))
			}
			vaults[v.Address] = true
		}
	}
	return errors.Join(errs...)
}

// Network is the Earn deployment of a CAIP-2 id; false when there is none.
func (c *Catalogue) Network(caip2 string) (*Network, bool) {
	if c == nil {
		return nil, false
	}
	for i := range c.Networks {
		if c.Networks[i].CAIP2 == caip2 {
			return &c.Networks[i], true
		}
	}
	return nil, false
}

// Vault is the curated vault at an address (case-insensitive hex); false when the network offers none there.
func (n *Network) Vault(address string) (*Vault, bool) {
	if !common.IsHexAddress(address) {
		return nil, false
	}
	a := common.HexToAddress(address)
	for i := range n.Vaults {
		if n.Vaults[i].Address == a {
			return &n.Vaults[i], true
		}
	}
	return nil, false
}

// CAIP19 is the vault's asset as a CAIP-19 id on its network: eip155:<chain>/erc20:<address, lower case>.
func (n *Network) CAIP19(v *Vault) string {
	return n.CAIP2 + "/erc20:" + strings.ToLower(v.Asset.Address.Hex())
}
