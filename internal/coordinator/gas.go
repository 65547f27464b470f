package coordinator

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// Gas-spend limits of sponsored sends: a billing organization's configuration, the spend of its organizations in a
// rolling window (what their included sponsored sends cost, in wei, valued in USD at the network's configured price),
// and the decision that refuses a sponsored send once a limit is reached.
var (
	upsertGasUsageConfig = activity(api.UpsertGasUsageConfig, on(resOrganization, actUpdate), validateGasUsageConfig, execUpsertGasUsageConfig)
	getGasUsage          = query(api.GetGasUsage, queryGetGasUsage)
)

// maxGasWindow is the longest window a limit may have.
const maxGasWindow = 30 * 24 * time.Hour

// GasUsageConfig is a billing organization's gas-spend limits, in USD over a rolling window.
type GasUsageConfig struct {
	ID             string  `json:"id"`
	OrgLimitUSD    float64 `json:"orgLimitUsd"`
	SubOrgLimitUSD float64 `json:"subOrgLimitUsd"`
	WindowMinutes  int32   `json:"windowMinutes"`
	Enabled        bool    `json:"enabled"`
}

func parseUSD(path, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != v {
		return 0, apierr.Invalid("%s must be a non-negative decimal amount of USD, got %q", path, s)
	}
	return v, nil
}

func validateGasUsageConfig(p *api.UpsertGasUsageConfigIntent) error {
	_, err := gasUsageConfig(p)
	return err
}

func gasUsageConfig(p *api.UpsertGasUsageConfigIntent) (*GasUsageConfig, error) {
	org, err := parseUSD("parameters.orgWindowLimitUsd", p.OrgWindowLimitUsd)
	if err != nil {
		return nil, err
	}
	sub, err := parseUSD("parameters.subOrgWindowLimitUsd", p.SubOrgWindowLimitUsd)
	if err != nil {
		return nil, err
	}
	minutes, err := strconv.ParseInt(p.WindowDurationMinutes, 10, 32)
	if err != nil || minutes <= 0 || time.Duration(minutes)*time.Minute > maxGasWindow {
		return nil, apierr.Invalid("parameters.windowDurationMinutes must be a whole number of minutes from 1 to 43200 (30 days), got %q", p.WindowDurationMinutes)
	}
	return &GasUsageConfig{OrgLimitUSD: org, SubOrgLimitUSD: sub, WindowMinutes: int32(minutes), Enabled: p.Enabled == nil || *p.Enabled}, nil
}

// execUpsertGasUsageConfig sets the limits of a billing organization (not of a sub-organization, whose limit its
// parent's configuration gives).
func execUpsertGasUsageConfig(x *execution, p *api.UpsertGasUsageConfigIntent) (*api.UpsertGasUsageConfigResult, error) {
	if x.org.ParentID != "" {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "gas-spend limits are set by the billing organization %s, for its sub-organizations too", x.org.ParentID)
	}
	cfg, err := gasUsageConfig(p)
	if err != nil {
		return nil, err
	}
	cfg.ID = newID()
	if x.org.GasUsage != nil {
		cfg.ID = x.org.GasUsage.ID
	}
	x.org.GasUsage = cfg
	return &api.UpsertGasUsageConfigResult{GasUsageConfigID: cfg.ID}, nil
}

// gasUsage is what sponsored sends cost in the window of a billing organization's limits: all its organizations'
// (the billing organization's limit), or one sub-organization's (its own limit), with the limit that applies.
type gasUsage struct {
	cfg      *GasUsageConfig
	limitUSD float64
	wei      *big.Int // on EVM networks
	lamports *big.Int // on Solana clusters
	usd      float64
}

// billingOrg is the organization whose sponsor and limits an organization's sponsored sends use: its parent, or
// itself.
func (c *Coordinator) billingOrg(ctx context.Context, org *Org) (*Org, error) {
	if org.ParentID == "" {
		return org, nil
	}
	return c.loadOrg(ctx, org.ParentID)
}

