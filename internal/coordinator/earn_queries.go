package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/earn"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/units"
)

// The queries of Earn.
var (
	getEarnDeployStatus = query(api.GetEarnDeployStatus, func(r *reader, q *api.GetEarnDeployStatusRequest) (*api.GetEarnDeployStatusResponse, error) {
		if err := parentOnly(r.org); err != nil {
			return nil, err
		}
		status, hash, reason, err := r.earnStatus(store.EarnDeploy, "deployRequestId", q.DeployRequestID)
		return &api.GetEarnDeployStatusResponse{Status: status, DeployTxHash: hash, Error: reason}, err
	})
	getEarnDepositStatus = query(api.GetEarnDepositStatus, func(r *reader, q *api.GetEarnDepositStatusRequest) (*api.GetEarnDepositStatusResponse, error) {
		status, hash, reason, err := r.earnStatus(store.EarnDeposit, "depositRequestId", q.DepositRequestID)
		return &api.GetEarnDepositStatusResponse{Status: status, DepositTxHash: hash, Error: reason}, err
	})
	getEarnWithdrawStatus = query(api.GetEarnWithdrawStatus, func(r *reader, q *api.GetEarnWithdrawStatusRequest) (*api.GetEarnWithdrawStatusResponse, error) {
		status, hash, reason, err := r.earnStatus(store.EarnWithdraw, "withdrawRequestId", q.WithdrawRequestID)
		return &api.GetEarnWithdrawStatusResponse{Status: status, WithdrawTxHash: hash, Error: reason}, err
	})
	getEarnClaimRewardsStatus = query(api.GetEarnClaimRewardsStatus, func(r *reader, q *api.GetEarnClaimRewardsStatusRequest) (*api.GetEarnClaimRewardsStatusResponse, error) {
		status, hash, reason, err := r.earnStatus(store.EarnClaimRewards, "claimRequestId", q.ClaimRequestID)
		return &api.GetEarnClaimRewardsStatusResponse{Status: status, ClaimTxHash: hash, Error: reason}, err
	})
	getClaimEarnFeesStatus = query(api.GetClaimEarnFeesStatus, func(r *reader, q *api.GetClaimEarnFeesStatusRequest) (*api.GetClaimEarnFeesStatusResponse, error) {
		status, hash, reason, err := r.earnStatus(store.EarnClaimFees, "claimRequestId", q.ClaimRequestID)
		return &api.GetClaimEarnFeesStatusResponse{Status: status, ClaimTxHash: hash, Error: reason}, err
	})
	listEarnVaults        = query(api.ListEarnVaults, queryListEarnVaults)
	listEarnEnabledVaults = query(api.ListEarnEnabledVaults, queryListEarnEnabledVaults)
	listEarnPositions     = query(api.ListEarnPositions, queryListEarnPositions)
	listEarnRewards       = query(api.ListEarnRewards, queryListEarnRewards)
)

// earnHTTP asks rewards APIs, with a bound on each request.
var earnHTTP = &http.Client{Timeout: earnReadTimeout}

// earnErrorABIs decode the reverts of Earn's contracts: the wrapper's (with OpenZeppelin's ERC-4626 and ERC-20
// errors), the splitter's, the distributor's, the factory's.
var earnErrorABIs = []*abi.ABI{&abis.EarnWrapper, &abis.EarnFeeSplitter, &abis.EarnRewardDistributor, &abis.EarnWrapperFactory}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// earnStatus is the status of the organization's Earn request of a kind.
func (r *reader) earnStatus(kind, field, id string) (status, hash, reason string, err error) {
	if err := checkID(field, id); err != nil {
		return "", "", "", err
	}
	req, err := r.c.store.EarnRequestByID(r.ctx, r.org.ID, kind, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", "", apierr.NotFoundf("%s %s not found in organization %s", field, id, r.org.ID)
	}
	if err != nil {
		return "", "", "", err
	}
	status, hash, reason = earnRequestStatus(req)
	return status, hash, reason, nil
}

