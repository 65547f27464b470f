package coordinator

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// MFA policies (Turnkey's): a user's MFA policy says when (its condition, in the policy language, on the activity)
// the user must also authenticate with further credentials, and with which (its required methods: ordered steps,
// each satisfied by any one of its methods). Of a user's policies, the first by order whose condition holds (or cannot
// be decided) applies; a condition that errs applies, so a mistake asks for more, never for less.
//
// The credential an activity is submitted with counts for the first step it matches; each further step is met by an
// APPROVE_ACTIVITY of the same user with another credential. Until every step is met, the submitter's activity is
// ACTIVITY_STATUS_AUTHENTICATORS_NEEDED (what @turnkey/core's onMfaRequired handles, with get_mfa_status), and an
// approver's approval does not count toward consensus. Votes themselves are never subject to MFA.

const (
	resMfaPolicy      = "MFA_POLICY"
	maxMfaPolicies    = 20 // per user
	maxMfaSteps       = 10
	maxMethodsPerStep = 10
	mfaPolicyOrderMax = 1 << 31
)

// MfaPolicy is an MFA policy of a user, as stored.
type MfaPolicy struct {
	ID        string                             `json:"id"`
	Name      string                             `json:"name"`
	Condition string                             `json:"condition"`
	Required  []api.RequiredAuthenticationMethod `json:"required"`
	Order     int64                              `json:"order"`
	Notes     string                             `json:"notes,omitempty"`
	CreatedAt time.Time                          `json:"createdAt"`
	UpdatedAt time.Time                          `json:"updatedAt"`
}

// The activity types and queries of this file.
var (
	createMfaPolicy = activity(api.CreateMfaPolicy, on(resMfaPolicy, actCreate), validateCreateMfaPolicy, execCreateMfaPolicy)
	updateMfaPolicy = activity(api.UpdateMfaPolicy, on(resMfaPolicy, actUpdate), validateUpdateMfaPolicy, execUpdateMfaPolicy)
	deleteMfaPolicy = activity(api.DeleteMfaPolicy, on(resMfaPolicy, actDelete), validateDeleteMfaPolicy, execDeleteMfaPolicy)

	getMfaPolicy   = query(api.GetMfaPolicy, queryGetMfaPolicy)
	getMfaPolicies = query(api.GetMfaPolicies, queryGetMfaPolicies)
	getMfaStatus   = query(api.GetMfaStatus, queryGetMfaStatus)
)

func checkMfaCondition(src string) error {
	if strings.TrimSpace(src) == "" {
		return apierr.Invalid("parameters.condition must be a condition of the policy language (true applies to every activity)")
	}
	if _, err := policy.Compile(src, policy.Condition); err != nil {
		return apierr.Invalid("parameters.condition: invalid MFA policy condition: %s", compileMessage(err))
	}
	return nil
}