// gasLimits are the gas-spend limits a sponsored send of an organization is held to, from its billing
// organization's configuration: the billing organization's window, which counts all its organizations' spend, and
// for a sub-organization its own window too. It is the send worker's send.SponsorLimits.
type gasLimits struct {
	c            *Coordinator
	org, billing *Org
	cfg          *GasUsageConfig
}

// gasLimitsOf reads the limits of an organization's sponsored sends; nil when its billing organization set none.
func (c *Coordinator) gasLimitsOf(ctx context.Context, org *Org) (*gasLimits, error) {
	billing, err := c.billingOrg(ctx, org)
	if err != nil || billing.GasUsage == nil {
		return nil, err
	}
	return &gasLimits{c: c, org: org, billing: billing, cfg: billing.GasUsage}, nil
}

// spendReader reads sponsored costs: the store, or a transaction.
type spendReader interface {
	SponsoredGasCosts(ctx context.Context, sponsorOrg, orgID string, since int64) ([]store.GasCost, error)
}

// usage measures the spend in the window of the organization's own limit (the billing organization's: all its
// organizations'; a sub-organization's: its own), each network's at its price in USD.
func (l *gasLimits) usage(ctx context.Context, q spendReader) (*gasUsage, error) {
	if l.org.ID == l.billing.ID {
		return l.spend(ctx, q, "")
	}
	return l.spend(ctx, q, l.org.ID)
}

// spend measures the sponsored spend in the window of one of the billing organization's organizations (only), or of
// all of them ("").
func (l *gasLimits) spend(ctx context.Context, q spendReader, only string) (*gasUsage, error) {
	u := &gasUsage{cfg: l.cfg, limitUSD: l.cfg.OrgLimitUSD, wei: new(big.Int), lamports: new(big.Int)}
	if only != "" {
		u.limitUSD = l.cfg.SubOrgLimitUSD
	}
	since := l.c.now().Add(-time.Duration(l.cfg.WindowMinutes) * time.Minute).UnixNano()
	costs, err := q.SponsoredGasCosts(ctx, l.billing.ID, only, since)
	if err != nil {
		return nil, err
	}
	for _, cost := range costs {
		v, ok := new(big.Int).SetString(cost.Wei, 10)
		if !ok {
			continue
		}
		if (send.Network{CAIP2: cost.Network}).Solana() {
			u.lamports.Add(u.lamports, v)
		} else {
			u.wei.Add(u.wei, v)
		}
		u.usd += l.c.usdOf(cost.Network, v)
	}
	return u, nil
}

// usdOf values an amount of a network's smallest unit (wei, lamports) at the network's configured price; 0 for a
// network not configured.
func (c *Coordinator) usdOf(network string, amount *big.Int) float64 {
	networks := c.networks.Load()
	if networks == nil || amount == nil {
		return 0
	}
	nw, err := networks.Get(network)
	if err != nil {
		return 0
	}
	native, _ := new(big.Float).Quo(new(big.Float).SetInt(amount), big.NewFloat(nativeUnits(nw))).Float64()
	return native * nw.NativeUSD
}

// Check refuses a sponsored send when its billing organization disabled sponsorship, or when the spend in a window of
// its limits — the billing organization's, and a sub-organization's own — has reached the limit or would pass it with
// cost, the most this send may cost (nil: not priced yet). With tx, it locks the billing organization's spend and
// reads in tx: the worker's check and the reservation it writes in tx are one step, from any process.
func (l *gasLimits) Check(ctx context.Context, tx *store.Tx, network string, cost *big.Int) error {
	if tx == nil {
		return l.check(ctx, l.c.store, network, cost)
	}
	if err := tx.LockSponsorSpend(ctx, l.billing.ID); err != nil {
		return err
	}
	return l.check(ctx, tx, network, cost)
}

