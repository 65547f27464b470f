package earn

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/abis"
)

// Call is one contract call a send makes: what the coordinator's send path takes.
type Call struct {
	To   common.Address
	Data []byte
}

func pack(a interface {
	Pack(string, ...any) ([]byte, error)
}, method string, args ...any) []byte {
	data, err := a.Pack(method, args...)
	if err != nil {
		panic("earn: pack " + method + ": " + err.Error()) // the methods and argument types are the package's own
	}
	return data
}

// DeployCall is the factory call that deploys the wrapper of a vault for a client's fee and wallet.
func (n *Network) DeployCall(v *Vault, clientFeeBps int64, clientFeeWallet common.Address) Call {
	fee := big.NewInt(clientFeeBps)
	if v.Provider == ProviderAave {
		return Call{To: n.Factory, Data: pack(abis.EarnWrapperFactory, "deployAaveWrapper", v.AavePool, v.Asset.Address, fee, clientFeeWallet)}
	}
	return Call{To: n.Factory, Data: pack(abis.EarnWrapperFactory, "deployVaultWrapper", v.Address, fee, clientFeeWallet)}
}

// Predicted is where the factory deploys a configuration, and what the factory fixes for it.
type Predicted struct {
	Wrapper, Splitter common.Address
	PlatformFeeBps    int64
	Platform          common.Address
	Deployed          bool // the wrapper has code already
}

// Predict asks the factory where it deploys (or deployed) the wrapper of a vault for a client's fee and wallet, and
// the platform's fee it adds.
func (n *Network) Predict(ctx context.Context, client *rpc.Client, v *Vault, clientFeeBps int64, clientFeeWallet common.Address) (Predicted, error) {
	r := NewReads(client)
	fee := big.NewInt(clientFeeBps)
	var addrs *[]any
	if v.Provider == ProviderAave {
		addrs = r.Add(&abis.EarnWrapperFactory, n.Factory, "predictAaveWrapper", v.AavePool, v.Asset.Address, fee, clientFeeWallet)
	} else {
		addrs = r.Add(&abis.EarnWrapperFactory, n.Factory, "predictVaultWrapper", v.Address, fee, clientFeeWallet)
	}
	platformFee := r.Add(&abis.EarnWrapperFactory, n.Factory, "platformFeeBps")
	platform := r.Add(&abis.EarnWrapperFactory, n.Factory, "platform")
	if err := r.Do(ctx); err != nil {
		return Predicted{}, err
	}
	p := Predicted{Wrapper: (*addrs)[0].(common.Address), Splitter: (*addrs)[1].(common.Address),
		PlatformFeeBps: firstUint(*platformFee).Int64(), Platform: (*platform)[0].(common.Address)}
	var code hexutil.Bytes
	if err := client.CallContext(ctx, &code, "eth_getCode", p.Wrapper, "latest"); err != nil {
		return Predicted{}, err
	}
	p.Deployed = len(code) > 0
	return p, nil
}

// DepositCalls are the two calls of a deposit, batched into one transaction: the asset's approval of exactly the
// amount to the wrapper, and the wrapper's deposit for the depositor.
func DepositCalls(asset, wrapper, depositor common.Address, assets *big.Int) []Call {
	return []Call{
		{To: asset, Data: pack(abis.ERC20, "approve", wrapper, assets)},
		{To: wrapper, Data: pack(abis.EarnWrapper, "deposit", assets, depositor)},
	}
}

// WithdrawCall withdraws exactly assets of the wrapper's asset to owner.
func WithdrawCall(wrapper, owner common.Address, assets *big.Int) Call {
	return Call{To: wrapper, Data: pack(abis.EarnWrapper, "withdraw", assets, owner, owner)}
}

// RedeemCall redeems shares of the wrapper (a MAX withdrawal: the whole balance) for owner.
func RedeemCall(wrapper, owner common.Address, shares *big.Int) Call {
	return Call{To: wrapper, Data: pack(abis.EarnWrapper, "redeem", shares, owner, owner)}
}

