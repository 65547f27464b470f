// Package devcatalogue describes the dev chain's fixtures as a catalogue of the yield service (internal/yield), the
// file an operator writes by hand for real networks. It lives beside the dev chain so that the yield service links
// none of it: the service reads a catalogue, this package writes the dev chain's.
package devcatalogue

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/yield"
)

// Build describes the dev chain's fixtures as a catalogue, reading token metadata, fees and cooldowns from the
// chain at b.RPCURL so that it matches however the fixtures were configured:
//
//   - the plain USDC and WETH vaults (ERC-4626, the seed's approve + deposit shape), for every fee set, and the USDC
//     vault over a Morpho Blue market (Morpho's own code underneath);
//   - the DAI vault with the fee wrapper's deposit fee (approve and deposit name the wrapper), for every fee set;
//   - the 10% and 20% allocator vaults over the USDC vault, one per fee set;
//   - USDC and USDT lending on the dev chain's own lending pool (Aave v3 signatures, a rate set by its owner), and
//     USDC, USDT and WETH lending on Aave v3 itself (its own contracts; the rate comes from its borrowers);
//   - native staking with the fee wrapper's deposit fee, and the provider's liquid staking (validator rebates).
//
// With several dev chains (sigil up runs two, each with its own chain id and network id), each lists its own, and the
// providers are listed once.
func Build(ctx context.Context, chains ...chain.Bootstrap) (yield.Catalogue, error) {
	if len(chains) == 0 {
		return yield.Catalogue{}, errors.New("devcatalogue: a dev catalogue needs a dev chain")
	}
	var all yield.Catalogue
	for i, b := range chains {
		c, err := chainCatalogue(ctx, b)
		if err != nil {
			return yield.Catalogue{}, err
		}
		all.Networks = append(all.Networks, c.Networks...)
		all.Yields = append(all.Yields, c.Yields...)
		all.Markets = append(all.Markets, c.Markets...)
		if i == 0 {
			all.Providers = c.Providers // the same on every dev chain
		}
	}
	if err := all.Validate(); err != nil {
		return yield.Catalogue{}, errors.Join(errors.New("devcatalogue: the dev catalogue is not valid"), err)
	}
	return all, nil
}

// Write writes Build(chains...) to path.
func Write(ctx context.Context, path string, chains ...chain.Bootstrap) (yield.Catalogue, error) {
	c, err := Build(ctx, chains...)
	if err != nil {
		return yield.Catalogue{}, err
	}
	return c, yield.WriteCatalogue(path, c)
}

