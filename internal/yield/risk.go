package yield

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/internal/units"
)

// GET /v1/yields/{yieldId}/risk: the reference's RiskParameterDto list, from what the service can know itself rather
// than a rating agency's scores. Each parameter's value is an object (the reference's schema):
//
//	smart_contract / contract_age    {address, deploymentBlock, deployedAt, ageSeconds}: the first block whose state
//	                                  holds the yield's contract's code, found by searching eth_getCode over history
//	                                  (left out when the node keeps no history to search)
//	smart_contract / upgradeability  {address, upgradeable, implementation, admin}: whether the EIP-1967
//	                                  implementation slot of the contract is set, and the implementation and admin
//	                                  slots' addresses (null when unset)
//	liquidity / tvl                  {tvl, tvlRaw, token}: the assets the contract holds for its depositors
//	security / audits                {audits: [{auditor, date, url}]}: the catalogue's audits of the yield; an empty
//	                                  list means the catalogue names none, not that there were none
//
// The yield's contract is its vault, lending pool or staking contract.

// The EIP-1967 storage slots: keccak256("eip1967.proxy.implementation") − 1 and keccak256("eip1967.proxy.admin") − 1.
var (
	eip1967ImplementationSlot = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	eip1967AdminSlot          = common.HexToHash("0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103")
)

type riskParameterDTO struct {
	ID        string         `json:"id"`
	Category  string         `json:"category"`
	Item      string         `json:"item"`
	IsDynamic bool           `json:"isDynamic"`
	Value     map[string]any `json:"value"`
	Network   string         `json:"network"`
	Asset     map[string]any `json:"asset"`
	Protocol  map[string]any `json:"protocol"`
	CreatedAt string         `json:"createdAt"`
	UpdatedAt string         `json:"updatedAt"`
}

// deployment is where a contract's code first appears; it never changes unless the chain is reset, which the next
// risk request notices (the code is then not where the cache says).
type deployment struct {
	block, time uint64
}

type deploymentCache struct {
	mu sync.Mutex
	m  map[common.Address]deployment
}

func (c *deploymentCache) get(a common.Address) (deployment, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[a]
	return d, ok
}

func (c *deploymentCache) set(a common.Address, d deployment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[common.Address]deployment{}
	}
	c.m[a] = d
}

// contractOf is the contract a yield's deposits live in.
func (y *yieldEntry) contractOf() common.Address {
	switch y.cfg.Kind {
	case KindERC4626, KindAllocatorVault:
		return y.vault
	case KindLending:
		return y.pool
	}
	return y.staking
}

// tvl queues the read of the assets a yield's contract holds for its depositors.
func (y *yieldEntry) tvl(b *batch) *big.Int {
	switch y.cfg.Kind {
	case KindERC4626, KindAllocatorVault:
		return b.uint(y.vault, &erc4626ABI, "totalAssets")
	case KindLending:
		return b.uint(y.output, &erc20ABI, "totalSupply")
	case KindNativeStaking:
		return b.uint(y.staking, &nativeStakingABI, "totalStaked")
	}
	return b.uint(y.staking, &providerStakingABI, "totalPooledEther")
}

func (s *Service) handleRisk(r *http.Request, k *keyInfo) (any, error) {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return nil, notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	return s.risk(r.Context(), y)
}

