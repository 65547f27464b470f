package coordinator

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// Velocity controls: aggregates over time that policies read as controls.<identifier> — "no more than 1,000 USDC a
// day from this wallet". A control measures the activities its data source names: what they transfer of the listed
// assets (chainAssetTransfer, measured at signature) or that they ran at all (activityExecution). Its aggregate is the
// sum (or count) in a rolling window, or for all time, per organization, user or wallet; controls.<identifier> is true
// when that aggregate with what this activity adds compares with the threshold as the control says.
//
// Exact under concurrency: an activity a control measures is decided and executed under the organization's
// exclusive lock (never ahead of its transaction), reads the bucket's total in that transaction and, once it has
// completed, appends what it added in the same transaction. Another process deciding in the same organization waits
// for the lock and then sees it. A denied, rejected or failed activity adds nothing.

const (
	maxControlsPerOrg   = 100
	maxAssetsPerControl = 50
	amountScale         = 18 // amounts are kept as integers of 10^-18 of an asset's unit
)

// The activity types of this file.
var (
	createVelocityControl = activity(api.CreateVelocityControl, on(resPolicy, actCreate), validateCreateControl, execCreateControl)
	deleteVelocityControl = activity(api.DeleteVelocityControl, on(resPolicy, actDelete), validateDeleteControl, execDeleteControl)
)

// The queries of this file.
var (
	getVelocityControl   = query(api.GetVelocityControl, queryGetControl)
	listVelocityControls = query(api.ListVelocityControls, queryListControls)
)

// VelocityControl is a control as the organization document holds it: its definition as it was given.
type VelocityControl struct {
	ID          string                        `json:"id"`
	Identifier  string                        `json:"identifier"`
	Name        string                        `json:"name"`
	DataSource  api.VelocityControlDataSource `json:"dataSource"`
	Aggregation api.VelocityAggregation       `json:"aggregation"`
	CreatedAt   time.Time                     `json:"createdAt"`
}

// controlSpec is a control's definition read for measuring.
type controlSpec struct {
	*VelocityControl
	assets    map[string]int // CAIP-19 id (lower case) -> decimals; nil for activityExecution
	types     []string       // the activity types it measures; nil: its data source's default
	count     bool           // COUNT, not SUM
	window    time.Duration  // 0: all time
	threshold *big.Int       // scaled like the aggregate: by 10^18 for a SUM, as it is for a COUNT
	groupBy   string         // organization, user or wallet
}

var identifierRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,63}$`)

func validateCreateControl(p *api.CreateVelocityControlIntent) error {
	if err := checkName("parameters.name", p.Name); err != nil {
		return err
	}
	if !identifierRE.MatchString(p.Identifier) {
		return apierr.Invalid("parameters.identifier: %q must be lower-case letters, digits and underscores, starting with a letter or underscore (policies read it as controls.%s)", p.Identifier, p.Identifier)
	}
	_, err := parseControl(&VelocityControl{Identifier: p.Identifier, DataSource: p.DataSource, Aggregation: p.Aggregation})
	return err
}

// parseControl checks a control's definition and reads it for measuring; errors name the parameter at fault.
func parseControl(v *VelocityControl) (*controlSpec, error) {
	s := &controlSpec{VelocityControl: v}
	src, agg := v.DataSource, v.Aggregation
	switch {
	case (src.ChainAssetTransfer == nil) == (src.ActivityExecution == nil):
		return nil, apierr.Invalid("parameters.dataSource: give exactly one of chainAssetTransfer and activityExecution")
	case src.ChainAssetTransfer != nil:
		if err := s.readAssets(src.ChainAssetTransfer); err != nil {
			return nil, err
		}
		if src.ChainAssetTransfer.Filter != nil {
			s.types = filterTypes(src.ChainAssetTransfer.Filter)
		}
	default:
		if src.ActivityExecution.Filter != nil {
			s.types = filterTypes(src.ActivityExecution.Filter)
		}
	}
	for i, t := range s.types {
		if !strings.HasPrefix(t, "ACTIVITY_TYPE_") {
			return nil, apierr.Invalid("parameters.dataSource filter activity[%d]: %q is not an ACTIVITY_TYPE_* value", i, t)
		}
	}
	switch agg.Method {
	case api.AggregationCount:
		s.count = true
	case api.AggregationSum:
		if s.assets == nil {
			return nil, apierr.Invalid("parameters.aggregation.method: a SUM needs the chainAssetTransfer data source; activityExecution counts")
		}
	default:
		return nil, apierr.Invalid("parameters.aggregation.method: %q is not VELOCITY_CONTROL_AGGREGATION_METHOD_SUM or _COUNT", agg.Method)
	}
	if _, ok := compareOps[agg.Operator]; !ok {
		return nil, apierr.Invalid("parameters.aggregation.operator: %q is not a VELOCITY_CONTROL_AGGREGATION_OPERATOR_* value", agg.Operator)
	}
	var err error
	if s.threshold, err = parseThreshold(agg.Threshold, s.count); err != nil {
		return nil, err
	}
	switch w := agg.Window; {
	case (w.Rolling == nil) == (w.Infinite == nil):
		return nil, apierr.Invalid("parameters.aggregation.window: give exactly one of rolling and infinite")
	case w.Rolling != nil:
		secs, err := strconv.ParseInt(w.Rolling.Duration, 10, 64)
		if err != nil || secs < 1 || secs > 10*365*24*3600 || !isDigits(w.Rolling.Duration) {
			return nil, apierr.Invalid("parameters.aggregation.window.rolling.duration: %q must be whole seconds, from 1 to ten years", w.Rolling.Duration)
		}
		s.window = time.Duration(secs) * time.Second
	}
	g := agg.GroupBy
	n := 0
	for name, set := range map[string]bool{"organization": g.Organization != nil, "user": g.User != nil, "wallet": g.Wallet != nil} {
		if set {
			s.groupBy, n = name, n+1
		}
	}
	if n != 1 {
		return nil, apierr.Invalid("parameters.aggregation.groupBy: give exactly one of organization, user and wallet")
	}
	return s, nil
}

func filterTypes(f *api.ActivityFilter) []string {
	out := make([]string, 0, len(f.Activity))
	for _, a := range f.Activity {
		out = append(out, a.ActivityType)
	}
	return out
}

// readAssets reads the assets a chainAssetTransfer lists by CAIP-19 id: EVM native coins and ERC-20 tokens, SOL and
// SPL tokens.
func (s *controlSpec) readAssets(src *api.ChainAssetTransferSource) error {
	if len(src.Definition) == 0 || len(src.Definition) > maxAssetsPerControl {
		return apierr.Invalid("parameters.dataSource.chainAssetTransfer.definition must list between 1 and %d assets", maxAssetsPerControl)
	}
	if p := src.Phase; p != nil && (p.Submission != nil || p.Signature == nil) {
		return apierr.Invalid("parameters.dataSource.chainAssetTransfer.phase: only signature is measured; submission is reserved")
	}
	s.assets = map[string]int{}
	for i, d := range src.Definition {
		path := fmt.Sprintf("parameters.dataSource.chainAssetTransfer.definition[%d]", i)
		asset, err := normalizeCAIP19(d.CAIP19)
		if err != nil {
			return apierr.Invalid("%s.caip19: %s", path, err.Error())
		}
		dec, err := strconv.Atoi(d.Decimals)
		if err != nil || dec < 0 || dec > 255 || !isDigits(d.Decimals) {
			return apierr.Invalid("%s.decimals: %q must be a whole number from 0 to 255", path, d.Decimals)
		}
		s.assets[asset] = dec
	}
	return nil
}

var caip19RE = regexp.MustCompile(`^eip155:([1-9][0-9]{0,18})/(slip44:60|erc20:0x[0-9a-fA-F]{40})$`)

// normalizeCAIP19 reads an asset id into the key transfers are matched by: an EVM asset with its token address in
// lower case, or a Solana asset without its cluster (controls_solana.go). Other chains' assets are refused until
// their transfers are measured.
func normalizeCAIP19(id string) (string, error) {
	if key, ok := solanaAssetKey(id); ok {
		return key, nil
	}
	if !caip19RE.MatchString(id) {
		return "", fmt.Errorf("%q is not an EVM asset id such as eip155:1/slip44:60 (the native coin) or eip155:1/erc20:0x... (a token), nor a Solana one such as solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501 (SOL) or solana:.../token:MINT; other chains' transfers are not measured yet", id)
	}
	return strings.ToLower(id), nil
}

// parseThreshold reads a non-negative decimal of at most 38 digits, 18 of them after the point, scaled by 10^18 for a
// SUM; a COUNT's threshold is a whole number.
func parseThreshold(s string, count bool) (*big.Int, error) {
	bad := apierr.Invalid("parameters.aggregation.threshold: %q must be a non-negative decimal with at most 38 digits, 18 of them after the point", s)
	whole, frac, hasPoint := strings.Cut(s, ".")
	if !isDigits(whole) || (hasPoint && !isDigits(frac)) || len(frac) > amountScale || len(whole)+len(frac) > 38 {
		return nil, bad
	}
	if count {
		if hasPoint && strings.Trim(frac, "0") != "" {
			return nil, apierr.Invalid("parameters.aggregation.threshold: %q must be a whole number for a COUNT", s)
		}
		v, _ := new(big.Int).SetString(whole, 10)
		return v, nil
	}
	v, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", amountScale-len(frac)), 10)
	return v, nil
}

var compareOps = map[string]func(c int) bool{
	api.OperatorLessThan:           func(c int) bool { return c < 0 },
	api.OperatorLessThanOrEqual:    func(c int) bool { return c <= 0 },
	api.OperatorEqual:              func(c int) bool { return c == 0 },
	api.OperatorGreaterThanOrEqual: func(c int) bool { return c >= 0 },
	api.OperatorGreaterThan:        func(c int) bool { return c > 0 },
}

func execCreateControl(x *execution, p *api.CreateVelocityControlIntent) (*api.CreateVelocityControlResult, error) {
	if len(x.org.Controls) >= maxControlsPerOrg {
		return nil, apierr.New(apierr.ResourceExhausted, "REQUEST_INVALID", "an organization holds at most %d velocity controls", maxControlsPerOrg)
	}
	if x.org.control(p.Identifier) != nil {
		return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "a velocity control with identifier %q already exists", p.Identifier)
	}
	v := &VelocityControl{ID: newID(), Identifier: p.Identifier, Name: p.Name, DataSource: p.DataSource, Aggregation: p.Aggregation, CreatedAt: x.now}
	x.org.Controls = append(x.org.Controls, v)
	return &api.CreateVelocityControlResult{VelocityControlID: v.ID}, nil
}

func validateDeleteControl(p *api.DeleteVelocityControlIntent) error {
	return checkID("parameters.velocityControlId", p.VelocityControlID)
}

func execDeleteControl(x *execution, p *api.DeleteVelocityControlIntent) (*api.DeleteVelocityControlResult, error) {
	i := slices.IndexFunc(x.org.Controls, func(v *VelocityControl) bool { return v.ID == p.VelocityControlID })
	if i < 0 {
		return nil, apierr.NotFoundf("no velocity control %s in organization %s", p.VelocityControlID, x.org.ID)
	}
	ident := x.org.Controls[i].Identifier
	for _, pol := range x.org.Policies {
		if slices.Contains(policyControls(pol), ident) {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "policy %s (%s) reads controls.%s; change or delete it first", pol.ID, pol.Name, ident)
		}
	}
	if err := x.tx.DeleteVelocityEvents(x.ctx, p.VelocityControlID); err != nil {
		return nil, err
	}
	x.org.Controls = slices.Delete(x.org.Controls, i, i+1)
	return &api.DeleteVelocityControlResult{VelocityControlID: p.VelocityControlID}, nil
}

func (o *Org) control(identifier string) *VelocityControl {
	for _, v := range o.Controls {
		if v.Identifier == identifier {
			return v
		}
	}
	return nil
}

// policyControls are the identifiers of the controls a policy's condition reads.
func policyControls(p *Policy) []string {
	if p.Condition == "" {
		return nil
	}
	e, err := policy.Compile(p.Condition, policy.Condition)
	if err != nil {
		return nil
	}
	return e.Controls()
}

// checkPolicyControls refuses a condition that reads a control the organization does not have.
func (o *Org) checkPolicyControls(path, condition string) error {
	if condition == "" {
		return nil
	}
	e, err := policy.Compile(condition, policy.Condition)
	if err != nil {
		return nil // checkPolicy has refused it already
	}
	for _, ident := range e.Controls() {
		if o.control(ident) == nil {
			return apierr.Invalid("%s: invalid policy condition: unknown velocity control 'controls.%s'; create it with CREATE_VELOCITY_CONTROL first", path, ident)
		}
	}
	return nil
}

func renderControl(orgID string, v *VelocityControl) api.VelocityControl {
	return api.VelocityControl{VelocityControlID: v.ID, OrganizationID: orgID, Name: v.Name, DataSource: v.DataSource,
		Aggregation: v.Aggregation, Identifier: v.Identifier, CreatedAt: api.NewTimestamp(v.CreatedAt), UpdatedAt: api.NewTimestamp(v.CreatedAt)}
}

func queryGetControl(r *reader, q *api.GetVelocityControlRequest) (*api.GetVelocityControlResponse, error) {
	if err := checkID("velocityControlId", q.VelocityControlID); err != nil {
		return nil, err
	}
	for _, v := range r.org.Controls {
		if v.ID == q.VelocityControlID {
			return &api.GetVelocityControlResponse{VelocityControl: renderControl(r.org.ID, v)}, nil
		}
	}
	return nil, apierr.NotFoundf("no velocity control %s in organization %s", q.VelocityControlID, r.org.ID)
}

// queryListControls pages through the controls in the order they were created.
func queryListControls(r *reader, q *api.ListVelocityControlsRequest) (*api.ListVelocityControlsResponse, error) {
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	all := r.org.Controls
	start, end := 0, len(all)
	if after != "" {
		start = slices.IndexFunc(all, func(v *VelocityControl) bool { return v.ID == after }) + 1
		if start == 0 {
			return nil, apierr.Invalid("paginationOptions.after: no velocity control %s", after)
		}
	}
	if before != "" {
		end = slices.IndexFunc(all, func(v *VelocityControl) bool { return v.ID == before })
		if end < 0 {
			return nil, apierr.Invalid("paginationOptions.before: no velocity control %s", before)
		}
		start = max(start, end-limit)
	}
	page := all[start:min(end, start+limit)]
	out := &api.ListVelocityControlsResponse{VelocityControls: []api.VelocityControl{},
		PageInfo: api.PageInfo{HasPreviousPage: start > 0, HasNextPage: start+len(page) < len(all)}}
	for _, v := range page {
		out.VelocityControls = append(out.VelocityControls, renderControl(r.org.ID, v))
	}
	if len(page) > 0 {
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = page[0].ID, page[len(page)-1].ID
	}
	return out, nil
}

// measures reports whether any of the organization's controls measures activities of this type; such an activity is
// decided under the organization's exclusive lock.
func (o *Org) measures(op *activityInfo) bool {
	for _, v := range o.Controls {
		if s, err := parseControl(v); err == nil && s.applies(op) {
			return true
		}
	}
	return false
}

// applies: the control measures activities of this type.
func (s *controlSpec) applies(op *activityInfo) bool {
	if s.types != nil {
		return slices.Contains(s.types, op.Type)
	}
	if s.assets != nil {
		return op.Action == actSign // transfers are measured in what is signed, or sent
	}
	return true
}

// measure is one control's reading of one activity.
type measure struct {
	spec   *controlSpec
	bucket store.VelocityBucket
	total  store.VelocityTotal
	adds   *big.Int
	passes bool
	// unmeasured is why the control cannot say whether the activity passes it ("" when it can): the activity may move
	// one of its assets by an amount that cannot be read.
	unmeasured string
}

// velocityReader reads bucket totals: the activity's transaction, or the store for a dry run.
type velocityReader interface {
	VelocityTotal(ctx context.Context, b store.VelocityBucket, sinceMs int64) (store.VelocityTotal, error)
}

// measureControls measures the activity against each control of the deciding organization that applies to it, and
// gives the policy engine the outcomes as controls.<identifier>, for every call of a batch (a control measures the
// whole activity: what all its calls move together). A control that cannot measure the activity is an evaluation
// error wherever a policy reads it.
func (c *Coordinator) measureControls(ctx context.Context, q velocityReader, r *decisionRequest, now time.Time) ([]measure, error) {
	var out []measure
	for _, v := range r.org.Controls {
		s, err := parseControl(v)
		if err != nil || !s.applies(r.op) {
			continue
		}
		bucket := store.VelocityBucket{ControlID: v.ID, Bucket: "organization"}
		switch s.groupBy {
		case "user":
			bucket.Bucket = "user:" + r.submitterID
		case "wallet":
			if r.walletID == "" {
				continue // nothing signs: the control has no wallet to count against
			}
			bucket.Bucket = "wallet:" + r.walletID
		}
		since := int64(math.MinInt64)
		if s.window > 0 {
			since = now.Add(-s.window).UnixMilli()
		}
		total, err := q.VelocityTotal(ctx, bucket, since)
		if err != nil {
			return nil, err
		}
		m := measure{spec: s, bucket: bucket, total: total, adds: s.adds(r.moves.Transfers), unmeasured: s.unmeasured(r.moves.Unmeasured)}
		m.passes = m.unmeasured == "" && compareOps[v.Aggregation.Operator](new(big.Int).Add(total.Window, m.adds).Cmp(s.threshold))
		out = append(out, m)
	}
	if len(out) == 0 {
		return out, nil
	}
	if r.facts == nil {
		r.facts = &policy.Input{}
	}
	passes, failed := map[string]bool{}, map[string]string{}
	for _, m := range out {
		passes[m.spec.Identifier] = m.passes
		if m.unmeasured != "" {
			failed[m.spec.Identifier] = m.unmeasured
		}
		for _, facts := range r.moreFacts { // a control measures the whole batch: every call sees its outcome
			facts.Controls = r.facts.Controls
		}
	}
	for _, facts := range append([]*policy.Input{r.facts}, r.moreFacts...) {
		facts.Controls, facts.ControlErrors = passes, failed
	}
	return out, nil
}

// unmeasured is why the control cannot measure an activity that may move the given assets unmeasured, or "".
func (s *controlSpec) unmeasured(assets []evm.Unmeasured) string {
	if s.assets == nil {
		return "" // a count of executions needs no amount
	}
	for _, u := range assets {
		for asset := range s.assets {
			if u.Covers(asset) {
				return u.Reason
			}
		}
	}
	return ""
}

// adds is what the activity adds to the control: one for a COUNT, the listed assets it transfers (scaled by 10^18) for
// a SUM. A COUNT of asset transfers counts only activities that transfer a listed asset.
func (s *controlSpec) adds(transfers []evm.AssetTransfer) *big.Int {
	if s.assets == nil {
		return big.NewInt(1)
	}
	sum := new(big.Int)
	moved := false
	for _, t := range transfers {
		dec, ok := s.assets[t.Asset]
		if !ok {
			continue
		}
		moved = true
		sum.Add(sum, scaleAmount(t.Amount, dec))
	}
	if s.count {
		if moved {
			return big.NewInt(1)
		}
		return new(big.Int)
	}
	return sum
}

// scaleAmount turns base units of an asset with dec decimals into units of 10^-18 (rounding down past 18 decimals).
func scaleAmount(amount *big.Int, dec int) *big.Int {
	if dec <= amountScale {
		return new(big.Int).Mul(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(amountScale-dec)), nil))
	}
	return new(big.Int).Quo(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec-amountScale)), nil))
}

// recordMeasures appends what a completed activity added to each control, in its transaction.
func recordMeasures(ctx context.Context, tx *store.Tx, measures []measure, now time.Time, activityID string) error {
	for _, m := range measures {
		if m.adds.Sign() == 0 {
			continue
		}
		if err := tx.AppendVelocityEvent(ctx, m.bucket, m.total, now.UnixMilli(), m.adds, activityID); err != nil {
			return err
		}
	}
	return nil
}

// controlMeasures is evaluate_activity's report of the measures.
func controlMeasures(measures []measure) []api.ControlMeasure {
	var out []api.ControlMeasure
	for _, m := range measures {
		out = append(out, api.ControlMeasure{Identifier: m.spec.Identifier, Aggregate: m.spec.format(m.total.Window),
			Adds: m.spec.format(m.adds), Operator: m.spec.Aggregation.Operator, Threshold: m.spec.Aggregation.Threshold, Passes: m.passes,
			Error: m.unmeasured})
	}
	return out
}

// format shows an aggregate in the control's units: a count, or a decimal amount of the assets.
func (s *controlSpec) format(v *big.Int) string {
	if s.count {
		return v.String()
	}
	str := fmt.Sprintf("%0*s", amountScale+1, v.String())
	whole, frac := str[:len(str)-amountScale], strings.TrimRight(str[len(str)-amountScale:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
