package earn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/abis"
)

// MerklRewards is one chain's entry of Merkl's GET /v4/users/{address}/rewards?chainId=N: the user's rewards in each
// token, with the cumulative amount in the published tree, the proof of it, what was claimed and what is pending
// (accrued, not yet in a published root). The dev chain serves the same shape for its distributor.
type MerklRewards struct {
	Chain struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	} `json:"chain"`
	Rewards []MerklReward `json:"rewards"`
}

// MerklReward is one token's reward of a user.
type MerklReward struct {
	Root      common.Hash   `json:"root"`
	Recipient string        `json:"recipient"`
	Amount    string        `json:"amount"`  // cumulative, in the published tree
	Claimed   string        `json:"claimed"` // as Merkl last saw it; the chain's word is read again
	Pending   string        `json:"pending"`
	Proofs    []common.Hash `json:"proofs"`
	Token     MerklToken    `json:"token"`
}

// MerklToken is a reward token as Merkl describes it.
type MerklToken struct {
	Address  common.Address `json:"address"`
	ChainID  int64          `json:"chainId"`
	Symbol   string         `json:"symbol"`
	Decimals int            `json:"decimals"`
	Price    float64        `json:"price"`
}

// Claimable is a user's reward in one token on one network, checked against the chain: Cumulative is proven by Proof
// against the distributor's live root, Claimed is what the distributor says the user claimed, Claimable the
// difference; Pending is what the rewards API says has accrued beyond the published tree.
type Claimable struct {
	Token      common.Address
	Symbol     string
	Decimals   int
	PriceUSD   float64
	Cumulative *big.Int
	Claimed    *big.Int
	Claimable  *big.Int
	Pending    *big.Int
	Proof      []common.Hash
}

const maxRewardsBody = 4 << 20

// FetchRewards asks the network's rewards API for a user's rewards on chainID.
func FetchRewards(ctx context.Context, hc *http.Client, baseURL string, user common.Address, chainID int64) ([]MerklReward, error) {
	u := strings.TrimRight(baseURL, "/") + "/v4/users/" + url.PathEscape(strings.ToLower(user.Hex())) + "/rewards?chainId=" + strconv.FormatInt(chainID, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRewardsBody+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("rewards API answered %s", resp.Status)
	}
	if len(body) > maxRewardsBody {
		return nil, errors.New("rewards API answered more than 4 MiB")
	}
	var chains []MerklRewards
	if err := json.Unmarshal(body, &chains); err != nil {
		return nil, fmt.Errorf("rewards API answered what is not Merkl's shape: %w", err)
	}
	var out []MerklReward
	for _, c := range chains {
		if c.Chain.ID == chainID {
			out = append(out, c.Rewards...)
		}
	}
	return out, nil
}

// CheckRewards checks the API's rewards of user against the distributor: the live root, each proof of each cumulative
// amount, and what the user claimed. A reward whose root is not the live one, or whose proof fails, is left out (its
// tokens are not claimable now; a root being replaced is the usual reason). One round trip.
func CheckRewards(ctx context.Context, client *rpc.Client, distributor, user common.Address, rewards []MerklReward) ([]Claimable, error) {
	r := NewReads(client)
	root := r.Add(&abis.EarnRewardDistributor, distributor, "getMerkleRoot")
	claimed := make([]*[]any, len(rewards))
	for i, rw := range rewards {
		claimed[i] = r.Add(&abis.EarnRewardDistributor, distributor, "claimed", user, rw.Token.Address)
	}
	if err := r.Do(ctx); err != nil {
		return nil, err
	}
	live, _ := (*root)[0].([32]byte)
	var out []Claimable
	for i, rw := range rewards {
		cumulative, ok1 := new(big.Int).SetString(rw.Amount, 10)
		pending, ok2 := new(big.Int).SetString(rw.Pending, 10)
		if !ok1 || cumulative.Sign() < 0 {
			return nil, fmt.Errorf("rewards API: amount %q of %s is not a decimal amount", rw.Amount, rw.Token.Address.Hex())
		}
		if !ok2 || pending.Sign() < 0 {
			pending = new(big.Int)
		}
		c := Claimable{Token: rw.Token.Address, Symbol: rw.Token.Symbol, Decimals: rw.Token.Decimals, PriceUSD: rw.Token.Price,
			Cumulative: cumulative, Claimed: firstUint(*claimed[i]), Pending: pending, Claimable: new(big.Int)}
		proven := rw.Root == common.Hash(live) && VerifyProof(live, Leaf{User: user, Token: rw.Token.Address, Amount: cumulative}, rw.Proofs)
		if proven && cumulative.Cmp(c.Claimed) > 0 {
			c.Claimable.Sub(cumulative, c.Claimed)
			c.Proof = rw.Proofs
		}
		out = append(out, c)
	}
	return out, nil
}