// ReleaseCall releases a payee's fees from a wrapper's splitter, paid to the payee in the wrapper's asset.
func ReleaseCall(splitter, payee common.Address) Call {
	return Call{To: splitter, Data: pack(abis.EarnFeeSplitter, "release", payee)}
}

// ClaimCall claims, for user, the cumulative amounts of the tokens in the live root of the distributor.
func ClaimCall(distributor, user common.Address, claims []Claimable) Call {
	users := make([]common.Address, len(claims))
	tokens := make([]common.Address, len(claims))
	amounts := make([]*big.Int, len(claims))
	proofs := make([][][32]byte, len(claims))
	for i, c := range claims {
		users[i], tokens[i], amounts[i] = user, c.Token, c.Cumulative
		for _, p := range c.Proof {
			proofs[i] = append(proofs[i], p)
		}
	}
	return Call{To: distributor, Data: pack(abis.EarnRewardDistributor, "claim", users, tokens, amounts, proofs)}
}

// WrapperState is what a wrapper holds now, and what one holder has in it.
type WrapperState struct {
	TotalAssets *big.Int // the wrapper's assets, before the fees it owes
	Shares      *big.Int // the holder's shares
	Value       *big.Int // what the holder's shares redeem for now, net of the fees owed
	MaxWithdraw *big.Int // what the holder can withdraw now (its value, capped by the source's liquidity)
	Liquidity   *big.Int // what the wrapper's source lets out now
	// ClaimableClientFee is what the client could release from the splitter now, in the asset (read when a client
	// is given).
	ClaimableClientFee *big.Int
}

// ReadWrappers reads each wrapper's state for holder (zero: no holder's shares) and, where feeClients[i] is given and
// not zero, that client's claimable fee through splitters[i]; two round trips at most.
func ReadWrappers(ctx context.Context, client *rpc.Client, wrappers, splitters, feeClients []common.Address, holder common.Address) ([]WrapperState, error) {
	r := NewReads(client)
	type slots struct{ total, shares, value, max, liquidity, fee *[]any }
	all := make([]slots, len(wrappers))
	for i, w := range wrappers {
		s := slots{total: r.Add(&abis.EarnWrapper, w, "totalAssets"), liquidity: r.Add(&abis.EarnWrapper, w, "liquidity")}
		if holder != (common.Address{}) {
			s.shares = r.Add(&abis.EarnWrapper, w, "balanceOf", holder)
			s.max = r.Add(&abis.EarnWrapper, w, "maxWithdraw", holder)
		}
		if i < len(feeClients) && i < len(splitters) && feeClients[i] != (common.Address{}) {
			s.fee = r.Add(&abis.EarnFeeSplitter, splitters[i], "releasableAssets", feeClients[i])
		}
		all[i] = s
	}
	if err := r.Do(ctx); err != nil {
		return nil, err
	}
	// A holder's value follows from its shares: a second round, only for the wrappers it holds shares of.
	second := NewReads(client)
	out := make([]WrapperState, len(wrappers))
	for i, s := range all {
		out[i] = WrapperState{TotalAssets: firstUint(*s.total), Liquidity: firstUint(*s.liquidity), Shares: new(big.Int),
			Value: new(big.Int), MaxWithdraw: new(big.Int), ClaimableClientFee: new(big.Int)}
		if s.shares != nil {
			out[i].Shares, out[i].MaxWithdraw = firstUint(*s.shares), firstUint(*s.max)
			if out[i].Shares.Sign() > 0 {
				s.value = second.Add(&abis.EarnWrapper, wrappers[i], "previewRedeem", out[i].Shares)
				all[i] = s
			}
		}
		if s.fee != nil {
			out[i].ClaimableClientFee = firstUint(*s.fee)
		}
	}
	if err := second.Do(ctx); err != nil {
		return nil, err
	}
	for i, s := range all {
		if s.value != nil {
			out[i].Value = firstUint(*s.value)
		}
	}
	return out, nil
}