// chainCatalogue is one dev chain's part of Build.
func chainCatalogue(ctx context.Context, b chain.Bootstrap) (yield.Catalogue, error) {
	a := map[string]common.Address{}
	for _, n := range []string{contracts.USDC, contracts.USDT, contracts.DAI, contracts.WETH, contracts.VaultUSDC,
		contracts.VaultDAI, contracts.VaultWETH, contracts.OAV10USDC, contracts.OAV20USDC, contracts.FeeWrapperName,
		contracts.Lending, contracts.LendingAUSDC, contracts.LendingAUSDT, contracts.Staking, contracts.ProviderStake,
		contracts.ProviderLST, contracts.AavePoolName, contracts.AaveAUSDC, contracts.AaveAUSDT, contracts.AaveAWETH,
		contracts.MorphoVaultUSDC, contracts.AaveOracleName, contracts.MorphoName, contracts.MorphoOracle, contracts.MorphoIrm,
		contracts.MorphoVaultOracle} {
		s, ok := b.Contracts[n]
		if !ok || !common.IsHexAddress(s) {
			return yield.Catalogue{}, fmt.Errorf("devcatalogue: the dev chain has no %s contract", n)
		}
		a[n] = common.HexToAddress(s)
	}
	network := yield.Network{ID: b.NetworkID, Name: cmp.Or(b.Name, chain.NetworkName), ChainID: b.ChainID, RPCURL: b.RPCURL,
		NativeToken: yield.Token{Symbol: "ETH", Name: "Ether", Decimals: 18}}
	client, err := ethclient.DialContext(ctx, b.RPCURL)
	if err != nil {
		return yield.Catalogue{}, fmt.Errorf("devcatalogue: network %s: %w", b.NetworkID, err)
	}
	defer client.Close()
	r := reader{ctx: ctx, client: client, addresses: a}
	tokens := map[string]yield.Token{}
	for _, n := range []string{contracts.USDC, contracts.USDT, contracts.DAI, contracts.WETH, contracts.VaultUSDC,
		contracts.VaultDAI, contracts.VaultWETH, contracts.OAV10USDC, contracts.OAV20USDC, contracts.LendingAUSDC,
		contracts.LendingAUSDT, contracts.ProviderLST, contracts.AaveAUSDC, contracts.AaveAUSDT, contracts.AaveAWETH,
		contracts.MorphoVaultUSDC} {
		tokens[n] = r.token(n)
	}
	oavFees := map[string]yield.Fees{}
	for _, n := range []string{contracts.OAV10USDC, contracts.OAV20USDC} {
		oavFees[n] = yield.Fees{DepositBps: r.uint(n, contracts.AllocatorVault, "depositFeeBps"),
			PerformanceBps: r.uint(n, contracts.AllocatorVault, "performanceFeeBps"),
			ManagementBps:  r.uint(n, contracts.AllocatorVault, "managementFeeBps")}
	}
	wrapped := yield.Fees{DepositBps: r.uint(contracts.FeeWrapperName, contracts.FeeWrapper, "feeBps")}
	nativeCooldown := r.uint(contracts.Staking, contracts.NativeStaking, "cooldown")
	providerCooldown := r.uint(contracts.ProviderStake, contracts.ProviderStaking, "cooldown")
	if r.err != nil {
		return yield.Catalogue{}, fmt.Errorf("devcatalogue: read the dev chain's fixtures: %w", r.err)
	}
	ptr := func(t yield.Token) *yield.Token { return &t }

	c := yield.Catalogue{
		Networks: []yield.Network{network},
		Providers: []yield.Provider{
			{ID: "sigil", Name: "Sigil", Type: "protocol", Description: "The dev chain's vaults, allocator vaults and native staking"},
			{ID: "sigillend", Name: "Sigil Lend", Type: "protocol", Description: "The dev chain's lending market (Aave v3 interface)"},
			{ID: "aave", Name: "Aave", Type: "protocol", Description: "Aave v3's own contracts (@aave/core-v3), deployed on the dev chain"},
			{ID: "morpho", Name: "Morpho", Type: "protocol", Description: "Morpho Blue's own contract (@morpho-org/morpho-blue), deployed on the dev chain"},
			{ID: "sigil-validators", Name: "Sigil Validators", Type: "validator_provider",
				Description: "The dev chain's staking provider, with a validator revenue share for the integrator"},
		},
	}
	vault := func(name, title, desc string, fees yield.Fees, wrapper string, sets []int, kind string) yield.YieldConfig {
		f, _ := contracts.FixtureNamed(name)
		return yield.YieldConfig{Kind: kind, Network: network.ID, Name: title, Description: desc, ProviderID: "sigil",
			Token: tokens[f.Asset], OutputToken: ptr(tokens[name]), Contracts: yield.Contracts{Vault: a[name].Hex(), FeeWrapper: wrapper},
			Fees: fees, FeeSets: sets}
	}
	wrapper := a[contracts.FeeWrapperName].Hex()
	c.Yields = append(c.Yields,
		vault(contracts.VaultUSDC, "Sigil USDC Vault", "A plain ERC-4626 vault", yield.Fees{}, "", nil, yield.KindERC4626),
		vault(contracts.VaultDAI, "Sigil DAI Vault", "A plain ERC-4626 vault; deposits pay a fee through the fee wrapper",
			wrapped, wrapper, nil, yield.KindERC4626),
		vault(contracts.VaultWETH, "Sigil WETH Vault", "A plain ERC-4626 vault", yield.Fees{}, "", nil, yield.KindERC4626),
	)
	morpho := vault(contracts.MorphoVaultUSDC, "Morpho USDC (USDC/WETH market)",
		"An ERC-4626 vault that supplies to a Morpho Blue market; the rate is what its borrowers pay", yield.Fees{}, "", nil, yield.KindERC4626)
	morpho.ProviderID = "morpho"
	c.Yields = append(c.Yields, morpho)
	for _, set := range []struct {
		name string
		fee  int
	}{{contracts.OAV10USDC, 10}, {contracts.OAV20USDC, 20}} {
		c.Yields = append(c.Yields, vault(set.name, fmt.Sprintf("Sigil Allocator USDC (%d%% set)", set.fee),
			"An allocator vault over the USDC vault that sells its incentives and reinvests them", oavFees[set.name], "",
			[]int{set.fee}, yield.KindAllocatorVault))
	}
	for _, l := range []struct{ asset, aToken string }{{contracts.USDC, contracts.LendingAUSDC}, {contracts.USDT, contracts.LendingAUSDT}} {
		token := tokens[l.asset]
		// USDT is marked as on Ethereum, where it refuses changing a non-zero allowance (the dev chain's accepts it).
		token.AllowanceReset = l.asset == contracts.USDT
		c.Yields = append(c.Yields, yield.YieldConfig{Kind: yield.KindLending, Network: network.ID, Name: "Sigil Lend " + token.Symbol,
			Description: "Supply to the dev chain's lending market", ProviderID: "sigillend", Token: token,
			OutputToken: ptr(tokens[l.aToken]), Contracts: yield.Contracts{Pool: a[contracts.Lending].Hex()}})
	}
	for _, l := range []struct{ asset, aToken string }{{contracts.USDC, contracts.AaveAUSDC}, {contracts.USDT, contracts.AaveAUSDT},
		{contracts.WETH, contracts.AaveAWETH}} {
		token := tokens[l.asset]
		token.AllowanceReset = l.asset == contracts.USDT
		c.Yields = append(c.Yields, yield.YieldConfig{Kind: yield.KindLending, Network: network.ID, Name: "Aave v3 " + token.Symbol,
			Description: "Supply to Aave v3 (its own contracts on the dev chain); the rate is what its borrowers pay", ProviderID: "aave",
			Token: token, OutputToken: ptr(tokens[l.aToken]), Contracts: yield.Contracts{Pool: a[contracts.AavePoolName].Hex()}})
	}
	c.Yields = append(c.Yields,
		yield.YieldConfig{Kind: yield.KindNativeStaking, Network: network.ID, Name: "Sigil native ETH staking",
			Description: "Stake ETH; rewards are claimed; unstaking has a cooldown. Deposits pay a fee through the fee wrapper",
			ProviderID:  "sigil", Token: network.NativeToken, Contracts: yield.Contracts{Staking: a[contracts.Staking].Hex(), FeeWrapper: wrapper},
			Fees: wrapped, CooldownSeconds: nativeCooldown},
		yield.YieldConfig{Kind: yield.KindProviderStaking, Network: network.ID, Name: "Sigil Validators staked ETH",
			Description: "Liquid staking with a validator provider that shares its fee with the integrator",
			ProviderID:  "sigil-validators", Token: network.NativeToken, OutputToken: ptr(tokens[contracts.ProviderLST]),
			Contracts: yield.Contracts{Staking: a[contracts.ProviderStake].Hex()}, CooldownSeconds: providerCooldown},
	)
	c.Markets = markets(network, a, tokens)
	return c, nil
}