func checkRequiredMethods(steps []api.RequiredAuthenticationMethod) error {
	if len(steps) == 0 || len(steps) > maxMfaSteps {
		return apierr.Invalid("parameters.requiredAuthenticationMethods must list between 1 and %d steps", maxMfaSteps)
	}
	for i, step := range steps {
		path := fmt.Sprintf("parameters.requiredAuthenticationMethods[%d].any", i)
		if len(step.Any) == 0 || len(step.Any) > maxMethodsPerStep {
			return apierr.Invalid("%s must list between 1 and %d methods", path, maxMethodsPerStep)
		}
		for j, m := range step.Any {
			if !slices.Contains(api.AuthenticationTypes, m.Type) {
				return apierr.Invalid("%s[%d].type: %q is not one of %s", path, j, m.Type, strings.Join(api.AuthenticationTypes, ", "))
			}
			if m.ID != "" {
				if err := checkID(fmt.Sprintf("%s[%d].id", path, j), m.ID); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkMfaOrder(order int64) error {
	if order < 0 || order >= mfaPolicyOrderMax {
		return apierr.Invalid("parameters.order must be between 0 and %d, got %d", mfaPolicyOrderMax-1, order)
	}
	return nil
}

func validateCreateMfaPolicy(p *api.CreateMfaPolicyIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if err := checkName("parameters.mfaPolicyName", p.MfaPolicyName); err != nil {
		return err
	}
	if err := checkMfaCondition(p.Condition); err != nil {
		return err
	}
	if err := checkRequiredMethods(p.RequiredAuthenticationMethods); err != nil {
		return err
	}
	if len(p.Notes) > maxNotesLen {
		return apierr.Invalid("parameters.notes is longer than %d bytes", maxNotesLen)
	}
	return checkMfaOrder(p.Order)
}

func execCreateMfaPolicy(x *execution, p *api.CreateMfaPolicyIntent) (*api.MfaPolicyResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	if len(u.MfaPolicies) >= maxMfaPolicies {
		return nil, apierr.New(apierr.ResourceExhausted, "REQUEST_INVALID", "user %s has %d MFA policies, the most it can have", u.ID, len(u.MfaPolicies))
	}
	mp := &MfaPolicy{ID: newID(), Name: p.MfaPolicyName, Condition: p.Condition, Required: p.RequiredAuthenticationMethods,
		Order: p.Order, Notes: p.Notes, CreatedAt: x.now, UpdatedAt: x.now}
	if err := checkMfaUnique(u, mp); err != nil {
		return nil, err
	}
	u.MfaPolicies = append(u.MfaPolicies, mp)
	sortMfaPolicies(u)
	u.UpdatedAt = x.now
	return &api.MfaPolicyResult{MfaPolicyID: mp.ID}, nil
}

// checkMfaUnique refuses a second policy of the user with the same name or order: the order decides which applies.
func checkMfaUnique(u *User, mp *MfaPolicy) error {
	for _, o := range u.MfaPolicies {
		if o.ID == mp.ID {
			continue
		}
		if o.Name == mp.Name {
			return apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "user %s already has an MFA policy named %q (%s)", u.ID, mp.Name, o.ID)
		}
		if o.Order == mp.Order {
			return apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "user %s already has an MFA policy with order %d (%s); the order decides which policy applies, so each must be different", u.ID, mp.Order, o.ID)
		}
	}
	return nil
}

func sortMfaPolicies(u *User) {
	slices.SortFunc(u.MfaPolicies, func(a, b *MfaPolicy) int { return int(a.Order - b.Order) })
}

func validateUpdateMfaPolicy(p *api.UpdateMfaPolicyIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if err := checkID("parameters.mfaPolicyId", p.MfaPolicyID); err != nil {
		return err
	}
	if p.MfaPolicyName != nil {
		if err := checkName("parameters.mfaPolicyName", *p.MfaPolicyName); err != nil {
			return err
		}
	}
	if p.Condition != nil {
		if err := checkMfaCondition(*p.Condition); err != nil {
			return err
		}
	}
	if p.RequiredAuthenticationMethods != nil {
		if err := checkRequiredMethods(p.RequiredAuthenticationMethods); err != nil {
			return err
		}
	}
	if p.Notes != nil && len(*p.Notes) > maxNotesLen {
		return apierr.Invalid("parameters.notes is longer than %d bytes", maxNotesLen)
	}
	if p.Order != nil {
		return checkMfaOrder(*p.Order)
	}
	return nil
}

func execUpdateMfaPolicy(x *execution, p *api.UpdateMfaPolicyIntent) (*api.MfaPolicyResult, error) {
	u, mp, err := x.mfaPolicy(p.UserID, p.MfaPolicyID)
	if err != nil {
		return nil, err
	}
	changed := *mp
	if p.MfaPolicyName != nil {
		changed.Name = *p.MfaPolicyName
	}
	if p.Condition != nil {
		changed.Condition = *p.Condition
	}
	if p.RequiredAuthenticationMethods != nil {
		changed.Required = p.RequiredAuthenticationMethods
	}
	if p.Order != nil {
		changed.Order = *p.Order
	}
	if p.Notes != nil {
		changed.Notes = *p.Notes
	}
	if err := checkMfaUnique(u, &changed); err != nil {
		return nil, err
	}
	changed.UpdatedAt = x.now
	*mp = changed
	sortMfaPolicies(u)
	u.UpdatedAt = x.now
	return &api.MfaPolicyResult{MfaPolicyID: mp.ID}, nil
}

func validateDeleteMfaPolicy(p *api.DeleteMfaPolicyIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return checkID("parameters.mfaPolicyId", p.MfaPolicyID)
}

func execDeleteMfaPolicy(x *execution, p *api.DeleteMfaPolicyIntent) (*api.MfaPolicyResult, error) {
	u, mp, err := x.mfaPolicy(p.UserID, p.MfaPolicyID)
	if err != nil {
		return nil, err
	}
	u.MfaPolicies = slices.DeleteFunc(u.MfaPolicies, func(o *MfaPolicy) bool { return o == mp })
	u.UpdatedAt = x.now
	return &api.MfaPolicyResult{MfaPolicyID: mp.ID}, nil
}

func (x *execution) mfaPolicy(userID, id string) (*User, *MfaPolicy, error) {
	u, err := x.user(userID)
	if err != nil {
		return nil, nil, err
	}
	mp, err := userMfaPolicy(u, id)
	return u, mp, err
}

func userMfaPolicy(u *User, id string) (*MfaPolicy, error) {
	for _, mp := range u.MfaPolicies {
		if mp.ID == id {
			return mp, nil
		}
	}
	return nil, apierr.NotFoundf("MFA policy %s not found on user %s", id, u.ID)
}

func renderMfaPolicy(mp *MfaPolicy) api.MfaPolicy {
	return api.MfaPolicy{MfaPolicyID: mp.ID, MfaPolicyName: mp.Name, Condition: mp.Condition,
		RequiredAuthenticationMethods: mp.Required, Order: mp.Order, Notes: mp.Notes,
		CreatedAt: api.NewTimestamp(mp.CreatedAt), UpdatedAt: api.NewTimestamp(mp.UpdatedAt)}
}

func renderMfaPolicies(u *User) []api.MfaPolicy {
	out := make([]api.MfaPolicy, 0, len(u.MfaPolicies))
	for _, mp := range u.MfaPolicies {
		out = append(out, renderMfaPolicy(mp))
	}
	return out
}

func queryGetMfaPolicy(r *reader, q *api.GetMfaPolicyRequest) (*api.GetMfaPolicyResponse, error) {
	if err := checkID("mfaPolicyId", q.MfaPolicyID); err != nil {
		return nil, err
	}
	u, err := r.user(q.UserID)
	if err != nil {
		return nil, err
	}
	mp, err := userMfaPolicy(u, q.MfaPolicyID)
	if err != nil {
		return nil, err
	}
	return &api.GetMfaPolicyResponse{MfaPolicy: renderMfaPolicy(mp)}, nil
}

func queryGetMfaPolicies(r *reader, q *api.GetMfaPoliciesRequest) (*api.GetMfaPoliciesResponse, error) {
	u, err := r.user(q.UserID)
	if err != nil {
		return nil, err
	}
	return &api.GetMfaPoliciesResponse{MfaPolicies: renderMfaPolicies(u)}, nil
}

// queryGetMfaStatus answers with the MFA statuses recorded on the activity when it was submitted and at each vote.
func queryGetMfaStatus(r *reader, q *api.GetMfaStatusRequest) (*api.GetMfaStatusResponse, error) {
	if err := checkID("activityId", q.ActivityID); err != nil {
		return nil, err
	}
	if q.UserID != "" {
		if err := checkID("userId", q.UserID); err != nil {
			return nil, err
		}
	}
	row, err := r.c.store.ActivityByID(r.ctx, r.org.ID, q.ActivityID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no activity %s in organization %s", q.ActivityID, r.org.ID)
	}
	if err != nil {
		return nil, err
	}
	rec, err := r.c.decodeRecord(row)
	if err != nil {
		return nil, err
	}
	out := &api.GetMfaStatusResponse{MfaStatuses: []api.MfaStatus{}}
	for _, s := range rec.MfaStatuses {
		if q.UserID == "" || s.UserID == q.UserID {
			out.MfaStatuses = append(out.MfaStatuses, s)
		}
	}
	return out, nil
}

// subjectToMfa: votes are not, the activities they vote on are.
func subjectToMfa(op *activityInfo) bool {
	return op.Type != api.ApproveActivity.Type && op.Type != api.RejectActivity.Type
}

// mfaStatuses is, for each user among the voters (in the order they first voted) with an MFA policy that applies to
// the activity (in), how far the credentials of the user's approvals satisfy it. org holds the voters. The conditions
// spend the activity's budget; the error is its refusal once spent.
func (c *Coordinator) mfaStatuses(org *Org, input func() *policy.Input, votes []api.Vote, budget *policy.Budget) ([]api.MfaStatus, error) {
	var out []api.MfaStatus
	var in *policy.Input // decoded only for a voter with MFA policies
	seen := map[string]bool{}
	for _, v := range votes {
		if seen[v.UserID] {
			continue
		}
		seen[v.UserID] = true
		u := org.User(v.UserID)
		if u == nil || len(u.MfaPolicies) == 0 {
			continue
		}
		if in == nil {
			in = input()
		}
		if mp := c.applicableMfaPolicy(u, in, budget); mp != nil {
			out = append(out, mfaProgress(u, mp, votes))
		}
	}
	if in != nil { // some condition was evaluated
		if refusal := asBudgetRefusal(budget.Err()); refusal != nil {
			return nil, refusal
		}
	}
	return out, nil
}

// applicableMfaPolicy is the user's first MFA policy by order whose condition holds or cannot be decided.
func (c *Coordinator) applicableMfaPolicy(u *User, in *policy.Input, budget *policy.Budget) *MfaPolicy {
	for _, mp := range u.MfaPolicies {
		cond, err := c.compile(mp.Condition, policy.Condition)
		if err != nil {
			return mp
		}
		if decided, holds, _ := cond.EvalDecidedWithin(in, budget); !decided || holds {
			return mp
		}
	}
	return nil
}

// mfaProgress walks the user's approvals in order: each credential meets the next step if one of its methods matches
// one of the step's, and no credential of its line (itself, the credential it was made with, or another made from the
// same: lineage.go) met one before.
func mfaProgress(u *User, mp *MfaPolicy, votes []api.Vote) api.MfaStatus {
	s := api.MfaStatus{MfaPolicyID: mp.ID, UserID: u.ID, SatisfiedMethods: []api.AuthenticationMethod{}, RequiredMethods: mp.Required}
	used := map[string]bool{} // lines that met a step
	step := 0
	for _, v := range votes {
		line := lineOf(u, v.PublicKey)
		if v.UserID != u.ID || v.Selection != api.VoteApproved || used[line] || step == len(mp.Required) {
			continue
		}
		if m, ok := matchStep(mp.Required[step], authMethods(u, v.PublicKey)); ok {
			used[line] = true
			s.SatisfiedMethods = append(s.SatisfiedMethods, m)
			step++
		}
	}
	s.Satisfied = step == len(mp.Required)
	return s
}

func matchStep(step api.RequiredAuthenticationMethod, have []api.AuthenticationMethod) (api.AuthenticationMethod, bool) {
	for _, want := range step.Any {
		for _, m := range have {
			if m.Type == want.Type && (want.ID == "" || want.ID == m.ID) {
				return m, true
			}
		}
	}
	return api.AuthenticationMethod{}, false
}

// authMethods are the authentication methods a credential of the user (by public key) counts as: a passkey as
// PASSKEY, an API key as API_KEY, and a session key as SESSION (its id the session profile's) and as the way its
// session was opened (OAUTH, EMAIL_OTP or SMS_OTP) when that is known.
func authMethods(u *User, publicKey string) []api.AuthenticationMethod {
	for _, a := range u.Authenticators {
		if a.PublicKeyHex == publicKey {
			return []api.AuthenticationMethod{{Type: api.AuthPasskey, ID: a.ID}}
		}
	}
	for _, k := range u.APIKeys {
		if k.PublicKey != publicKey {
			continue
		}
		switch k.Type {
		case api.CredentialAPIKeyP256, api.CredentialAPIKeySecp256, api.CredentialAPIKeyEd25519:
			return []api.AuthenticationMethod{{Type: api.AuthAPIKey, ID: k.ID}}
		}
		out := []api.AuthenticationMethod{{Type: api.AuthSession, ID: k.SessionProfileID}}
		if k.Method != "" {
			out = append(out, api.AuthenticationMethod{Type: k.Method, ID: k.ID})
		}
		return out
	}
	return nil
}

// otpMethod is the MFA method a verified contact of the type proves.
func otpMethod(contactType string) string {
	if otp.Type(contactType) == otp.TypeSMS {
		return api.AuthSMSOTP
	}
	return api.AuthEmailOTP
}

// setSessionMethod records how the session of the user's session key was opened.
func setSessionMethod(u *User, sessionKey, method string) {
	for _, k := range u.APIKeys {
		if k.PublicKey == sessionKey {
			k.Method = method
		}
	}
}

// mfaSatisfied reports whether the user has no pending MFA among the statuses.
func mfaSatisfied(statuses []api.MfaStatus, userID string) bool {
	for _, s := range statuses {
		if s.UserID == userID && !s.Satisfied {
			return false
		}
	}
	return true
}

// countedVotes drops the approvals of users whose MFA is pending: they count once it is met. Rejections always count.
func countedVotes(votes []api.Vote, statuses []api.MfaStatus) []api.Vote {
	out := make([]api.Vote, 0, len(votes))
	for _, v := range votes {
		if v.Selection == api.VoteApproved && !mfaSatisfied(statuses, v.UserID) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// mfaProgressed reports whether the user met one more step between the two lists of statuses.
func mfaProgressed(before, after []api.MfaStatus, userID string) bool {
	n := func(list []api.MfaStatus) int {
		for _, s := range list {
			if s.UserID == userID {
				return len(s.SatisfiedMethods)
			}
		}
		return 0
	}
	return n(after) > n(before)
}