// parseCAIP19 reads an EVM token's CAIP-19 id into its network and token address.
func parseCAIP19(path, id string) (string, common.Address, error) {
	network, asset, ok := strings.Cut(id, "/erc20:")
	if !ok || !common.IsHexAddress(asset) || checkChain(path, network) != nil {
		return "", common.Address{}, apierr.Invalid("%s must be an ERC-20 token's CAIP-19 id, eip155:<chain id>/erc20:<address>, got %q", path, id)
	}
	return network, common.HexToAddress(asset), nil
}

func checkProvider(path, provider string) error {
	switch provider {
	case "", "EARN_PROVIDER_UNSPECIFIED", api.EarnProviderMorpho, api.EarnProviderAave:
		return nil
	}
	return apierr.Invalid("%s: %q is not %s or %s", path, provider, api.EarnProviderMorpho, api.EarnProviderAave)
}

func providerMatches(want, got string) bool {
	return want == "" || want == "EARN_PROVIDER_UNSPECIFIED" || want == got
}

// maxEarnVaultsPage is the most vaults one page of list_earn_vaults holds (the reference's 100; 10 by default).
const maxEarnVaultsPage = 100

// queryListEarnVaults is the catalogue of an asset's vaults with what they publish now, sorted by TVL in USD, largest
// first (ties by address), paged by vault address.
func queryListEarnVaults(r *reader, q *api.ListEarnVaultsRequest) (*api.ListEarnVaultsResponse, error) {
	if err := parentOnly(r.org); err != nil {
		return nil, err
	}
	caip2, asset, err := parseCAIP19("caip19", q.Caip19)
	if err != nil {
		return nil, err
	}
	if err := checkProvider("provider", q.Provider); err != nil {
		return nil, err
	}
	limit, before, after, err := earnPage(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	out := &api.ListEarnVaultsResponse{Vaults: []api.EarnVault{}}
	en, nw, err := r.c.earnNetwork("caip19", caip2)
	if err != nil {
		return nil, err
	}
	var vaults []earn.Vault
	for _, v := range en.Vaults {
		if v.Asset.Address == asset && providerMatches(q.Provider, v.Provider) {
			vaults = append(vaults, v)
		}
	}
	if len(vaults) == 0 {
		return out, nil
	}
	cl, err := chainClient(nw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
	defer cancel()
	states, err := earn.ReadVaults(ctx, cl, vaults)
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	enabled, err := r.c.store.EarnWrappers(r.ctx, en.CAIP2, r.org.ID)
	if err != nil {
		return nil, err
	}
	type row struct {
		vault api.EarnVault
		usd   float64
	}
	var rows []row
	for i, v := range vaults {
		st := states[i]
		if !st.Open {
			continue // a frozen or paused Aave reserve: the reference leaves it out
		}
		ev := api.EarnVault{VaultAddress: v.Address.Hex(), Provider: v.Provider, Caip19: en.CAIP19(&v), TVL: st.TVL.String(),
			APYPct: pct(st.APY), Name: v.Name, Curator: v.Curator, Display: display(st.TVL, v.Asset),
			Liquidity: st.Liquidity.String(), LiquidityDisplay: display(st.Liquidity, v.Asset),
			Enabled: slices.ContainsFunc(enabled, func(w store.EarnWrapper) bool { return w.Vault == lower(v.Address) })}
		rows = append(rows, row{vault: ev, usd: usdValue(st.TVL, v.Asset)})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if a.usd != b.usd {
			if a.usd > b.usd {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.vault.VaultAddress), strings.ToLower(b.vault.VaultAddress))
	})
	all := make([]api.EarnVault, len(rows))
	for i := range rows {
		all[i] = rows[i].vault
	}
	page, info := earnPageOf(all, limit, before, after, func(v api.EarnVault) string { return v.VaultAddress })
	out.Vaults, out.PageInfo = page, info
	return out, nil
}

// earnPage reads the pagination options: the limit (10 by default, at most 100) and the cursors (vault addresses).
func earnPage(p *api.Pagination) (limit int, before, after string, err error) {
	limit = 10
	if p == nil {
		return limit, "", "", nil
	}
	if p.Limit != "" {
		n, err := strconv.Atoi(p.Limit)
		if err != nil || n < 1 || n > maxEarnVaultsPage {
			return 0, "", "", apierr.Invalid("paginationOptions.limit must be between 1 and %d, got %q", maxEarnVaultsPage, p.Limit)
		}
		limit = n
	}
	if p.Before != "" && p.After != "" {
		return 0, "", "", apierr.Invalid("paginationOptions: give before or after, not both")
	}
	for _, c := range []string{p.Before, p.After} {
		if c != "" && !common.IsHexAddress(c) {
			return 0, "", "", apierr.Invalid("paginationOptions: %q is not a cursor of this list (a vault address)", c)
		}
	}
	return limit, p.Before, p.After, nil
}

// earnPageOf is the page of a sorted list after (or before) the item whose key is the cursor.
func earnPageOf[T any](all []T, limit int, before, after string, key func(T) string) ([]T, *api.PageInfo) {
	var start, end int
	find := func(cursor string) int {
		return slices.IndexFunc(all, func(v T) bool { return strings.EqualFold(key(v), cursor) })
	}
	switch {
	case after != "":
		if i := find(after); i >= 0 {
			start = i + 1
		} else {
			start = len(all)
		}
		end = min(start+limit, len(all))
	case before != "":
		if i := find(before); i >= 0 {
			end = i
		} else {
			end = 0
		}
		start = max(0, end-limit)
	default:
		end = min(limit, len(all))
	}
	page := all[start:end]
	info := &api.PageInfo{HasPreviousPage: start > 0, HasNextPage: end < len(all)}
	if len(page) > 0 {
		info.StartCursor, info.EndCursor = key(page[0]), key(page[len(page)-1])
	}
	return page, info
}

// queryListEarnEnabledVaults is the management view of the organization's wrappers (for a sub-organization, its
// parent's, which it deposits into, without the client's fee and wallet): their vault's APY gross and net of both fees,
// what was deposited through each, their deployment.
func queryListEarnEnabledVaults(r *reader, q *api.ListEarnEnabledVaultsRequest) (*api.ListEarnEnabledVaultsResponse, error) {
	if err := checkProvider("provider", q.Provider); err != nil {
		return nil, err
	}
	var caip2 string
	var asset common.Address
	if q.Caip19 != "" {
		var err error
		if caip2, asset, err = parseCAIP19("caip19", q.Caip19); err != nil {
			return nil, err
		}
	}
	owner := r.org.ID
	if r.org.ParentID != "" {
		owner = r.org.ParentID
	}
	wrappers, err := r.c.store.EarnWrappers(r.ctx, caip2, owner)
	if err != nil {
		return nil, err
	}
	out := &api.ListEarnEnabledVaultsResponse{EnabledVaults: []api.EarnEnabledVault{}}
	cat := r.c.earn.Load()
	byNetwork := map[string][]store.EarnWrapper{}
	for _, w := range wrappers {
		byNetwork[w.Network] = append(byNetwork[w.Network], w)
	}
	for _, caip := range slices.Sorted(mapKeys(byNetwork)) {
		en, ok := cat.Network(caip)
		if !ok {
			continue // a network Earn no longer runs on
		}
		var ws []store.EarnWrapper
		var vaults []earn.Vault
		for _, w := range byNetwork[caip] {
			v, ok := en.Vault(w.Vault)
			if !ok || (q.Caip19 != "" && v.Asset.Address != asset) || !providerMatches(q.Provider, v.Provider) {
				continue
			}
			ws, vaults = append(ws, w), append(vaults, *v)
		}
		if len(ws) == 0 {
			continue
		}
		rows, err := r.enabledVaults(en, ws, vaults, q.IncludeExposure != nil && *q.IncludeExposure, r.org.ParentID == "")
		if err != nil {
			return nil, err
		}
		out.EnabledVaults = append(out.EnabledVaults, rows...)
	}
	return out, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// enabledVaults reads one network's wrappers and their vaults, in batches: the vaults, then every deployed wrapper
// (with its client's claimable fee for the wrappers' own organization).
func (r *reader) enabledVaults(en *earn.Network, ws []store.EarnWrapper, vaults []earn.Vault, exposure, owner bool) ([]api.EarnEnabledVault, error) {
	_, nw, err := r.c.earnNetwork("caip19", en.CAIP2)
	if err != nil {
		return nil, err
	}
	cl, err := chainClient(nw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
	defer cancel()
	states, err := earn.ReadVaults(ctx, cl, vaults)
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	statuses, err := r.deployStatuses(ws)
	if err != nil {
		return nil, err
	}
	var deployed []int
	var addrs, splitters, clients []common.Address
	for i, w := range ws {
		if statuses[i].status != api.EarnStatusCompleted {
			continue // no code to read until it is mined
		}
		deployed = append(deployed, i)
		addrs, splitters = append(addrs, common.HexToAddress(w.Wrapper)), append(splitters, common.HexToAddress(w.Splitter))
		client := common.Address{}
		if owner {
			client = common.HexToAddress(w.ClientFeeWallet)
		}
		clients = append(clients, client)
	}
	read, err := earn.ReadWrappers(ctx, cl, addrs, splitters, clients, common.Address{})
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	wstates := make([]earn.WrapperState, len(ws))
	for k, i := range deployed {
		wstates[i] = read[k]
	}
	var out []api.EarnEnabledVault
	for i, w := range ws {
		v, st, wst := vaults[i], states[i], wstates[i]
		total := w.ClientFeeBps + w.PlatformFeeBps
		deposited, claimable := orZero(wst.TotalAssets), orZero(wst.ClaimableClientFee)
		ev := api.EarnEnabledVault{VaultAddress: v.Address.Hex(), WrapperAddress: common.HexToAddress(w.Wrapper).Hex(), Provider: v.Provider,
			Caip19: en.CAIP19(&v), APYPct: pct(st.APY), NetAPYPct: pct(st.APY * (1 - float64(total)/10_000)),
			TotalDeposited: deposited.String(), Display: display(deposited, v.Asset), ClientFeeBps: strconv.FormatInt(w.ClientFeeBps, 10),
			DepositsDisabled: w.DepositsDisabled, Name: v.Name, Curator: v.Curator, Liquidity: st.Liquidity.String(),
			LiquidityDisplay: display(st.Liquidity, v.Asset), DeployStatus: statuses[i].status, DeployRequestID: w.DeployRequestID, DeployError: statuses[i].reason}
		if owner {
			ev.ClientFeeWallet = common.HexToAddress(w.ClientFeeWallet).Hex()
			ev.ClaimableClientFee, ev.ClaimableClientFeeDisplay = claimable.String(), display(claimable, v.Asset)
		}
		if exposure && v.Provider == earn.ProviderMorpho {
			ev.Exposures = exposures(en, st, v.Asset)
		}
		out = append(out, ev)
	}
	return out, nil
}

// deployStatus is a wrapper's deployment as its request has it.
type deployStatus struct{ status, reason string }

// deployStatuses are the wrappers' deployments; a wrapper whose request is not found has none (an empty status).
func (r *reader) deployStatuses(ws []store.EarnWrapper) ([]deployStatus, error) {
	out := make([]deployStatus, len(ws))
	for i, w := range ws {
		req, err := r.c.store.EarnRequestByID(r.ctx, w.OrgID, store.EarnDeploy, w.DeployRequestID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[i].status, _, out[i].reason = earnRequestStatus(req)
	}
	return out, nil
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// exposures are the markets a Morpho vault supplies to, largest first.
func exposures(en *earn.Network, st earn.VaultState, asset earn.Asset) []api.EarnVaultExposure {
	total := new(big.Int)
	for _, e := range st.Exposures {
		total.Add(total, e.Supplied)
	}
	var out []api.EarnVaultExposure
	sorted := slices.Clone(st.Exposures)
	slices.SortStableFunc(sorted, func(a, b earn.Exposure) int { return b.Supplied.Cmp(a.Supplied) })
	for _, e := range sorted {
		x := api.EarnVaultExposure{MarketID: e.MarketID.Hex(), CollateralSymbol: e.CollateralToken, LLTVPct: pct(e.LLTV),
			Supplied: e.Supplied.String(), Display: display(e.Supplied, asset), SharePct: pct(0)}
		if e.Collateral != (common.Address{}) {
			x.CollateralCaip19 = en.CAIP2 + "/erc20:" + lower(e.Collateral)
		}
		if total.Sign() > 0 {
			share, _ := new(big.Rat).SetFrac(e.Supplied, total).Float64()
			x.SharePct = pct(share)
		}
		out = append(out, x)
	}
	return out
}

// queryListEarnPositions is a wallet's positions: one per wrapper (the organization's, or its parent's) it holds
// shares of, worth what its shares redeem for now (net of the fees owed), with what was deposited and withdrawn since
// the position was opened or last withdrawn whole.
func queryListEarnPositions(r *reader, q *api.ListEarnPositionsRequest) (*api.ListEarnPositionsResponse, error) {
	if err := checkAddress("walletAddress", q.WalletAddress); err != nil {
		return nil, err
	}
	wallet := common.HexToAddress(q.WalletAddress)
	out := &api.ListEarnPositionsResponse{Positions: []api.EarnPosition{}}
	ids := []string{r.org.ID}
	if r.org.ParentID != "" {
		ids = append(ids, r.org.ParentID)
	}
	wrappers, err := r.c.store.EarnWrappers(r.ctx, "", ids...)
	if err != nil {
		return nil, err
	}
	requests, err := r.c.store.EarnPositionRequests(r.ctx, r.org.ID, lower(wallet))
	if err != nil {
		return nil, err
	}
	statuses, err := r.deployStatuses(wrappers)
	if err != nil {
		return nil, err
	}
	// One batch of reads per network, of the wrappers whose deployment is mined.
	cat := r.c.earn.Load()
	byNetwork := map[string][]store.EarnWrapper{}
	for i, w := range wrappers {
		if statuses[i].status == api.EarnStatusCompleted {
			byNetwork[w.Network] = append(byNetwork[w.Network], w)
		}
	}
	for _, caip := range slices.Sorted(mapKeys(byNetwork)) {
		en, ok := cat.Network(caip)
		if !ok {
			continue // a network Earn no longer runs on
		}
		var ws []store.EarnWrapper
		var vaults []*earn.Vault
		var addrs []common.Address
		for _, w := range byNetwork[caip] {
			if v, ok := en.Vault(w.Vault); ok {
				ws, vaults, addrs = append(ws, w), append(vaults, v), append(addrs, common.HexToAddress(w.Wrapper))
			}
		}
		if len(ws) == 0 {
			continue
		}
		_, nw, err := r.c.earnNetwork("walletAddress", caip)
		if err != nil {
			continue
		}
		cl, err := chainClient(nw)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
		states, err := earn.ReadWrappers(ctx, cl, addrs, nil, nil, wallet)
		cancel()
		if err != nil {
			return nil, chainUnavailable(nw.CAIP2, err)
		}
		for i, w := range ws {
			if states[i].Shares.Sign() > 0 {
				out.Positions = append(out.Positions, earnPosition(en, vaults[i], w, states[i], requests))
			}
		}
	}
	return out, nil
}

// earnPosition is a wallet's position in a wrapper, as read from the chain, with its totals from its requests.
func earnPosition(en *earn.Network, v *earn.Vault, w store.EarnWrapper, st earn.WrapperState, requests []store.EarnRequest) api.EarnPosition {
	deposited, withdrawn := positionTotals(requests, w.Wrapper)
	decimals := uint8(v.Asset.Decimals)
	return api.EarnPosition{VaultAddress: v.Address.Hex(), WrapperAddress: common.HexToAddress(w.Wrapper).Hex(), Provider: v.Provider,
		Caip19: en.CAIP19(v), CurrentValue: st.Value.String(), TotalDeposited: deposited.String(), TotalWithdrawn: withdrawn.String(),
		DepositsDisabled: w.DepositsDisabled,
		Display: &api.EarnPositionDisplay{CurrentValueUSD: usdString(st.Value, v.Asset), TotalDepositedUSD: usdString(deposited, v.Asset),
			TotalWithdrawnUSD: usdString(withdrawn, v.Asset), CurrentValueCrypto: units.Format(st.Value, decimals),
			TotalDepositedCrypto: units.Format(deposited, decimals), TotalWithdrawnCrypto: units.Format(withdrawn, decimals)}}
}

// positionTotals sums a wrapper's completed deposits and withdrawals in the order they were made; a completed MAX
// withdrawal closes the position, and the totals start again from zero after it.
func positionTotals(requests []store.EarnRequest, wrapper string) (deposited, withdrawn *big.Int) {
	deposited, withdrawn = new(big.Int), new(big.Int)
	for _, req := range requests {
		if req.Wrapper != wrapper || req.Send == nil || req.Send.Status != store.SendIncluded {
			continue
		}
		if req.Kind == store.EarnWithdraw && req.Amount == api.EarnWithdrawMax {
			deposited, withdrawn = new(big.Int), new(big.Int)
			continue
		}
		amount, ok := new(big.Int).SetString(req.Amount, 10)
		if !ok {
			continue
		}
		if req.Kind == store.EarnDeposit {
			deposited.Add(deposited, amount)
		} else {
			withdrawn.Add(withdrawn, amount)
		}
	}
	return deposited, withdrawn
}

// queryListEarnRewards is a wallet's rewards on a chain (or on every chain the organization, or its parent, has
// wrappers on), one per chain and token, sorted by chain then token, all-zero entries left out.
func queryListEarnRewards(r *reader, q *api.ListEarnRewardsRequest) (*api.ListEarnRewardsResponse, error) {
	if err := checkAddress("walletAddress", q.WalletAddress); err != nil {
		return nil, err
	}
	var networks []string
	if q.Caip2 != "" {
		if err := checkChain("caip2", q.Caip2); err != nil {
			return nil, err
		}
		networks = []string{q.Caip2}
	} else {
		ids := []string{r.org.ID}
		if r.org.ParentID != "" {
			ids = append(ids, r.org.ParentID)
		}
		wrappers, err := r.c.store.EarnWrappers(r.ctx, "", ids...)
		if err != nil {
			return nil, err
		}
		for _, w := range wrappers {
			if !slices.Contains(networks, w.Network) {
				networks = append(networks, w.Network)
			}
		}
		slices.Sort(networks)
	}
	wallet := common.HexToAddress(q.WalletAddress)
	out := &api.ListEarnRewardsResponse{Rewards: []api.EarnReward{}}
	for _, caip := range networks {
		en, nw, err := r.c.earnNetwork("caip2", caip)
		if err != nil {
			return nil, err
		}
		rewards, err := r.c.earnRewards(r.ctx, en, nw, wallet)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(rewards, func(a, b earn.Claimable) int { return strings.Compare(lower(a.Token), lower(b.Token)) })
		for _, c := range rewards {
			claimed := minBig(c.Claimed, c.Cumulative)
			if c.Claimable.Sign() == 0 && claimed.Sign() == 0 && c.Pending.Sign() == 0 {
				continue
			}
			a := earn.Asset{Decimals: c.Decimals, PriceUSD: c.PriceUSD}
			out.Rewards = append(out.Rewards, api.EarnReward{Caip2: caip, Caip19: caip + "/erc20:" + lower(c.Token), Symbol: c.Symbol,
				Decimals: c.Decimals, Claimable: c.Claimable.String(), Claimed: c.Claimed.String(), Pending: c.Pending.String(),
				Display: &api.EarnRewardDisplay{ClaimableUSD: usdString(c.Claimable, a), ClaimableCrypto: units.Format(c.Claimable, uint8(c.Decimals)),
					ClaimedUSD: usdString(c.Claimed, a), ClaimedCrypto: units.Format(c.Claimed, uint8(c.Decimals)),
					PendingUSD: usdString(c.Pending, a), PendingCrypto: units.Format(c.Pending, uint8(c.Decimals))}})
		}
	}
	return out, nil
}

func minBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

// pct is a fraction as the reference writes percentages: a decimal string ("0.0812" for 8.12%).
func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// usdValue is an amount of an asset in USD (0 for an unpriced asset).
func usdValue(amount *big.Int, a earn.Asset) float64 {
	f, _ := new(big.Float).SetInt(amount).Float64()
	return f / math.Pow10(a.Decimals) * a.PriceUSD
}

// usdString is usdValue for display, with cents; "" for an unpriced asset.
func usdString(amount *big.Int, a earn.Asset) string {
	if a.PriceUSD == 0 {
		return ""
	}
	return strconv.FormatFloat(usdValue(amount, a), 'f', 2, 64)
}

// display is an amount in USD and in the asset's units, for display only.
func display(amount *big.Int, a earn.Asset) *api.EarnValueDisplay {
	return &api.EarnValueDisplay{USD: usdString(amount, a), Crypto: units.Format(amount, uint8(a.Decimals))}
}
