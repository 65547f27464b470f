package yield

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
)

// DevCatalogue describes the dev chain's fixtures as a catalogue, reading token metadata, fees and cooldowns from the
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
func DevCatalogue(ctx context.Context, chains ...chain.Bootstrap) (Catalogue, error) {
	var all Catalogue
	for i, b := range chains {
		c, err := devChainCatalogue(ctx, b)
		if err != nil {
			return Catalogue{}, err
		}
		all.Networks = append(all.Networks, c.Networks...)
		all.Yields = append(all.Yields, c.Yields...)
		if i == 0 {
			all.Providers = c.Providers // the same on every dev chain
		}
	}
	if len(chains) == 0 {
		return Catalogue{}, errors.New("yield: a dev catalogue needs a dev chain")
	}
	if err := all.Validate(); err != nil {
		return Catalogue{}, errors.Join(errors.New("yield: the dev catalogue is not valid"), err)
	}
	return all, nil
}

// devChainCatalogue is one dev chain's part of DevCatalogue.
func devChainCatalogue(ctx context.Context, b chain.Bootstrap) (Catalogue, error) {
	addr := func(name string) (common.Address, error) {
		s, ok := b.Contracts[name]
		if !ok || !common.IsHexAddress(s) {
			return common.Address{}, fmt.Errorf("yield: the dev chain has no %s contract", name)
		}
		return common.HexToAddress(s), nil
	}
	names := []string{contracts.USDC, contracts.USDT, contracts.DAI, contracts.WETH, contracts.VaultUSDC, contracts.VaultDAI,
		contracts.VaultWETH, contracts.OAV10USDC, contracts.OAV20USDC, contracts.FeeWrapperName, contracts.Lending,
		contracts.LendingAUSDC, contracts.LendingAUSDT, contracts.Staking, contracts.ProviderStake, contracts.ProviderLST,
		contracts.AavePoolName, contracts.AaveAUSDC, contracts.AaveAUSDT, contracts.AaveAWETH, contracts.MorphoVaultUSDC}
	a := map[string]common.Address{}
	for _, n := range names {
		v, err := addr(n)
		if err != nil {
			return Catalogue{}, err
		}
		a[n] = v
	}
	network := Network{ID: b.NetworkID, Name: cmp.Or(b.Name, chain.NetworkName), ChainID: b.ChainID, RPCURL: b.RPCURL,
		NativeToken: Token{Symbol: "ETH", Name: "Ether", Decimals: 18}}
	client, err := dialNetwork(ctx, &network, &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		return Catalogue{}, err
	}
	defer client.close()
	r := client.newBatch()
	tokens := map[string]*tokenRead{}
	for _, n := range []string{contracts.USDC, contracts.USDT, contracts.DAI, contracts.WETH, contracts.VaultUSDC, contracts.VaultDAI,
		contracts.VaultWETH, contracts.OAV10USDC, contracts.OAV20USDC, contracts.LendingAUSDC, contracts.LendingAUSDT, contracts.ProviderLST,
		contracts.AaveAUSDC, contracts.AaveAUSDT, contracts.AaveAWETH, contracts.MorphoVaultUSDC} {
		tokens[n] = readToken(r, a[n])
	}
	oavFees := map[string][3]*big.Int{}
	for _, n := range []string{contracts.OAV10USDC, contracts.OAV20USDC} {
		oavFees[n] = [3]*big.Int{
			r.uint(a[n], &allocatorABI, "depositFeeBps"),
			r.uint(a[n], &allocatorABI, "performanceFeeBps"),
			r.uint(a[n], &allocatorABI, "managementFeeBps"),
		}
	}
	wrapperBps := r.uint(a[contracts.FeeWrapperName], &feeWrapperABI, "feeBps")
	nativeCooldown := r.uint(a[contracts.Staking], &nativeStakingABI, "cooldown")
	providerCooldown := r.uint(a[contracts.ProviderStake], &providerStakingABI, "cooldown")
	if err := r.run(ctx); err != nil {
		return Catalogue{}, fmt.Errorf("yield: read the dev chain's fixtures: %w", err)
	}
	tok := func(n string) Token { return tokens[n].token(a[n]) }
	ptr := func(t Token) *Token { return &t }

	c := Catalogue{
		Networks: []Network{network},
		Providers: []Provider{
			{ID: "sigil", Name: "Sigil", Type: "protocol", Description: "The dev chain's vaults, allocator vaults and native staking"},
			{ID: "sigillend", Name: "Sigil Lend", Type: "protocol", Description: "The dev chain's lending market (Aave v3 interface)"},
			{ID: "aave", Name: "Aave", Type: "protocol", Description: "Aave v3's own contracts (@aave/core-v3), deployed on the dev chain"},
			{ID: "morpho", Name: "Morpho", Type: "protocol", Description: "Morpho Blue's own contract (@morpho-org/morpho-blue), deployed on the dev chain"},
			{ID: "sigil-validators", Name: "Sigil Validators", Type: "validator_provider",
				Description: "The dev chain's staking provider, with a validator revenue share for the integrator"},
		},
	}
	vault := func(name, title, desc string, fees Fees, wrapper string, sets []int, kind string) YieldConfig {
		f, _ := contracts.FixtureNamed(name)
		return YieldConfig{Kind: kind, Network: network.ID, Name: title, Description: desc, ProviderID: "sigil",
			Token: tok(f.Asset), OutputToken: ptr(tok(name)), Contracts: Contracts{Vault: a[name].Hex(), FeeWrapper: wrapper},
			Fees: fees, FeeSets: sets}
	}
	wrapped := Fees{DepositBps: wrapperBps.Int64()}
	wrapper := a[contracts.FeeWrapperName].Hex()
	c.Yields = append(c.Yields,
		vault(contracts.VaultUSDC, "Sigil USDC Vault", "A plain ERC-4626 vault", Fees{}, "", nil, KindERC4626),
		vault(contracts.VaultDAI, "Sigil DAI Vault", "A plain ERC-4626 vault; deposits pay a fee through the fee wrapper",
			wrapped, wrapper, nil, KindERC4626),
		vault(contracts.VaultWETH, "Sigil WETH Vault", "A plain ERC-4626 vault", Fees{}, "", nil, KindERC4626),
	)
	morpho := vault(contracts.MorphoVaultUSDC, "Morpho USDC (USDC/WETH market)",
		"An ERC-4626 vault that supplies to a Morpho Blue market; the rate is what its borrowers pay", Fees{}, "", nil, KindERC4626)
	morpho.ProviderID = "morpho"
	c.Yields = append(c.Yields, morpho)
	for _, set := range []struct {
		name string
		fee  int
	}{{contracts.OAV10USDC, 10}, {contracts.OAV20USDC, 20}} {
		f := oavFees[set.name]
		fees := Fees{DepositBps: f[0].Int64(), PerformanceBps: f[1].Int64(), ManagementBps: f[2].Int64()}
		c.Yields = append(c.Yields, vault(set.name, fmt.Sprintf("Sigil Allocator USDC (%d%% set)", set.fee),
			"An allocator vault over the USDC vault that sells its incentives and reinvests them", fees, "", []int{set.fee}, KindAllocatorVault))
	}
	for _, l := range []struct{ asset, aToken string }{{contracts.USDC, contracts.LendingAUSDC}, {contracts.USDT, contracts.LendingAUSDT}} {
		token := tok(l.asset)
		// USDT is marked as on Ethereum, where it refuses changing a non-zero allowance (the dev chain's accepts it).
		token.AllowanceReset = l.asset == contracts.USDT
		c.Yields = append(c.Yields, YieldConfig{Kind: KindLending, Network: network.ID, Name: "Sigil Lend " + token.Symbol,
			Description: "Supply to the dev chain's lending market", ProviderID: "sigillend", Token: token,
			OutputToken: ptr(tok(l.aToken)), Contracts: Contracts{Pool: a[contracts.Lending].Hex()}})
	}
	for _, l := range []struct{ asset, aToken string }{{contracts.USDC, contracts.AaveAUSDC}, {contracts.USDT, contracts.AaveAUSDT},
		{contracts.WETH, contracts.AaveAWETH}} {
		token := tok(l.asset)
		token.AllowanceReset = l.asset == contracts.USDT
		c.Yields = append(c.Yields, YieldConfig{Kind: KindLending, Network: network.ID, Name: "Aave v3 " + token.Symbol,
			Description: "Supply to Aave v3 (its own contracts on the dev chain); the rate is what its borrowers pay", ProviderID: "aave",
			Token: token, OutputToken: ptr(tok(l.aToken)), Contracts: Contracts{Pool: a[contracts.AavePoolName].Hex()}})
	}
	c.Yields = append(c.Yields,
		YieldConfig{Kind: KindNativeStaking, Network: network.ID, Name: "Sigil native ETH staking",
			Description: "Stake ETH; rewards are claimed; unstaking has a cooldown. Deposits pay a fee through the fee wrapper",
			ProviderID:  "sigil", Token: network.NativeToken, Contracts: Contracts{Staking: a[contracts.Staking].Hex(), FeeWrapper: wrapper},
			Fees: wrapped, CooldownSeconds: nativeCooldown.Int64()},
		YieldConfig{Kind: KindProviderStaking, Network: network.ID, Name: "Sigil Validators staked ETH",
			Description: "Liquid staking with a validator provider that shares its fee with the integrator",
			ProviderID:  "sigil-validators", Token: network.NativeToken, OutputToken: ptr(tok(contracts.ProviderLST)),
			Contracts: Contracts{Staking: a[contracts.ProviderStake].Hex()}, CooldownSeconds: providerCooldown.Int64()},
	)
	return c, nil
}

// WriteDevCatalogue writes DevCatalogue(chains...) to path.
func WriteDevCatalogue(ctx context.Context, path string, chains ...chain.Bootstrap) (Catalogue, error) {
	c, err := DevCatalogue(ctx, chains...)
	if err != nil {
		return Catalogue{}, err
	}
	return c, WriteCatalogue(path, c)
}

// tokenRead is a token's metadata read from the chain.
type tokenRead struct {
	symbol, name *[]any
	decimals     *[]any
}

func readToken(b *batch, at common.Address) *tokenRead {
	return &tokenRead{symbol: b.read(at, &erc20ABI, "symbol"), name: b.read(at, &erc20ABI, "name"), decimals: b.read(at, &erc20ABI, "decimals")}
}

func (t *tokenRead) token(at common.Address) Token {
	s, _ := (*t.symbol)[0].(string)
	n, _ := (*t.name)[0].(string)
	d, _ := (*t.decimals)[0].(uint8)
	return Token{Symbol: s, Name: n, Decimals: d, Address: at.Hex()}
}
