package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/earn"
)

// The dev chain plays Merkl for Earn: a campaign pays MORPHO to whoever holds, through an Earn wrapper, a position in
// the dev chain's Morpho vault, forwarded through the wrapper to its depositors as Merkl forwards them. Each simulator
// step accrues every holder's reward for the chain time it paid, by the value of its position; once RewardRootPeriod of
// chain time has passed since the last root, the step publishes a new Merkle tree of everyone's cumulative rewards to
// the EarnRewardDistributor (minting it the MORPHO the tree adds) and serves the tree's leaves and proofs in Merkl's
// API shape (GET /v4/users/{address}/rewards?chainId=N), so that a claim is a real proof the contract checks. Rewards
// accrued since the last root are pending: not claimable until the next one.

// RewardsPath is where the dev chain serves its rewards API, next to JSON-RPC (Merkl's /v4/users/{address}/rewards).
const RewardsPath = "/v4/users/"

// rewardBook is the campaign's accounting: what each holder earned, what the last published tree says, and which
// wrappers and holders the chain's logs named so far. Persisted in the data directory (rewards.json) so that a
// restarted chain serves the proofs of the root it published.
type rewardBook struct {
	mu   sync.Mutex
	path string // "" keeps it in memory
	rewardBookState
}

type rewardBookState struct {
	Distributor common.Address                      `json:"distributor"` // the book is this distributor's: a redeployment starts another
	Accrued     map[common.Address]*big.Int         `json:"accrued"`     // cumulative, published or not
	Published   map[common.Address]*big.Int         `json:"published"`   // cumulative, in the live root
	Root        common.Hash                         `json:"root"`
	PublishedAt uint64                              `json:"publishedAt"` // chain time of the live root
	Minted      *big.Int                            `json:"minted"`      // MORPHO minted to the distributor so far
	Wrappers    []common.Address                    `json:"wrappers"`    // Earn wrappers over the rewarded vault
	Holders     map[common.Address][]common.Address `json:"holders"`     // per wrapper
	ScannedTo   uint64                              `json:"scannedTo"`   // logs read up to this block
}

// loadRewardBook reads the book of distributor in dir, or starts one whose first root is due a period after now.
func loadRewardBook(dir string, distributor common.Address, now uint64) (*rewardBook, error) {
	b := &rewardBook{rewardBookState: rewardBookState{Distributor: distributor, Accrued: map[common.Address]*big.Int{},
		Published: map[common.Address]*big.Int{}, Minted: new(big.Int), Holders: map[common.Address][]common.Address{}, PublishedAt: now}}
	if dir == "" {
		return b, nil
	}
	b.path = filepath.Join(dir, "rewards.json")
	data, err := os.ReadFile(b.path)
	if os.IsNotExist(err) {
		return b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("chain: rewards: %w", err)
	}
	var saved rewardBookState
	if err := json.Unmarshal(data, &saved); err != nil {
		return nil, fmt.Errorf("chain: rewards: %s: %w", b.path, err)
	}
	if saved.Distributor == distributor {
		b.rewardBookState = saved
	}
	return b, nil
}

func (b *rewardBook) save() error {
	if b.path == "" {
		return nil
	}
	data, err := json.Marshal(b.rewardBookState)
	if err != nil {
		return err
	}
	tmp := b.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, b.path)
}

