package chain

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
)

// Keeper is the dev chain's liquidator: what liquidation bots do on a live network. Each pass finds the borrowers of
// Aave v3 and of both Morpho Blue markets from the protocols' Borrow events, asks each protocol whether a borrower is
// liquidatable (Aave's getUserAccountData health factor under 1; Morpho's own test: the debt, with interest accrued to
// the latest block, above the collateral's value times the LLTV, at its oracle's price), and liquidates those that are, from the dev account, which mints or
// wraps the debt it repays. The protocols' LiquidationCall and Liquidate events are the liquidation history the yield
// service's Borrow API reads.
type Keeper struct {
	client    *ethclient.Client
	sender    *Account
	addresses contracts.Addresses
	mu        sync.Mutex
}

// Liquidation is one liquidation a keeper pass made.
type Liquidation struct {
	Protocol string // "aave" or "morpho"
	Borrower common.Address
	TxHash   common.Hash
}

// NewKeeper returns a keeper that liquidates from sender, the owner of the test tokens.
func NewKeeper(client *ethclient.Client, sender *Account, addresses contracts.Addresses) *Keeper {
	return &Keeper{client: client, sender: sender, addresses: addresses}
}

// Run makes one pass: every liquidatable position it finds is liquidated before it returns. Passes never overlap.
func (k *Keeper) Run(ctx context.Context) ([]Liquidation, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	aave, err := k.aave(ctx)
	if err != nil {
		return aave, fmt.Errorf("chain: keeper: aave: %w", err)
	}
	done := aave
	for _, market := range []contracts.MorphoMarketParams{contracts.MorphoUSDCMarket(k.addresses), contracts.MorphoVaultMarket(k.addresses)} {
		m, err := k.morpho(ctx, market)
		done = append(done, m...)
		if err != nil {
			return done, fmt.Errorf("chain: keeper: morpho: %w", err)
		}
	}
	return done, nil
}

// borrowers are the distinct addresses in topic i of contract's events with the given first topics.
func (k *Keeper) borrowers(ctx context.Context, contract common.Address, topics [][]common.Hash, i int) ([]common.Address, error) {
	logs, err := k.client.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{contract}, Topics: topics})
	if err != nil {
		return nil, err
	}
	seen := map[common.Address]bool{}
	var out []common.Address
	for _, l := range logs {
		if len(l.Topics) <= i {
			continue
		}
		a := common.BytesToAddress(l.Topics[i].Bytes())
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}

func (k *Keeper) call(ctx context.Context, a *abi.ABI, to common.Address, method string, args ...any) ([]any, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	ret, err := k.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", method, to.Hex(), err)
	}
	return a.Unpack(method, ret)
}

func (k *Keeper) send(ctx context.Context, a *abi.ABI, to common.Address, method string, args ...any) (common.Hash, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return common.Hash{}, err
	}
	r, err := k.sender.Transact(ctx, &to, nil, data)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%s on %s: %w", method, to.Hex(), err)
	}
	return r.TxHash, nil
}

// fund gives the keeper amount of a debt token and lets spender take it: test tokens are minted (the dev account owns
// them), WETH wrapped.
func (k *Keeper) fund(ctx context.Context, token, spender common.Address, amount *big.Int) error {
	if token == k.addresses[contracts.WETH] {
		data, _ := contracts.MustLoad(contracts.WrappedEther).Pack("deposit")
		if _, err := k.sender.Transact(ctx, &token, amount, data); err != nil {
			return err
		}
	} else if _, err := k.send(ctx, &abis.ERC20, token, "mint", k.sender.Address(), amount); err != nil {
		return err
	}
	_, err := k.send(ctx, &abis.ERC20, token, "approve", spender, math.MaxBig256)
	return err
}

var one18 = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// aave liquidates every Aave v3 borrower whose health factor is under 1: its largest debt, against its largest
// collateral, as much as Aave's close factor allows (debtToCover = type(uint256).max).
func (k *Keeper) aave(ctx context.Context) ([]Liquidation, error) {
	pool := k.addresses[contracts.AavePoolName]
	event := abis.AaveV3Borrowing.Events["Borrow"].ID
	users, err := k.borrowers(ctx, pool, [][]common.Hash{{event}}, 2) // Borrow(reserve, user, onBehalfOf indexed, ...)
	if err != nil {
		return nil, err
	}
	type reserve struct{ asset, aToken, debtToken common.Address }
	var reserves []reserve
	for _, asset := range []string{contracts.USDC, contracts.USDT, contracts.WETH} {
		out, err := k.call(ctx, &abis.AaveV3Borrowing, pool, "getReserveData", k.addresses[asset])
		if err != nil {
			return nil, err
		}
		d, err := abis.AsReserveData(out[0])
		if err != nil {
			return nil, err
		}
		reserves = append(reserves, reserve{k.addresses[asset], d.ATokenAddress, d.VariableDebtTokenAddress})
	}
	var done []Liquidation
	for _, user := range users {
		account, err := k.call(ctx, &abis.AaveV3Borrowing, pool, "getUserAccountData", user)
		if err != nil {
			return done, err
		}
		if hf := account[5].(*big.Int); hf.Cmp(one18) >= 0 || account[1].(*big.Int).Sign() == 0 {
			continue
		}
		var collateral, debt reserve
		var most, mostDebt *big.Int = new(big.Int), new(big.Int)
		for _, r := range reserves {
			if b, err := k.balance(ctx, r.aToken, user); err != nil {
				return done, err
			} else if b.Cmp(most) > 0 {
				collateral, most = r, b
			}
			if b, err := k.balance(ctx, r.debtToken, user); err != nil {
				return done, err
			} else if b.Cmp(mostDebt) > 0 {
				debt, mostDebt = r, b
			}
		}
		if most.Sign() == 0 || mostDebt.Sign() == 0 {
			continue
		}
		if err := k.fund(ctx, debt.asset, pool, mostDebt); err != nil {
			return done, err
		}
		hash, err := k.send(ctx, &abis.AaveV3Borrowing, pool, "liquidationCall", collateral.asset, debt.asset, user, math.MaxBig256, false)
		if err != nil {
			return done, err
		}
		done = append(done, Liquidation{Protocol: "aave", Borrower: user, TxHash: hash})
	}
	return done, nil
}

