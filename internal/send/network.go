package send

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/internal/evm"
)

// Network is a network sends go to: an EVM network, or a Solana cluster (a CAIP-2 id solana:..., see solana.go).
type Network struct {
	CAIP2       string // eip155:<chain id>, or solana:<genesis hash, its first 32 characters>
	ChainID     int64
	Name        string
	RPCURL      string
	ExplorerURL string // a transaction's page is ExplorerURL + "/tx/" + hash; "" for none
	// BatchDelegate is the contract accounts delegate to (EIP-7702) to send several calls as one transaction
	// (internal/contracts/src/BatchDelegate.sol); zero when the network has none, and batches are refused.
	BatchDelegate common.Address
	// GasStation is what the organizations' gas sponsors call to run sponsored sends (internal/contracts/src/GasStation.sol),
	// the station BatchDelegate takes them from; zero when the network has none, and sponsored sends are refused.
	GasStation common.Address
	// NativeUSD is the price of the network's native coin in USD, at which sponsored gas is counted against the
	// organizations' limits (0: it counts nothing).
	NativeUSD float64
	// SponsorMaxFeePerGas caps the fee per gas (wei) of the transactions the organizations' gas sponsors send: a
	// sponsored send's fees are the server's own estimate, never above it (nil: DefaultSponsorMaxFeePerGas).
	SponsorMaxFeePerGas *big.Int
	// MaxTxGas is the most gas one transaction may use on the network (0: EIP-7825's 2^24, the rule since Osaka).
	MaxTxGas uint64
	// PollInterval is how often the worker looks for sends to move on (default 500 ms).
	PollInterval time.Duration
	// NativeToken and Tokens are the network's assets as the coordinator's chain data reports them (balances,
	// supported assets, histories): its coin (default ETH, or SOL) and the ERC-20 tokens or SPL mints it lists.
	NativeToken Token
	Tokens      []Token
}

// Token is an asset of a network: an ERC-20 token or SPL mint (Address), or the network's coin (no Address). An ERC-20
// token given by its address alone has its symbol, name and decimals read from its contract.
type Token struct {
	Address  string `json:"address,omitempty"` // an ERC-20 contract, or an SPL mint
	Symbol   string `json:"symbol,omitempty"`
	Name     string `json:"name,omitempty"`
	Decimals int    `json:"decimals,omitempty"`
	LogoURI  string `json:"logoURI,omitempty"`
	Stable   bool   `json:"stable,omitempty"`
}

// DefaultSponsorMaxFeePerGas is the cap on sponsored fees of a network that sets none: 100 gwei, above the base fee
// of the busiest networks on most days. A sponsored send waits while the base fee is above its network's cap.
var DefaultSponsorMaxFeePerGas = big.NewInt(100 * params.GWei)

// sponsorFeeCap is the most a sponsor pays per gas on the network.
func (nw Network) sponsorFeeCap() *big.Int {
	if nw.SponsorMaxFeePerGas != nil && nw.SponsorMaxFeePerGas.Sign() > 0 {
		return nw.SponsorMaxFeePerGas
	}
	return DefaultSponsorMaxFeePerGas
}

// GasLimits are the network's bounds on one transaction's gas, with the latest block's gas limit (0: not known).
func (nw Network) GasLimits(block uint64) evm.GasLimits {
	return evm.GasLimits{MaxTx: cmp.Or(nw.MaxTxGas, evm.MaxTxGas), Block: block}
}

// ParseCAIP2 reads an EVM CAIP-2 id, eip155:<chain id>.
func ParseCAIP2(caip2 string) (int64, error) {
	rest, ok := strings.CutPrefix(caip2, "eip155:")
	id, err := strconv.ParseInt(rest, 10, 64)
	if !ok || err != nil || id <= 0 || strconv.FormatInt(id, 10) != rest {
		return 0, fmt.Errorf("%q is not an EVM CAIP-2 id (eip155:<chain id>)", caip2)
	}
	return id, nil
}

// Networks are the configured networks by CAIP-2 id.
type Networks struct {
	byID map[string]Network
	// blockGas is the latest block gas limit the send worker read of each network (CAIP-2 id → uint64), for the
	// checks of a send's gas limit when it is submitted.
	blockGas sync.Map
}

// BlockGasLimit is the gas limit of the latest block a send worker read of the network; 0 when none has yet.
func (n *Networks) BlockGasLimit(caip2 string) uint64 {
	v, _ := n.blockGas.Load(caip2)
	limit, _ := v.(uint64)
	return limit
}

// sawBlockGasLimit records the gas limit of a block the worker read.
func (n *Networks) sawBlockGasLimit(caip2 string, limit uint64) {
	if limit > 0 {
		n.blockGas.Store(caip2, limit)
	}
}