// rewards accrues the campaign for the step's elapsed time and publishes a root when one is due.
func (st *step) rewards() {
	s := st.s
	if s.book == nil || st.err != nil || s.cfg.RewardAPRBps <= 0 {
		return
	}
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	if st.err = s.book.scan(st.ctx, s); st.err != nil {
		return
	}
	for _, w := range s.book.Wrappers {
		for _, holder := range s.book.Holders[w] {
			shares := st.readAt(&abis.EarnWrapper, w, "balanceOf", holder)
			if shares.Sign() == 0 {
				continue
			}
			value := st.readAt(&abis.EarnWrapper, w, "convertToAssets", shares)
			// USDC (6 decimals) valued at one MORPHO (18 decimals) each: the reward in MORPHO base units.
			reward := st.accrual(new(big.Int).Mul(value, big.NewInt(1e12)), big.NewInt(s.cfg.RewardAPRBps), bps)
			if reward.Sign() > 0 {
				s.book.Accrued[holder] = new(big.Int).Add(orZero(s.book.Accrued[holder]), reward)
				st.report.Paid[contracts.RewardToken] = new(big.Int).Add(orZero(st.report.Paid[contracts.RewardToken]), reward)
			}
		}
	}
	if now := s.lastTime + st.elapsed.Uint64(); st.err == nil && now >= s.book.PublishedAt+uint64(s.cfg.RewardRootPeriod.Seconds()) {
		st.err = s.book.publish(st)
	}
	if st.err == nil {
		st.err = s.book.save()
	}
}

// readAt reads a uint of a contract that is not a fixture (a wrapper).
func (st *step) readAt(a *abi.ABI, at common.Address, method string, args ...any) *big.Int {
	if st.err != nil {
		return new(big.Int)
	}
	r := earn.NewReads(st.s.client.Client())
	out := r.Add(a, at, method, args...)
	if st.err = r.Do(st.ctx); st.err != nil {
		return new(big.Int)
	}
	v, _ := (*out)[0].(*big.Int)
	return orZero(v)
}

// scan reads the logs since the last scan: wrappers the factory deployed over the rewarded vault, and every address
// their shares were transferred to.
func (b *rewardBook) scan(ctx context.Context, s *Simulator) error {
	head, err := s.client.BlockNumber(ctx)
	if err != nil || head < b.ScannedTo {
		return err
	}
	from := new(big.Int).SetUint64(b.ScannedTo)
	to := new(big.Int).SetUint64(head)
	deployed := abis.EarnWrapperFactory.Events["WrapperDeployed"].ID
	vault := common.BytesToHash(s.addresses[contracts.MorphoVaultUSDC].Bytes())
	logs, err := s.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: from, ToBlock: to, Addresses: []common.Address{s.addresses[contracts.EarnFactory]},
		Topics: [][]common.Hash{{deployed}, nil, nil, {vault}}})
	if err != nil {
		return err
	}
	for _, l := range logs {
		if w := common.BytesToAddress(l.Topics[1].Bytes()); !slices.Contains(b.Wrappers, w) {
			b.Wrappers = append(b.Wrappers, w)
		}
	}
	if len(b.Wrappers) > 0 {
		transfer := abis.EarnWrapper.Events["Transfer"].ID
		logs, err = s.client.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: from, ToBlock: to, Addresses: b.Wrappers, Topics: [][]common.Hash{{transfer}}})
		if err != nil {
			return err
		}
		for _, l := range logs {
			holder := common.BytesToAddress(l.Topics[2].Bytes())
			if holder != (common.Address{}) && !slices.Contains(b.Holders[l.Address], holder) {
				b.Holders[l.Address] = append(b.Holders[l.Address], holder)
			}
		}
	}
	b.ScannedTo = head + 1
	return nil
}

