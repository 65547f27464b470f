package earn

import (
	"bytes"
	"errors"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Leaf is one entry of a reward tree: the cumulative amount of a token a user has earned so far. A tree of them is
// what Merkl publishes and its Distributor (and the dev chain's EarnRewardDistributor) checks claims against.
type Leaf struct {
	User   common.Address
	Token  common.Address
	Amount *big.Int
}

// Hash is the leaf as the distributor hashes it: keccak256(abi.encode(user, token, amount)).
func (l Leaf) Hash() common.Hash {
	packed, err := leafArgs.Pack(l.User, l.Token, l.Amount)
	if err != nil {
		panic(err) // the types are fixed: only a nil amount fails, which is a caller's bug
	}
	return crypto.Keccak256Hash(packed)
}

var leafArgs = func() abi.Arguments {
	addr, _ := abi.NewType("address", "", nil)
	u256, _ := abi.NewType("uint256", "", nil)
	return abi.Arguments{{Type: addr}, {Type: addr}, {Type: u256}}
}()

// Tree is a Merkle tree of leaves whose pairs are hashed in sorted order (keccak256 of the smaller hash then the
// larger), as Merkl's Distributor and OpenZeppelin's MerkleProof verify them. A level with an odd number of nodes
// carries its last node up unpaired.
type Tree struct {
	levels [][]common.Hash // levels[0] the leaves' hashes, sorted; the last level the root
	index  map[common.Hash]int
}

// NewTree builds the tree of the leaves (in any order; at least one).
func NewTree(leaves []Leaf) (*Tree, error) {
	if len(leaves) == 0 {
		return nil, errors.New("earn: a reward tree needs a leaf")
	}
	hashes := make([]common.Hash, len(leaves))
	for i, l := range leaves {
		hashes[i] = l.Hash()
	}
	slices.SortFunc(hashes, func(a, b common.Hash) int { return bytes.Compare(a[:], b[:]) })
	t := &Tree{levels: [][]common.Hash{hashes}, index: map[common.Hash]int{}}
	for i, h := range hashes {
		if _, dup := t.index[h]; dup {
			return nil, errors.New("earn: a reward tree lists the same leaf twice")
		}
		t.index[h] = i
	}
	for level := hashes; len(level) > 1; {
		next := make([]common.Hash, 0, (len(level)+1)/2)
		for i := 0; i < len(level); i += 2 {
			if i+1 == len(level) {
				next = append(next, level[i])
				continue
			}
			next = append(next, hashPair(level[i], level[i+1]))
		}
		t.levels = append(t.levels, next)
		level = next
	}
	return t, nil
}

// Root is the tree's root.
func (t *Tree) Root() common.Hash { return t.levels[len(t.levels)-1][0] }

// Proof is the proof of a leaf, from the leaf's sibling up; false when the tree lacks the leaf.
func (t *Tree) Proof(l Leaf) ([]common.Hash, bool) {
	i, ok := t.index[l.Hash()]
	if !ok {
		return nil, false
	}
	var proof []common.Hash
	for _, level := range t.levels[:len(t.levels)-1] {
		if sibling := i ^ 1; sibling < len(level) {
			proof = append(proof, level[sibling])
		}
		i /= 2
	}
	return proof, true
}

// VerifyProof reports whether proof proves leaf under root, as the distributor checks it.
func VerifyProof(root common.Hash, l Leaf, proof []common.Hash) bool {
	h := l.Hash()
	for _, p := range proof {
		h = hashPair(h, p)
	}
	return h == root
}

func hashPair(a, b common.Hash) common.Hash {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	return crypto.Keccak256Hash(a[:], b[:])
}