// NewNetworks checks the networks: an EVM CAIP-2 id matching the chain id, an http(s) RPC URL, each id once.
func NewNetworks(list []Network) (*Networks, error) {
	n := &Networks{byID: map[string]Network{}}
	var errs []error
	for i, nw := range list {
		if strings.HasPrefix(nw.CAIP2, "solana:") {
			if err := n.addSolana(nw); err != nil {
				errs = append(errs, fmt.Errorf("networks[%d]: %w", i, err))
			}
			continue
		}
		id, err := ParseCAIP2(nw.CAIP2)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("networks[%d]: %w", i, err))
			continue
		case nw.ChainID != 0 && nw.ChainID != id:
			errs = append(errs, fmt.Errorf("networks[%d]: chainId %d does not match %s", i, nw.ChainID, nw.CAIP2))
			continue
		case !strings.HasPrefix(nw.RPCURL, "http://") && !strings.HasPrefix(nw.RPCURL, "https://"):
			errs = append(errs, fmt.Errorf("networks[%d]: rpcUrl %q must be an http(s) URL", i, nw.RPCURL))
			continue
		case n.byID[nw.CAIP2].CAIP2 != "":
			errs = append(errs, fmt.Errorf("networks[%d]: %s is configured twice", i, nw.CAIP2))
			continue
		}
		nw.ChainID = id
		n.byID[nw.CAIP2] = nw
	}
	return n, errors.Join(errs...)
}

// ErrUnknownNetwork is the error of a CAIP-2 id no configured network has.
var ErrUnknownNetwork = errors.New("unknown network")

// Get is the network of a CAIP-2 id; the error names the ones configured.
func (n *Networks) Get(caip2 string) (Network, error) {
	if nw, ok := n.byID[caip2]; ok {
		return nw, nil
	}
	return Network{}, fmt.Errorf("%w %q: this server sends on %s", ErrUnknownNetwork, caip2, n.names())
}

// List is the networks in CAIP-2 order.
func (n *Networks) List() []Network {
	out := make([]Network, 0, len(n.byID))
	for _, nw := range n.byID {
		out = append(out, nw)
	}
	slices.SortFunc(out, func(a, b Network) int { return strings.Compare(a.CAIP2, b.CAIP2) })
	return out
}

func (n *Networks) names() string {
	if len(n.byID) == 0 {
		return "no network (none is configured)"
	}
	var ids []string
	for _, nw := range n.List() {
		ids = append(ids, nw.CAIP2)
	}
	return strings.Join(ids, ", ")
}

// LoadNetworks reads the networks of a file in the yield service's catalogue format ({"networks": [{"id", "name",
// "chainId", "rpcUrl", "explorerUrl", ...}]}, the rest of the file ignored), so that one file configures a network for
// both services. An entry with a Solana "caip2" (solana:<genesis hash>, or the aliases solana:mainnet and
// solana:devnet) instead of a chainId is a Solana cluster, at its rpcUrl.
func LoadNetworks(path string) ([]Network, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Networks []struct {
			CAIP2       string `json:"caip2"`
			Name        string `json:"name"`
			ChainID     int64  `json:"chainId"`
			RPCURL      string `json:"rpcUrl"`
			ExplorerURL string `json:"explorerUrl"`
			// Sigil's own keys beside the catalogue's (see Network): the batch delegate, the gas station and the native
			// coin's price in USD.
			BatchDelegate common.Address `json:"batchDelegate"`
			GasStation    common.Address `json:"gasStation"`
			NativeUSD     float64        `json:"nativeTokenUsd"`
			// The cap on sponsored fees, in gwei (fractions allowed), and the most gas one transaction may use.
			SponsorMaxFeeGwei float64 `json:"sponsorMaxFeeGwei"`
			MaxTxGas          uint64  `json:"maxTransactionGas"`
			// The catalogue's native token, and the tokens chain data reports.
			NativeToken Token   `json:"nativeToken"`
			Tokens      []Token `json:"tokens"`
		} `json:"networks"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]Network, 0, len(file.Networks))
	for _, nw := range file.Networks {
		if strings.HasPrefix(nw.CAIP2, "solana:") {
			out = append(out, Network{CAIP2: nw.CAIP2, Name: nw.Name, RPCURL: nw.RPCURL, ExplorerURL: nw.ExplorerURL, NativeUSD: nw.NativeUSD,
				NativeToken: nw.NativeToken, Tokens: nw.Tokens})
			continue
		}
		if nw.SponsorMaxFeeGwei < 0 || nw.SponsorMaxFeeGwei > 1e9 {
			return nil, fmt.Errorf("%s: network %q: sponsorMaxFeeGwei %v is not a fee per gas in gwei", path, nw.Name, nw.SponsorMaxFeeGwei)
		}
		var feeCap *big.Int
		if nw.SponsorMaxFeeGwei > 0 {
			feeCap, _ = new(big.Float).Mul(big.NewFloat(nw.SponsorMaxFeeGwei), big.NewFloat(params.GWei)).Int(nil)
		}
		out = append(out, Network{CAIP2: "eip155:" + strconv.FormatInt(nw.ChainID, 10), ChainID: nw.ChainID, Name: nw.Name,
			RPCURL: nw.RPCURL, ExplorerURL: nw.ExplorerURL, BatchDelegate: nw.BatchDelegate, GasStation: nw.GasStation, NativeUSD: nw.NativeUSD,
			SponsorMaxFeePerGas: feeCap, MaxTxGas: nw.MaxTxGas, NativeToken: nw.NativeToken, Tokens: nw.Tokens})
	}
	return out, nil
}
