package yield

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

func (t Token) dto(network string) tokenDTO {
	return tokenDTO{Symbol: t.Symbol, Name: t.Name, Decimals: t.Decimals, Network: network, Address: t.Address, LogoURI: t.LogoURI}
}

// kindInfo is what the DTO says about each kind of yield.
var kindInfo = map[string]struct {
	yieldType, schedule, claiming, source string
	standards                             []string
}{
	KindERC4626:         {"vault", "block", "auto", "vault", []string{"ERC20", "ERC4626"}},
	KindAllocatorVault:  {"vault", "block", "auto", "vault", []string{"ERC20", "ERC4626"}},
	KindLending:         {"lending", "block", "auto", "lending_interest", []string{"ERC20"}},
	KindNativeStaking:   {"staking", "block", "manual", "staking", nil},
	KindProviderStaking: {"staking", "block", "auto", "staking", []string{"ERC20"}},
}

// staticYieldDTO is the part of a yield's DTO that only the catalogue decides.
func staticYieldDTO(e *yieldEntry) yieldDTO {
	y, n := e.cfg, e.network
	info := kindInfo[y.Kind]
	token := y.Token.dto(n.ID)
	d := yieldDTO{
		ID: y.ID, Network: n.ID, ChainID: strconv.FormatInt(n.ChainID, 10),
		InputTokens: []tokenDTO{token}, Token: token, Tokens: []tokenDTO{token},
		Status:     statusDTO(y.status()),
		ProviderID: y.ProviderID,
		Tags:       []string{info.yieldType},
	}
	if y.OutputToken != nil {
		out := y.OutputToken.dto(n.ID)
		d.OutputToken = &out
	}
	mechanisms := feeMechanismsDTO{
		// A deposit fee can be taken by the fee wrapper (vaults, staking) or by an allocator vault.
		DepositFee:       y.Kind != KindLending,
		ManagementFee:    y.Kind == KindAllocatorVault,
		PerformanceFee:   y.Kind == KindAllocatorVault,
		ValidatorRebates: y.Kind == KindProviderStaking,
	}
	d.Metadata = metadataDTO{
		Name: y.Name, Description: y.Description, SupportedStandards: nonNil(info.standards),
		PossibleFeeTakingMechanisms: mechanisms,
	}
	d.Mechanics = mechanicsDTO{
		Type: info.yieldType, RewardSchedule: info.schedule, RewardClaiming: info.claiming,
		GasFeeToken: n.NativeToken.dto(n.ID),
		Fee: feeDTO{Deposit: bpsPercent(y.Fees.DepositBps), Withdrawal: bpsPercent(0),
			Management: bpsPercent(y.Fees.ManagementBps), Performance: bpsPercent(y.Fees.PerformanceBps)},
		Arguments:                   argumentsOf(y),
		PossibleFeeTakingMechanisms: mechanisms,
		ExtraTransactionFormats:     []string{},
	}
	if y.CooldownSeconds > 0 {
		d.Mechanics.CooldownPeriod = &periodDTO{Seconds: y.CooldownSeconds}
	}
	if l := y.EntryLimits; l != nil {
		d.Mechanics.EntryLimits = entryLimitsDTO{Minimum: optional(l.Minimum), Maximum: optional(l.Maximum)}
	}
	return d
}