func (k *Keeper) balance(ctx context.Context, token, holder common.Address) (*big.Int, error) {
	out, err := k.call(ctx, &abis.ERC20, token, "balanceOf", holder)
	if err != nil {
		return nil, err
	}
	return out[0].(*big.Int), nil
}

// accruedMarket is the market with its interest accrued to the latest block, as Morpho accrues it before it judges a
// liquidation: a position that interest alone has pushed past the LLTV is liquidatable too.
func (k *Keeper) accruedMarket(ctx context.Context, morpho common.Address, id common.Hash, params contracts.MorphoMarketParams) (abis.MorphoMarket, error) {
	values, err := k.call(ctx, &abis.MorphoBlue, morpho, "market", id)
	if err != nil {
		return abis.MorphoMarket{}, err
	}
	m := abis.AsMorphoMarket(values)
	if m.TotalBorrowAssets.Sign() == 0 {
		return m, nil
	}
	rate, err := k.call(ctx, &abis.MorphoIrm, params.Irm, "borrowRateView", params, m)
	if err != nil {
		return abis.MorphoMarket{}, err
	}
	head, err := k.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return abis.MorphoMarket{}, err
	}
	return m.Accrued(rate[0].(*big.Int), head.Time), nil
}

// morpho liquidates every borrower of the market whose debt exceeds what its collateral may carry: its whole debt when
// the collateral covers it with the incentive, else all of its collateral (the rest is bad debt, which Morpho
// realises).
func (k *Keeper) morpho(ctx context.Context, params contracts.MorphoMarketParams) ([]Liquidation, error) {
	morpho := k.addresses[contracts.MorphoName]
	id := abis.MorphoMarketID(params)
	event := abis.MorphoBlue.Events["Borrow"].ID
	users, err := k.borrowers(ctx, morpho, [][]common.Hash{{event}, {id}}, 2) // Borrow(id, caller, onBehalf indexed, ...)
	if err != nil {
		return nil, err
	}
	if len(users) == 0 {
		return nil, nil
	}
	m, err := k.accruedMarket(ctx, morpho, id, params)
	if err != nil {
		return nil, err
	}
	totalBorrowAssets, totalBorrowShares := m.TotalBorrowAssets, m.TotalBorrowShares
	p, err := k.call(ctx, &abis.MorphoOracle, params.Oracle, "price")
	if err != nil {
		return nil, err
	}
	price := p[0].(*big.Int)
	var done []Liquidation
	for _, user := range users {
		pos, err := k.call(ctx, &abis.MorphoBlue, morpho, "position", id, user)
		if err != nil {
			return done, err
		}
		shares, collateral := pos[1].(*big.Int), pos[2].(*big.Int)
		if shares.Sign() == 0 {
			continue
		}
		borrowed := abis.MorphoToAssetsUp(shares, totalBorrowAssets, totalBorrowShares)
		maxBorrow := new(big.Int).Div(new(big.Int).Mul(new(big.Int).Div(new(big.Int).Mul(collateral, price), abis.MorphoOraclePriceScale), params.Lltv), one18)
		if borrowed.Cmp(maxBorrow) <= 0 {
			continue
		}
		seizeAll := new(big.Int).Div(new(big.Int).Mul(new(big.Int).Div(new(big.Int).Mul(borrowed, abis.MorphoLIF(params.Lltv)), one18), abis.MorphoOraclePriceScale), price)
		seized, repaidShares := new(big.Int), shares
		if seizeAll.Cmp(collateral) > 0 {
			seized, repaidShares = collateral, new(big.Int)
		}
		if err := k.fund(ctx, params.LoanToken, morpho, new(big.Int).Add(borrowed, new(big.Int).Div(borrowed, big.NewInt(100)))); err != nil {
			return done, err
		}
		hash, err := k.send(ctx, &abis.MorphoBlue, morpho, "liquidate", params, user, seized, repaidShares, []byte{})
		if err != nil {
			return done, err
		}
		done = append(done, Liquidation{Protocol: "morpho", Borrower: user, TxHash: hash})
	}
	return done, nil
}
