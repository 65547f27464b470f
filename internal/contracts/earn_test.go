package contracts_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/earn"
)

// sendAt calls method of a contract that is not a fixture (a wrapper, a splitter), with artifact's ABI.
func (a *account) sendAt(artifact string, to common.Address, method string, args ...any) (*types.Receipt, error) {
	data, err := contracts.MustLoad(artifact).Pack(method, args...)
	if err != nil {
		a.chain.t.Fatal(err)
	}
	return a.Transact(context.Background(), &to, nil, data)
}

func (c *testChain) uintAt(artifact string, at common.Address, method string, args ...any) *big.Int {
	c.t.Helper()
	out, err := contracts.MustLoad(artifact).Call(context.Background(), c.client, at, method, args...)
	if err != nil {
		c.t.Fatalf("%s.%s: %v", artifact, method, err)
	}
	v, ok := out[0].(*big.Int)
	if !ok {
		c.t.Fatalf("%s.%s did not return a uint", artifact, method)
	}
	return v
}

// predict is what the factory names as the wrapper and splitter of a source for a client's fee.
func (c *testChain) predict(aave bool, source common.Address, feeBps int64, wallet common.Address) (wrapper, splitter common.Address) {
	c.t.Helper()
	a := contracts.MustLoad(contracts.EarnWrapperFactory)
	var out []any
	var err error
	if aave {
		out, err = a.Call(context.Background(), c.client, c.addr(contracts.EarnFactory), "predictAaveWrapper", source, c.addr(contracts.USDC), big.NewInt(feeBps), wallet)
	} else {
		out, err = a.Call(context.Background(), c.client, c.addr(contracts.EarnFactory), "predictVaultWrapper", source, big.NewInt(feeBps), wallet)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return out[0].(common.Address), out[1].(common.Address)
}

// An Earn wrapper over each kind of source (the Morpho vault, Aave's USDC reserve): deployed where the factory
// predicted, a deposit lands in the source, the yield pays the fees to the splitter as shares (the client's and the
// platform's parts), MAX redeems the exact share balance, and each payee's release pays it USDC.
func TestEarnWrapper(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	for _, tc := range []struct {
		name   string
		aave   bool
		source string
	}{{"morpho", false, contracts.MorphoVaultUSDC}, {"aave", true, contracts.AavePoolName}} {
		t.Run(tc.name, func(t *testing.T) {
			c := c.with(t)
			client := c.bob.addr
			wrapper, splitter := c.predict(tc.aave, c.addr(tc.source), 2000, client)
			deploy := func() error {
				factory := c.addr(contracts.EarnFactory)
				if tc.aave {
					_, err := c.owner.sendAt(contracts.EarnWrapperFactory, factory, "deployAaveWrapper", c.addr(tc.source), c.addr(contracts.USDC), big.NewInt(2000), client)
					return err
				}
				_, err := c.owner.sendAt(contracts.EarnWrapperFactory, factory, "deployVaultWrapper", c.addr(tc.source), big.NewInt(2000), client)
				return err
			}
			if err := deploy(); err != nil {
				t.Fatalf("deploy: %v", err)
			}
			if code, _ := c.client.CodeAt(context.Background(), wrapper, nil); len(code) == 0 {
				t.Fatal("no wrapper at the predicted address")
			}
			if err := deploy(); err == nil { // the same configuration is the same addresses, which exist
				t.Fatal("deploying the same wrapper twice succeeded")
			}

			amount := tokens(10_000, 6)
			c.mintTo(contracts.USDC, c.alice.addr, amount)
			c.alice.send(contracts.USDC, "approve", wrapper, amount)
			if _, err := c.alice.sendAt(contracts.EarnWrapper, wrapper, "deposit", amount, c.alice.addr); err != nil {
				t.Fatalf("deposit: %v", err)
			}
			if got := c.balance(contracts.USDC, wrapper); got.Sign() != 0 {
				t.Fatalf("the wrapper kept %s USDC instead of putting it in its source", got)
			}
			start := c.uintAt(contracts.EarnWrapper, wrapper, "totalAssets")
			c.advance(365 * 24 * time.Hour)
			grown := c.uintAt(contracts.EarnWrapper, wrapper, "totalAssets")
			interest := sub(grown, start)
			if interest.Cmp(tokens(100, 6)) < 0 {
				t.Fatalf("a year earned %s on 10,000 USDC", interest)
			}
			// 30% of the interest (20% the client's, 10% the platform's) is owed to the splitter.
			shares := c.uintAt(contracts.EarnWrapper, wrapper, "balanceOf", c.alice.addr)
			value := c.uintAt(contracts.EarnWrapper, wrapper, "convertToAssets", shares)
			want := sub(grown, mulDiv(interest, big.NewInt(3000), big.NewInt(10_000)))
			if d := sub(value, want); d.CmpAbs(big.NewInt(2)) > 0 {
				t.Fatalf("the depositor's shares are worth %s, want %s (all but 30%% of %s interest)", value, want, interest)
			}

			held := c.balance(contracts.USDC, c.alice.addr)
			if _, err := c.alice.sendAt(contracts.EarnWrapper, wrapper, "redeem", shares, c.alice.addr, c.alice.addr); err != nil {
				t.Fatalf("redeem MAX: %v", err)
			}
			wantEq(t, "shares left", c.uintAt(contracts.EarnWrapper, wrapper, "balanceOf", c.alice.addr), new(big.Int))
			// Paid what the shares were worth, and the few seconds' interest of the block that redeemed them.
			got := sub(c.balance(contracts.USDC, c.alice.addr), held)
			if got.Cmp(value) < 0 || got.Cmp(add(value, big.NewInt(1_000))) > 0 {
				t.Fatalf("redeemed %s, the shares were worth %s", got, value)
			}

			clientDue := c.uintAt(contracts.EarnFeeSplitter, splitter, "releasableAssets", client)
			platformDue := c.uintAt(contracts.EarnFeeSplitter, splitter, "releasableAssets", c.feeTo)
			wantClient := mulDiv(interest, big.NewInt(2000), big.NewInt(10_000))
			if d := sub(clientDue, wantClient); d.CmpAbs(big.NewInt(3)) > 0 {
				t.Fatalf("client's fee %s, want %s (20%% of %s)", clientDue, wantClient, interest)
			}
			if d := sub(new(big.Int).Mul(platformDue, big.NewInt(2)), clientDue); d.CmpAbs(big.NewInt(3)) > 0 {
				t.Fatalf("platform's fee %s, want half the client's %s", platformDue, clientDue)
			}
			before := c.balance(contracts.USDC, client)
			if _, err := c.owner.sendAt(contracts.EarnFeeSplitter, splitter, "release", client); err != nil {
				t.Fatalf("release: %v", err)
			}
			if paid := sub(c.balance(contracts.USDC, client), before); sub(paid, clientDue).CmpAbs(big.NewInt(1)) > 0 {
				t.Fatalf("release paid %s, %s was releasable", paid, clientDue)
			}
			_, err := c.owner.sendAt(contracts.EarnFeeSplitter, splitter, "release", client)
			wantRevert(t, err, contracts.EarnFeeSplitter, "NothingToRelease")
			_, err = c.owner.sendAt(contracts.EarnFeeSplitter, splitter, "release", c.alice.addr)
			wantRevert(t, err, contracts.EarnFeeSplitter, "NotPayee")
			if _, err := c.owner.sendAt(contracts.EarnFeeSplitter, splitter, "release", c.feeTo); err != nil {
				t.Fatalf("platform release: %v", err)
			}
		})
	}
}

// The fee caps hold on chain: a client fee over 4,000 bps is refused.
func TestEarnWrapperFeeCap(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	_, err := c.owner.sendAt(contracts.EarnWrapperFactory, c.addr(contracts.EarnFactory), "deployVaultWrapper", c.addr(contracts.MorphoVaultUSDC), big.NewInt(4001), c.bob.addr)
	if err == nil {
		t.Fatal("a 4,001 bps client fee was deployed")
	}
	if _, err := c.owner.sendAt(contracts.EarnWrapperFactory, c.addr(contracts.EarnFactory), "deployVaultWrapper", c.addr(contracts.MorphoVaultUSDC), big.NewInt(4000), c.bob.addr); err != nil {
		t.Fatalf("a 4,000 bps client fee: %v", err)
	}
}

// The reward distributor works as Merkl's: a claim with a proof of the user's cumulative amount against the live root
// pays what was not claimed yet; only the user (or its operator) may claim; a wrong amount is an invalid proof; a new
// root with a larger cumulative amount pays the difference.
func TestEarnRewardDistributor(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	dist, token := c.addr(contracts.EarnDistributor), c.addr(contracts.RewardToken)
	c.mintTo(contracts.RewardToken, dist, tokens(1_000, 18))
	publish := func(leaves ...earn.Leaf) *earn.Tree {
		tree, err := earn.NewTree(leaves)
		if err != nil {
			t.Fatal(err)
		}
		c.owner.send(contracts.EarnDistributor, "updateTree", struct {
			MerkleRoot [32]byte
			IpfsHash   [32]byte
		}{tree.Root(), [32]byte{}})
		return tree
	}
	claim := func(from *account, l earn.Leaf, tree *earn.Tree) error {
		proof, _ := tree.Proof(l)
		p := make([][32]byte, len(proof))
		for i, h := range proof {
			p[i] = h
		}
		_, err := from.trySend(nil, contracts.EarnDistributor, "claim", []common.Address{l.User}, []common.Address{l.Token}, []*big.Int{l.Amount}, [][][32]byte{p})
		return err
	}
	alice := earn.Leaf{User: c.alice.addr, Token: token, Amount: tokens(10, 18)}
	bob := earn.Leaf{User: c.bob.addr, Token: token, Amount: tokens(3, 18)}
	other := earn.Leaf{User: c.feeTo, Token: token, Amount: tokens(1, 18)}
	tree := publish(alice, bob, other)
	wantRevert(t, claim(c.bob, alice, tree), contracts.EarnRewardDistributor, "NotWhitelisted")
	wrong := alice
	wrong.Amount = tokens(11, 18)
	proof, _ := tree.Proof(alice)
	if earn.VerifyProof(tree.Root(), wrong, proof) {
		t.Fatal("a proof of 10 proves 11")
	}
	if err := claim(c.alice, alice, tree); err != nil {
		t.Fatalf("claim: %v", err)
	}
	wantEq(t, "alice's MORPHO", c.balance(contracts.RewardToken, c.alice.addr), tokens(10, 18))
	if err := claim(c.alice, alice, tree); err != nil { // the same cumulative amount again pays nothing
		t.Fatalf("claim again: %v", err)
	}
	wantEq(t, "alice's MORPHO", c.balance(contracts.RewardToken, c.alice.addr), tokens(10, 18))

	alice.Amount = tokens(25, 18)
	tree = publish(alice, bob)
	if err := claim(c.alice, alice, tree); err != nil {
		t.Fatalf("claim after the new root: %v", err)
	}
	wantEq(t, "alice's MORPHO", c.balance(contracts.RewardToken, c.alice.addr), tokens(25, 18))
	if err := claim(c.bob, bob, tree); err != nil {
		t.Fatalf("bob's claim: %v", err)
	}
	wantEq(t, "bob's MORPHO", c.balance(contracts.RewardToken, c.bob.addr), tokens(3, 18))
}