func argumentsOf(y YieldConfig) argumentsDTO {
	amount := argumentFieldDTO{Name: "amount", Type: "string", Label: "Amount",
		Description: "Amount of " + y.Token.Symbol + " in token units, e.g. \"1.5\"", Required: true}
	if l := y.EntryLimits; l != nil {
		amount.Minimum, amount.Maximum = optional(l.Minimum), optional(l.Maximum)
	}
	exitAmount := argumentFieldDTO{Name: "amount", Type: "string", Label: "Amount",
		Description: "Amount of " + y.Token.Symbol + " to withdraw, in token units", Required: true}
	useMax := argumentFieldDTO{Name: "useMaxAmount", Type: "boolean", Label: "Withdraw everything",
		Description: "Exit the whole position; amount is then not needed"}
	args := argumentsDTO{
		Enter: &argumentSchemaDTO{Fields: []argumentFieldDTO{amount}},
		Exit:  &argumentSchemaDTO{Fields: []argumentFieldDTO{exitAmount, useMax}},
	}
	switch y.Kind {
	case KindERC4626, KindAllocatorVault, KindLending:
		receiver := argumentFieldDTO{Name: "receiverAddress", Type: "address", Label: "Receiver",
			Description: "Who receives the shares or the withdrawn tokens; default the acting address"}
		// useMaxAllowance is accepted by enter actions but not listed: the contract's ArgumentFieldDto names are an
		// enum without it.
		args.Enter.Fields = append(args.Enter.Fields, receiver)
		args.Exit.Fields = append(args.Exit.Fields, receiver)
	case KindNativeStaking:
		args.Manage = map[string]*argumentSchemaDTO{"WITHDRAW": {Fields: []argumentFieldDTO{}}, "CLAIM_REWARDS": {Fields: []argumentFieldDTO{}}}
	case KindProviderStaking:
		// The contract pools every stake with one provider: its only validator, which may be named but need not be.
		validator := argumentFieldDTO{Name: "validatorAddress", Type: "address", Label: "Validator",
			Description: "The staking provider's address, this yield's only validator; optional",
			OptionsRef:  "/v1/yields/" + y.ID + "/validators"}
		args.Enter.Fields = append(args.Enter.Fields, validator)
		args.Exit.Fields = append(args.Exit.Fields, validator)
		args.Manage = map[string]*argumentSchemaDTO{"WITHDRAW": {Fields: []argumentFieldDTO{}}}
	}
	return args
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// yieldDTO is the full DTO: the static part with the current reward rate and share price.
func (s *Service) yieldDTO(e *yieldEntry) yieldDTO {
	d := e.static
	r := s.rates.get(e.cfg.ID)
	info := kindInfo[e.cfg.Kind]
	rateType := rateTypeOf(e.cfg.Kind)
	description := rateDescriptions[e.cfg.Kind]
	if !ratedByContract(e.cfg.Kind) {
		description = s.vaultRateDescription(r)
	}
	d.RewardRate = rewardRateDTO{Total: r.total, RateType: rateType, Components: []rewardDTO{{
		Rate: r.total, RateType: rateType, Token: d.Token, YieldSource: info.source, Description: description,
	}}}
	if r.sampled && d.OutputToken != nil {
		d.State.PricePerShareState = &pricePerShareDTO{Price: r.price, ShareToken: *d.OutputToken, QuoteToken: d.Token}
	}
	return d
}

// vaultRateDescription says which span of samples a vault's rate comes from: the RewardDto has no field for the
// window, so its description names it.
func (s *Service) vaultRateDescription(r rate) string {
	if r.accrual {
		return "The vault's current accrual rate (accrualRate), compounded per second, net of the yield's fees: " +
			"no price-per-share samples a minute of block time apart yet"
	}
	if !r.known {
		return "From price-per-share samples, net of the yield's fees: none a minute apart yet, so 0 until the next sampling"
	}
	return fmt.Sprintf("From price-per-share samples over the last %s of block time (window %s), net of the yield's fees",
		spanText(r.span), spanText(s.cfg.RateWindow))
}

// spanText writes a span of time for people: "7 days", "1.5 days", "2h10m", "10m".
func spanText(d time.Duration) string {
	if d >= 24*time.Hour {
		days := strconv.FormatFloat(float64(d)/float64(24*time.Hour), 'f', 1, 64)
		days = strings.TrimSuffix(days, ".0")
		if days == "1" {
			return "1 day"
		}
		return days + " days"
	}
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	out := strings.TrimSuffix(d.Round(time.Minute).String(), "0s") // "2h10m0s" → "2h10m"
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return out
}

// rateDescriptions say where each contract-rated kind's reward rate comes from (see rates.go); vaults' are written
// per answer (vaultRateDescription).
var rateDescriptions = map[string]string{
	KindLending:       "The pool's current liquidity rate (getReserveData), compounded per second as Aave does",
	KindNativeStaking: "The staking contract's current reward rate (rewardRateBps), net of the deposit fee",
	KindProviderStaking: "The provider's current reward rate less its validator fee, compounded per second, " +
		"net of the deposit fee",
}

// yieldFilter is the query of GET /v1/yields.
type yieldFilter struct {
	networks  []string
	token     string
	types     []string
	providers []string
	ids       []string
	search    string
	sort      string
}

var yieldSorts = []string{"statusEnterAsc", "statusEnterDesc", "statusExitAsc", "statusExitDesc", "rewardRateAsc", "rewardRateDesc"}

func parseYieldFilter(q url.Values) (yieldFilter, error) {
	f := yieldFilter{
		networks:  listParam(q, "network", "networks"),
		token:     strings.ToLower(q.Get("token")),
		types:     listParam(q, "type", "types"),
		providers: listParam(q, "provider", "providers"),
		ids:       listParam(q, "yieldId", "yieldIds"),
		search:    strings.ToLower(q.Get("search")),
		sort:      q.Get("sort"),
	}
	if f.sort != "" && !slices.Contains(yieldSorts, f.sort) {
		return f, fieldError("sort", "%q is not one of %s", f.sort, strings.Join(yieldSorts, ", "))
	}
	if len(f.ids) > 100 {
		return f, fieldError("yieldIds", "at most 100 ids")
	}
	return f, nil
}

// listParam gathers a single-value parameter, its comma-separated plural and the plural's array form (types[]).
func listParam(q url.Values, single, plural string) []string {
	var out []string
	for _, v := range append(append(q[single], q[plural]...), q[plural+"[]"]...) {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func (f yieldFilter) match(d *yieldDTO) bool {
	if len(f.networks) > 0 && !slices.Contains(f.networks, d.Network) {
		return false
	}
	if len(f.types) > 0 && !slices.Contains(f.types, d.Mechanics.Type) {
		return false
	}
	if len(f.providers) > 0 && !slices.Contains(f.providers, d.ProviderID) {
		return false
	}
	if len(f.ids) > 0 && !slices.Contains(f.ids, d.ID) {
		return false
	}
	if f.search != "" && !strings.Contains(strings.ToLower(d.Metadata.Name), f.search) && !strings.Contains(d.ID, f.search) {
		return false
	}
	if f.token != "" {
		hit := false
		for _, t := range d.InputTokens {
			hit = hit || strings.ToLower(t.Symbol) == f.token || (t.Address != "" && strings.ToLower(t.Address) == f.token)
		}
		if !hit {
			return false
		}
	}
	return true
}

func (f yieldFilter) less(a, b *yieldDTO) int {
	boolCmp := func(x, y bool) int {
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	switch f.sort {
	case "statusEnterAsc":
		return boolCmp(a.Status.Enter, b.Status.Enter)
	case "statusEnterDesc":
		return -boolCmp(a.Status.Enter, b.Status.Enter)
	case "statusExitAsc":
		return boolCmp(a.Status.Exit, b.Status.Exit)
	case "statusExitDesc":
		return -boolCmp(a.Status.Exit, b.Status.Exit)
	case "rewardRateAsc":
		return floatCmp(a.RewardRate.Total, b.RewardRate.Total)
	case "rewardRateDesc":
		return -floatCmp(a.RewardRate.Total, b.RewardRate.Total)
	}
	return 0
}

func floatCmp(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// listYields filters, sorts (stably, so catalogue order breaks ties) and pages the yields a key sees.
func (s *Service) listYields(k *keyInfo, f yieldFilter, offset, limit int) page[yieldDTO] {
	var all []yieldDTO
	for _, e := range s.yields {
		if !e.cfg.visibleTo(k.feeSet) {
			continue
		}
		d := s.yieldDTO(e)
		if f.match(&d) {
			all = append(all, d)
		}
	}
	if f.sort != "" {
		slices.SortStableFunc(all, func(a, b yieldDTO) int { return f.less(&a, &b) })
	}
	p := page[yieldDTO]{Items: []yieldDTO{}, Total: len(all), Offset: offset, Limit: limit}
	if offset < len(all) {
		p.Items = all[offset:min(offset+limit, len(all))]
	}
	return p
}