// risk reads the chain in one batch (head, proxy slots, TVL, and a check of the cached deployment) and, the first
// time only, searches the contract's deployment block.
func (s *Service) risk(ctx context.Context, y *yieldEntry) ([]riskParameterDTO, error) {
	at := y.contractOf()
	b := y.client.newBatch()
	h := b.head()
	impl, admin := b.storageAt(at, eip1967ImplementationSlot), b.storageAt(at, eip1967AdminSlot)
	tvl := y.tvl(b)
	cached, hit := s.deployments.get(at)
	var check deploymentCheck
	if hit {
		check = b.checkDeployment(at, cached.block)
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	dep, known := cached, hit && check.holds()
	if !known {
		var err error
		dep, known, err = s.findDeployment(ctx, y.client, at, uint64(h.Number))
		if err != nil {
			return nil, err
		}
	}
	now := s.now().UTC()
	param := func(category, item string, dynamic bool, value map[string]any) riskParameterDTO {
		updated := s.started
		if dynamic {
			updated = now
		}
		return riskParameterDTO{ID: y.cfg.ID + "-" + item, Category: category, Item: item, IsDynamic: dynamic, Value: value,
			Network: y.network.ID, Asset: assetOf(y), Protocol: map[string]any{"id": y.cfg.ProviderID},
			CreatedAt: s.started.Format(time.RFC3339), UpdatedAt: updated.Format(time.RFC3339)}
	}
	var out []riskParameterDTO
	if known {
		out = append(out, param("smart_contract", "contract_age", true, map[string]any{
			"address": at.Hex(), "deploymentBlock": dep.block,
			"deployedAt": time.Unix(int64(dep.time), 0).UTC().Format(time.RFC3339),
			"ageSeconds": int64(h.Time) - int64(dep.time),
		}))
	}
	implementation, adminAddr := slotAddress(*impl), slotAddress(*admin)
	out = append(out,
		param("smart_contract", "upgradeability", true, map[string]any{
			"address": at.Hex(), "upgradeable": implementation != nil, "implementation": implementation, "admin": adminAddr,
		}),
		param("liquidity", "tvl", true, map[string]any{
			"tvl": units.Format(tvl, y.cfg.Token.Decimals), "tvlRaw": tvl.String(), "token": y.cfg.Token.dto(y.network.ID),
		}),
		param("security", "audits", false, map[string]any{"audits": nonNil(y.cfg.Audits)}),
	)
	return out, nil
}

func assetOf(y *yieldEntry) map[string]any {
	a := map[string]any{"symbol": y.cfg.Token.Symbol, "decimals": y.cfg.Token.Decimals}
	if y.cfg.Token.Address != "" {
		a["address"] = y.cfg.Token.Address
	}
	return a
}

// slotAddress is the address a proxy slot holds (its low 20 bytes), nil for an empty slot.
func slotAddress(word common.Hash) *string {
	if word == (common.Hash{}) {
		return nil
	}
	a := common.BytesToAddress(word[12:]).Hex()
	return &a
}

// storageAt queues eth_getStorageAt of a slot at the latest block.
func (b *batch) storageAt(at common.Address, slot common.Hash) *common.Hash {
	out := new(common.Hash)
	var v hexutil.Bytes
	i := len(b.elems)
	b.add(&v, "eth_getStorageAt", at, slot, "latest")
	b.decoded = append(b.decoded, func() error {
		if err := b.elems[i].Error; err != nil {
			return fmt.Errorf("eth_getStorageAt: %w", err)
		}
		*out = common.BytesToHash(v)
		return nil
	})
	return out
}

// codeAt queues eth_getCode at a block; *has tells whether code is there, *failed whether the node could not say
// (a node without the block's state: not an archive node).
func (b *batch) codeAt(at common.Address, block uint64) (has, failed *bool) {
	has, failed = new(bool), new(bool)
	var v hexutil.Bytes
	i := len(b.elems)
	b.add(&v, "eth_getCode", at, hexutil.Uint64(block))
	b.decoded = append(b.decoded, func() error {
		*failed = b.elems[i].Error != nil
		*has = len(v) > 0
		return nil
	})
	return has, failed
}

// headerAt queues the header of a block.
func (b *batch) headerAt(block uint64) *head {
	out := new(head)
	i := len(b.elems)
	b.add(out, "eth_getBlockByNumber", hexutil.Uint64(block), false)
	b.decoded = append(b.decoded, func() error {
		if err := b.elems[i].Error; err != nil {
			return fmt.Errorf("eth_getBlockByNumber: %w", err)
		}
		return nil
	})
	return out
}

// deploymentCheck confirms a cached deployment block: code there and none the block before.
type deploymentCheck struct{ at, before, failedAt, failedBefore *bool }

func (b *batch) checkDeployment(at common.Address, block uint64) deploymentCheck {
	c := deploymentCheck{before: new(bool), failedBefore: new(bool)}
	c.at, c.failedAt = b.codeAt(at, block)
	if block > 0 {
		c.before, c.failedBefore = b.codeAt(at, block-1)
	}
	return c
}

func (c deploymentCheck) holds() bool {
	return *c.at && !*c.before && !*c.failedAt && !*c.failedBefore
}

// searchFanout is how many blocks each round of the deployment search asks about in one batch: a search over 20
// million blocks takes 7 round trips instead of 25.
const searchFanout = 16

// findDeployment finds the first block with the contract's code, narrowing [lo, hi] by asking about searchFanout
// blocks per round trip, and caches it. known is false when the node cannot answer about old blocks.
func (s *Service) findDeployment(ctx context.Context, c *chainClient, at common.Address, latest uint64) (deployment, bool, error) {
	lo, hi := uint64(0), latest // code is at hi; the answer is in [lo, hi]
	for lo < hi {
		points := probePoints(lo, hi)
		b := c.newBatch()
		has := make([]*bool, len(points))
		failed := make([]*bool, len(points))
		for i, p := range points {
			has[i], failed[i] = b.codeAt(at, p)
		}
		if err := b.run(ctx); err != nil {
			return deployment{}, false, err
		}
		for i, p := range points {
			if *failed[i] {
				return deployment{}, false, nil
			}
			if *has[i] {
				hi = p
				break
			}
			lo = p + 1
		}
	}
	b := c.newBatch()
	h := b.headerAt(hi)
	if err := b.run(ctx); err != nil {
		return deployment{}, false, err
	}
	d := deployment{block: hi, time: uint64(h.Time)}
	s.deployments.set(at, d)
	return d, true, nil
}

// probePoints spreads up to searchFanout blocks over [lo, hi), in increasing order, the last one hi − 1 at most.
func probePoints(lo, hi uint64) []uint64 {
	span := hi - lo
	n := min(uint64(searchFanout), span)
	out := make([]uint64, 0, n)
	for i := uint64(0); i < n; i++ {
		p := lo + span*i/n
		if len(out) == 0 || p > out[len(out)-1] {
			out = append(out, p)
		}
	}
	return out
}
