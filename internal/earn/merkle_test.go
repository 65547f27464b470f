package earn_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/earn"
)

// Every leaf of trees of every size up to 17 has a proof that verifies under the root, and a proof proves nothing
// else (another amount, user or token). The contract's own check of these proofs (OpenZeppelin's MerkleProof) is
// tested in internal/contracts (TestEarnRewardDistributor).
func TestTreeProofs(t *testing.T) {
	token := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	for n := 1; n <= 17; n++ {
		var leaves []earn.Leaf
		for i := range n {
			leaves = append(leaves, earn.Leaf{User: common.BigToAddress(big.NewInt(int64(1000 + i))), Token: token, Amount: big.NewInt(int64(7 * (i + 1)))})
		}
		tree, err := earn.NewTree(leaves)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leaves {
			proof, ok := tree.Proof(l)
			if !ok || !earn.VerifyProof(tree.Root(), l, proof) {
				t.Fatalf("%d leaves: the proof of %v does not verify", n, l)
			}
			other := l
			other.Amount = new(big.Int).Add(l.Amount, big.NewInt(1))
			if earn.VerifyProof(tree.Root(), other, proof) {
				t.Fatalf("%d leaves: a proof of %s proves %s", n, l.Amount, other.Amount)
			}
			other = l
			other.Token = common.Address{}
			if earn.VerifyProof(tree.Root(), other, proof) && n > 1 {
				t.Fatalf("%d leaves: a proof of a token proves another", n)
			}
		}
	}
	if _, err := earn.NewTree(nil); err == nil {
		t.Fatal("a tree of no leaves")
	}
	l := earn.Leaf{User: common.Address{1}, Token: token, Amount: big.NewInt(1)}
	if _, err := earn.NewTree([]earn.Leaf{l, l}); err == nil {
		t.Fatal("a tree listing a leaf twice")
	}
}