func (l *gasLimits) check(ctx context.Context, q spendReader, network string, cost *big.Int) error {
	if !l.cfg.Enabled {
		return apierr.New(apierr.FailedPrecondition, "SPONSORSHIP_DISABLED", "parameters.sponsor: gas sponsorship is disabled for this organization")
	}
	type window struct {
		only, whose string
	}
	windows := []window{{"", "organization's"}}
	if l.org.ID != l.billing.ID {
		windows = []window{{l.org.ID, "organization's"}, {"", "billing organization's (all its organizations')"}}
	}
	more := l.c.usdOf(network, cost)
	for _, w := range windows {
		u, err := l.spend(ctx, q, w.only)
		if err != nil {
			return err
		}
		switch {
		case u.usd >= u.limitUSD:
			return apierr.New(apierr.ResourceExhausted, "GAS_LIMIT_REACHED",
				"parameters.sponsor: the %s sponsored gas spend in the last %d minutes is %s USD (%s wei), at or past its limit of %s USD",
				w.whose, l.cfg.WindowMinutes, usd(u.usd), u.wei, usd(u.limitUSD))
		case u.usd+more > u.limitUSD:
			return apierr.New(apierr.ResourceExhausted, "GAS_LIMIT_REACHED",
				"parameters.sponsor: the %s sponsored gas spend in the last %d minutes is %s USD (%s wei), and this send may cost %s USD more (%s at most): past its limit of %s USD",
				w.whose, l.cfg.WindowMinutes, usd(u.usd), u.wei, usd(more), cost, usd(u.limitUSD))
		}
	}
	return nil
}

// sponsoringOrg is the organization whose sponsor pays a sponsored send of x's organization (its billing
// organization), once the gas-spend limits allow one more (read in the activity's transaction).
func (x *execution) sponsoringOrg() (string, error) {
	billing, err := x.c.billingOrg(x.ctx, x.org)
	if err != nil {
		return "", err
	}
	limits, err := x.c.gasLimitsOf(x.ctx, x.org)
	if err != nil || limits == nil {
		return billing.ID, err
	}
	var q spendReader = x.c.store
	if x.tx != nil {
		q = x.tx
	}
	return billing.ID, limits.check(x.ctx, q, "", nil)
}

// sponsorLimits is gasLimitsOf for the send worker, which holds only the organization's id.
func (c *Coordinator) sponsorLimits(ctx context.Context, orgID string) (send.SponsorLimits, error) {
	org, err := c.loadOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	limits, err := c.gasLimitsOf(ctx, org)
	if err != nil || limits == nil {
		return nil, err // a nil interface, not a nil *gasLimits
	}
	return limits, nil
}

// nativeUnits is how many of a network's smallest units (wei, lamports) make its native coin.
func nativeUnits(nw send.Network) float64 {
	if nw.Solana() {
		return 1e9
	}
	return 1e18
}