// markets are the Borrow API's markets of a dev chain: Aave v3's USDC, USDT and WETH markets (each reserve lent
// against all three), Morpho Blue's USDC/WETH market, and its market lending USDT against the plain USDC vault's
// shares (borrowing against a vault position).
func markets(network yield.Network, a map[string]common.Address, tokens map[string]yield.Token) []yield.MarketConfig {
	var out []yield.MarketConfig
	aaveAssets := []yield.Token{tokens[contracts.USDC], tokens[contracts.USDT], tokens[contracts.WETH]}
	for _, loan := range aaveAssets {
		out = append(out, yield.MarketConfig{Integration: yield.IntegrationAave, Network: network.ID, Name: "Aave v3 " + loan.Symbol,
			LoanToken: loan, CollateralTokens: aaveAssets,
			Contracts: yield.MarketContracts{Pool: a[contracts.AavePoolName].Hex(), Oracle: a[contracts.AaveOracleName].Hex()}})
	}
	for _, m := range []struct {
		name             string
		params           contracts.MorphoMarketParams
		loan, collateral string
	}{
		{"Morpho Blue USDC/WETH", contracts.MorphoUSDCMarket(a), contracts.USDC, contracts.WETH},
		{"Morpho Blue USDT against svUSDC (the USDC vault's shares)", contracts.MorphoVaultMarket(a), contracts.USDT, contracts.VaultUSDC},
	} {
		out = append(out, yield.MarketConfig{Integration: yield.IntegrationMorpho, Network: network.ID, Name: m.name,
			LoanToken: tokens[m.loan], CollateralTokens: []yield.Token{tokens[m.collateral]}, LLTV: m.params.Lltv.String(),
			Contracts: yield.MarketContracts{Morpho: a[contracts.MorphoName].Hex(), Oracle: m.params.Oracle.Hex(), IRM: m.params.Irm.Hex()}})
	}
	return out
}

// reader reads the fixtures' state, one call at a time (a start reads some sixty values from a node on this machine);
// the first error is kept and every read after it returns zero values.
type reader struct {
	ctx       context.Context
	client    *ethclient.Client
	addresses map[string]common.Address
	err       error
}

func (r *reader) call(fixture, artifact, method string) []any {
	if r.err != nil {
		return nil
	}
	out, err := contracts.MustLoad(artifact).Call(r.ctx, r.client, r.addresses[fixture], method)
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s.%s returned nothing", fixture, method)
	}
	r.err = err
	return out
}

// uint reads a view method returning one unsigned integer that fits an int64 (fees in basis points, seconds).
func (r *reader) uint(fixture, artifact, method string) int64 {
	out := r.call(fixture, artifact, method)
	if r.err != nil {
		return 0
	}
	v, ok := out[0].(*big.Int)
	if !ok || !v.IsInt64() {
		r.err = fmt.Errorf("%s.%s returned %v, not a small unsigned integer", fixture, method, out[0])
		return 0
	}
	return v.Int64()
}

// token reads an ERC-20 token's (or vault share's) symbol, name and decimals.
func (r *reader) token(fixture string) yield.Token {
	t := yield.Token{Address: r.addresses[fixture].Hex()}
	if out := r.call(fixture, contracts.TestToken, "symbol"); r.err == nil {
		t.Symbol, _ = out[0].(string)
	}
	if out := r.call(fixture, contracts.TestToken, "name"); r.err == nil {
		t.Name, _ = out[0].(string)
	}
	if out := r.call(fixture, contracts.TestToken, "decimals"); r.err == nil {
		t.Decimals, _ = out[0].(uint8)
	}
	return t
}
