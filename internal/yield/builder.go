package yield

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/sigil/sigil/internal/units"
)

// builder builds the transactions of one kind of yield and reads its balances. Each method queues the chain reads it
// needs on a batch shared with the service's own reads and returns a function that finishes the work once the batch
// has run, so one action costs one round trip of reads.
type builder interface {
	enter(r *request, b *batch) plan
	exit(r *request, b *batch) plan
	// manage builds the follow-up named by r.manageAction (WITHDRAW after a cooldown, CLAIM_REWARDS).
	manage(r *request, b *batch) plan
	balances(r *request, b *batch) balancePlan
	// sample reads the value of a fixed number of shares (or of the reserve index), for the share price and the
	// reward rate of vaults, and the rate the contract publishes, for the reward rate of lending and staking.
	sample(y *yieldEntry, b *batch) samplePlan
}

type (
	plan func() (built, error)
	// balancePlan finishes a balance read once its first reads have run: it may queue on next the reads that need
	// their results (sent with the other yields' in one more round trip) and returns what makes the positions once
	// next has run.
	balancePlan func(next *batch) func() []position
	samplePlan  func() sampled
)

// settled is the balance plan of a kind whose first reads are all it needs.
func settled(positions func() []position) balancePlan {
	return func(*batch) func() []position { return positions }
}

// sampled is what one sampling read of a yield.
type sampled struct {
	shares, assets *big.Int // the value of shares (or of the reserve index): the stored price-per-share sample
	// apr is the annual rate the contract publishes now, as a fraction, net of a provider's commission: the reward
	// rate of lending and staking comes from it, and a vault's until its samples give one (see rates.go). Nil for a
	// vault that publishes no accrual rate.
	apr *big.Rat
}

// built is what a builder produced: the steps in signing order and the action's amount in base units of the token
// (which a "use max" exit only learns from the chain).
type built struct {
	steps  []step
	amount *big.Int
}

// request is one enter, exit, manage or balance request, validated.
type request struct {
	y            *yieldEntry
	from         common.Address
	receiver     common.Address
	amount       *big.Int // nil for a "use max" exit and for manage
	useMax       bool
	maxAllowance bool
	manageAction string
	validators   []validatorArg // validator addresses the arguments name, provider staking only
	head         *head          // the latest block, filled when the batch has run
}

// position is one balance of an address in a yield.
type position struct {
	Type      string // active, entering, exiting, withdrawable, claimable
	Amount    *big.Int
	Token     Token
	IsEarning bool
	Pending   []pendingAction
	Shares    *big.Int // vaults and liquid staking: the shares behind Amount
	Date      int64    // unix seconds: when an exiting balance becomes withdrawable
}

type pendingAction struct {
	Intent      string
	Type        string
	Passthrough string
	Amount      *big.Int
}

// ray is the scale of index samples: the value of 10^27 shares is sampled, so that share prices of tokens with few
// decimals keep their precision.
var ray = new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil)

// wad is the scale of the accrual rate a vault publishes (accrualRate(): 10^18 = 100% a year).
var wad = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// mustPack packs calldata for a method the ABI certainly has; an error is a programming error.
func mustPack(a *abi.ABI, method string, args ...any) []byte {
	data, err := a.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("yield: pack %s: %v", method, err))
	}
	return data
}

// approvalGas is the default gas limit of an approval that cannot be estimated on its own.
const approvalGas = 300_000

// approvalIfShort returns the approval step when the allowance does not cover the amount, and no step when it does.
// A token marked allowanceReset in the catalogue (USDT on Ethereum refuses to change a non-zero allowance to another
// non-zero value) first gets approve(spender, 0) when its allowance is non-zero but short; the approval of the amount
// then depends on it (it would revert on its own), so the sequence is simulated together.
func approvalIfShort(r *request, token, spender common.Address, allowance *big.Int) []step {
	return approvals(r.y.cfg.Token, token, spender, r.amount, allowance, r.maxAllowance)
}

// approvals is approvalIfShort for token t at address token: the approvals that let spender take amount, none when
// the allowance covers it.
func approvals(t Token, token, spender common.Address, amount, allowance *big.Int, maxAllowance bool) []step {
	if allowance.Cmp(amount) >= 0 {
		return nil
	}
	if maxAllowance {
		amount = math.MaxBig256
	}
	var steps []step
	if t.AllowanceReset && allowance.Sign() > 0 {
		steps = append(steps, step{
			Type:       "APPROVAL",
			Title:      fmt.Sprintf("Reset the %s allowance to 0", t.Symbol),
			To:         token,
			Data:       mustPack(&erc20ABI, "approve", spender, new(big.Int)),
			DefaultGas: approvalGas,
		})
	}
	return append(steps, step{
		Type:       "APPROVAL",
		Title:      fmt.Sprintf("Approve %s", t.Symbol),
		To:         token,
		Data:       mustPack(&erc20ABI, "approve", spender, amount),
		Dependent:  len(steps) > 0,
		DefaultGas: approvalGas,
	})
}

// checkCovered refuses an amount above what is available, naming the field.
func checkCovered(r *request, available *big.Int, what string) error {
	if r.amount.Cmp(available) > 0 {
		t := r.y.cfg.Token
		return fieldError("arguments.amount", "%s %s is more than %s of %s %s",
			units.Format(r.amount, t.Decimals), t.Symbol, what, units.Format(available, t.Decimals), t.Symbol)
	}
	return nil
}

// noManage is the manage method of kinds without follow-up actions.
func noManage(r *request) plan {
	return func() (built, error) {
		return built{}, fieldError("action", "%s has no manage actions; exit it with POST /v1/actions/exit", r.y.cfg.ID)
	}
}

// passthrough is the opaque string of a pending action: it names the yield, address and action it was issued for,
// and a manage request must come back with the same ones.
type passthrough struct {
	YieldID string `json:"y"`
	Address string `json:"a"`
	Action  string `json:"t"`
}

func encodePassthrough(p passthrough) string {
	data, _ := json.Marshal(p)
	return base64.RawURLEncoding.EncodeToString(data)
}

func decodePassthrough(s string) (passthrough, error) {
	var p passthrough
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(data, &p) != nil || p.YieldID == "" {
		return p, fieldError("passthrough", "is not a passthrough issued in a balance's pendingActions")
	}
	return p, nil
}

func pendingOf(y *yieldEntry, from common.Address, action string, amount *big.Int) pendingAction {
	return pendingAction{Intent: "manage", Type: action, Amount: amount,
		Passthrough: encodePassthrough(passthrough{YieldID: y.cfg.ID, Address: strings.ToLower(from.Hex()), Action: action})}
}