func usd(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// queryGetGasUsage reports the organization's sponsored spend in the window against its limit, and the gas sponsor
// that pays it (created here when no sponsored send has created it yet, so that it can be funded first).
func queryGetGasUsage(r *reader, _ *api.GetGasUsageRequest) (*api.GetGasUsageResponse, error) {
	limits, err := r.c.gasLimitsOf(r.ctx, r.org)
	if err != nil {
		return nil, err
	}
	if limits == nil {
		return nil, apierr.NotFoundf("no gas usage configuration: the billing organization set no gas-spend limits (UPSERT_GAS_USAGE_CONFIG)")
	}
	u, err := limits.usage(r.ctx, r.c.store)
	if err != nil {
		return nil, err
	}
	billing, err := r.c.billingOrg(r.ctx, r.org)
	if err != nil {
		return nil, err
	}
	_, sponsor, err := r.c.gasSponsor(r.ctx, billing.ID)
	if err != nil {
		return nil, err
	}
	res := &api.GetGasUsageResponse{WindowDurationMinutes: u.cfg.WindowMinutes, WindowLimitUsd: usd(u.limitUSD), UsageUsd: usd(u.usd),
		UsageWei: u.wei.String(), UsageLamports: u.lamports.String(), SponsorAddress: sponsor.Hex()}
	if networks := r.c.networks.Load(); networks != nil && slices.ContainsFunc(networks.List(), send.Network.Solana) {
		if _, res.SolanaSponsorAddress, err = r.c.solanaSponsor(r.ctx, billing.ID); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// gasSponsorPrefix begins the secret id of an organization's gas sponsor key on EVM networks.
const gasSponsorPrefix = "gas-sponsor/"

// GasSponsorSecret is the id of the sealed key of an organization's gas sponsor on EVM networks: what signs the
// fillers of its nonces (send.Unstick).
func GasSponsorSecret(orgID string) string { return gasSponsorPrefix + orgID }

// gasSponsor is an organization's gas sponsor on EVM networks: a secp256k1 key (sponsorKey), funded on creation by
// Config.FundSponsor when there is one (the dev chain's faucet).
func (c *Coordinator) gasSponsor(ctx context.Context, orgID string) (string, common.Address, error) {
	id, address, err := c.sponsorKey(ctx, orgID, sponsorKind{name: "gas sponsor", secretPrefix: gasSponsorPrefix,
		curve: keys.CurveSecp256k1, format: keys.AddressFormatEthereum,
		generate: func() ([]byte, error) {
			k, err := crypto.GenerateKey()
			if err != nil {
				return nil, err
			}
			return k.D.FillBytes(make([]byte, 32)), nil
		},
		fund: func(ctx context.Context, address string) error {
			if c.cfg.FundSponsor == nil {
				return nil
			}
			return c.cfg.FundSponsor(ctx, common.HexToAddress(address))
		}})
	return id, common.HexToAddress(address), err
}

// sponsorKind is what differs between the chains' sponsor keys.
type sponsorKind struct {
	name, secretPrefix string
	curve              keys.Curve
	format             keys.AddressFormat
	generate           func() ([]byte, error)
	fund               func(ctx context.Context, address string) error // once, when the key is created
}

// sponsorKey is an organization's sponsor key of a kind: sealed like every key, a secret row of the organization
// named after it (so every process finds the same one), created on first use and then funded. It returns the key's
// secret id and its address.
func (c *Coordinator) sponsorKey(ctx context.Context, orgID string, kind sponsorKind) (string, string, error) {
	id := kind.secretPrefix + orgID
	key, err := c.openSecret(ctx, id)
	created := false
	if errors.Is(err, store.ErrNotFound) {
		key, created, err = c.createSponsorKey(ctx, orgID, id, kind.generate)
	}
	if err != nil {
		return "", "", err
	}
	defer keys.Zero(key)
	pub, err := keys.PublicKey(kind.curve, key)
	if err != nil {
		return "", "", err
	}
	address, err := keys.Address(kind.curve, kind.format, pub)
	if err != nil {
		return "", "", err
	}
	if created {
		if err := kind.fund(ctx, address); err != nil {
			c.cfg.Logger.Warn("fund the "+kind.name, "organization", orgID, "address", address, "err", err)
		}
	}
	return id, address, nil
}

// createSponsorKey seals a new sponsor key under id, or, when another process created it first, opens theirs.
func (c *Coordinator) createSponsorKey(ctx context.Context, orgID, id string, generate func() ([]byte, error)) ([]byte, bool, error) {
	key, err := generate()
	if err != nil {
		return nil, false, err
	}
	blob, err := c.vault.seal(id, key)
	if err != nil {
		return nil, false, err
	}
	err = c.store.Write(ctx, func(tx *store.Tx) error {
		return tx.PutSecret(ctx, store.Secret{ID: id, OrgID: orgID, Blob: blob, CreatedAt: c.now().UnixNano()})
	})
	if err != nil {
		// Another process created it first: use theirs.
		keys.Zero(key)
		key, err = c.openSecret(ctx, id)
		return key, false, err
	}
	return key, true, nil
}