// publish mints the distributor what the new tree adds and publishes the tree's root.
func (b *rewardBook) publish(st *step) error {
	token := st.s.addresses[contracts.RewardToken]
	var leaves []earn.Leaf
	total := new(big.Int)
	for holder, amount := range b.Accrued {
		if amount.Sign() > 0 {
			leaves = append(leaves, earn.Leaf{User: holder, Token: token, Amount: amount})
			total.Add(total, amount)
		}
	}
	if len(leaves) == 0 {
		return nil
	}
	tree, err := earn.NewTree(leaves)
	if err != nil {
		return err
	}
	if more := new(big.Int).Sub(total, b.Minted); more.Sign() > 0 {
		if err := sendTo(st.ctx, st.s.sender, st.s.addresses, contracts.RewardToken, nil, "mint", st.s.addresses[contracts.EarnDistributor], more); err != nil {
			return err
		}
		b.Minted = total
	}
	published, _ := json.Marshal(leaves)
	err = sendTo(st.ctx, st.s.sender, st.s.addresses, contracts.EarnDistributor, nil, "updateTree", struct {
		MerkleRoot [32]byte
		IpfsHash   [32]byte
	}{tree.Root(), crypto.Keccak256Hash(published)})
	if err != nil {
		return err
	}
	b.Published = map[common.Address]*big.Int{}
	for _, l := range leaves {
		b.Published[l.User] = new(big.Int).Set(l.Amount)
	}
	b.Root, b.PublishedAt = tree.Root(), st.s.lastTime+st.elapsed.Uint64()
	return nil
}

// rewardsOf is a holder's entry in Merkl's shape: its cumulative amount in the live tree with the proof, what it
// claimed (the distributor's word), and what accrued since.
func (b *rewardBook) rewardsOf(ctx context.Context, s *Simulator, user common.Address, chainID int64) ([]earn.MerklRewards, error) {
	b.mu.Lock()
	published, accrued, root := orZero(b.Published[user]), orZero(b.Accrued[user]), b.Root
	var leaves []earn.Leaf
	token := s.addresses[contracts.RewardToken]
	for holder, amount := range b.Published {
		leaves = append(leaves, earn.Leaf{User: holder, Token: token, Amount: amount})
	}
	b.mu.Unlock()
	entry := earn.MerklRewards{Rewards: []earn.MerklReward{}}
	entry.Chain.ID, entry.Chain.Name = chainID, NetworkName
	if accrued.Sign() == 0 {
		return []earn.MerklRewards{entry}, nil
	}
	claimed, err := readUint(ctx, s.client, s.addresses, contracts.EarnDistributor, "claimed", user, token)
	if err != nil {
		return nil, err
	}
	r := earn.MerklReward{Root: root, Recipient: strings.ToLower(user.Hex()), Amount: published.String(), Claimed: claimed.String(),
		Pending: new(big.Int).Sub(accrued, published).String(), Proofs: []common.Hash{},
		Token: earn.MerklToken{Address: token, ChainID: chainID, Symbol: "MORPHO", Decimals: 18, Price: 1}}
	if published.Sign() > 0 {
		tree, err := earn.NewTree(leaves)
		if err != nil {
			return nil, err
		}
		proof, _ := tree.Proof(earn.Leaf{User: user, Token: token, Amount: published})
		r.Proofs = append(r.Proofs, proof...)
	}
	entry.Rewards = append(entry.Rewards, r)
	return []earn.MerklRewards{entry}, nil
}

// rewardsHandler serves GET /v4/users/{address}/rewards?chainId=N for the chain's simulator, once it runs.
func rewardsHandler(chainID int64, sim func() *Simulator) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, RewardsPath)
		address, tail, _ := strings.Cut(rest, "/")
		s := sim()
		switch {
		case r.Method != http.MethodGet:
			http.Error(w, `{"message":"GET only"}`, http.StatusMethodNotAllowed)
			return
		case tail != "rewards" || !common.IsHexAddress(address):
			http.Error(w, `{"message":"GET /v4/users/{address}/rewards?chainId=N"}`, http.StatusNotFound)
			return
		case s == nil || s.book == nil:
			http.Error(w, `{"message":"the dev chain is starting"}`, http.StatusServiceUnavailable)
			return
		}
		id, err := strconv.ParseInt(r.URL.Query().Get("chainId"), 10, 64)
		if err != nil || id != chainID {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("[]")) // Merkl answers nothing for a chain it has no rewards on
			return
		}
		out, err := s.book.rewardsOf(r.Context(), s, common.HexToAddress(address), id)
		if err != nil {
			http.Error(w, `{"message":"internal error"}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
