package coordinator

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
)

// The activity types of this file.
var (
	createPolicyV3 = activity(api.CreatePolicyV3, on(resPolicy, actCreate), validateCreatePolicy, execCreatePolicy)
	createPolicies = activity(api.CreatePolicies, on(resPolicy, actCreate), validateCreatePolicies, execCreatePolicies)
	updatePolicyV2 = activity(api.UpdatePolicyV2, on(resPolicy, actUpdate), validateUpdatePolicy, execUpdatePolicy)
	deletePolicy   = activity(api.DeletePolicy, on(resPolicy, actDelete), validateDeletePolicy, execDeletePolicy)
	deletePolicies = activity(api.DeletePolicies, on(resPolicy, actDelete), validateDeletePolicies, execDeletePolicies)
)

// checkPolicy validates a policy's fields and compiles its expressions, so a policy that cannot be evaluated is refused
// when it is written, with the position and what to change.
func checkPolicy(path string, name, effect string, condition, consensus, when *string) error {
	if name != "" {
		if err := checkName(path+".policyName", name); err != nil {
			return err
		}
	}
	if effect != "" && effect != api.EffectAllow && effect != api.EffectDeny {
		return apierr.Invalid("%s.effect: %q is not EFFECT_ALLOW or EFFECT_DENY", path, effect)
	}
	if condition != nil && *condition != "" {
		if _, err := policy.Compile(*condition, policy.Condition); err != nil {
			return apierr.Invalid("%s: invalid policy condition: %s", path, compileMessage(err))
		}
	}
	if consensus != nil && *consensus != "" {
		if _, err := policy.Compile(*consensus, policy.Consensus); err != nil {
			return apierr.Invalid("%s: invalid policy consensus: %s", path, compileMessage(err))
		}
	}
	if when != nil && *when != "" {
		if _, err := policy.Compile(*when, policy.Time); err != nil {
			return apierr.Invalid("%s: invalid policy time: %s", path, compileMessage(err))
		}
	}
	return nil
}

func compileMessage(err error) string {
	var ce *policy.CompileError
	if errors.As(err, &ce) {
		return ce.Error()
	}
	return err.Error()
}

func validateCreatePolicy(p *api.CreatePolicyIntentV3) error {
	if err := checkName("parameters.policyName", p.PolicyName); err != nil {
		return err
	}
	if p.Effect == "" {
		return apierr.Invalid("parameters.effect is required: EFFECT_ALLOW or EFFECT_DENY")
	}
	return checkPolicy("parameters", p.PolicyName, p.Effect, &p.Condition, &p.Consensus, &p.Time)
}

func validateCreatePolicies(p *api.CreatePoliciesIntent) error {
	if len(p.Policies) == 0 || len(p.Policies) > maxItemsPerCall {
		return apierr.Invalid("parameters.policies must list between 1 and %d policies", maxItemsPerCall)
	}
	for i := range p.Policies {
		q := &p.Policies[i]
		path := fmt.Sprintf("parameters.policies[%d]", i)
		if err := checkName(path+".policyName", q.PolicyName); err != nil {
			return err
		}
		if q.Effect == "" {
			return apierr.Invalid("%s.effect is required: EFFECT_ALLOW or EFFECT_DENY", path)
		}
		if err := checkPolicy(path, q.PolicyName, q.Effect, &q.Condition, &q.Consensus, &q.Time); err != nil {
			return err
		}
	}
	return nil
}

func execCreatePolicy(x *execution, p *api.CreatePolicyIntentV3) (*api.CreatePolicyResult, error) {
	id, err := x.addPolicy(*p)
	if err != nil {
		return nil, err
	}
	return &api.CreatePolicyResult{PolicyID: id}, nil
}

func execCreatePolicies(x *execution, p *api.CreatePoliciesIntent) (*api.CreatePoliciesResult, error) {
	res := &api.CreatePoliciesResult{PolicyIDs: []string{}}
	for _, q := range p.Policies {
		id, err := x.addPolicy(q)
		if err != nil {
			return nil, err
		}
		res.PolicyIDs = append(res.PolicyIDs, id)
	}
	return res, nil
}

func (x *execution) addPolicy(p api.CreatePolicyIntentV3) (string, error) {
	if err := x.policyNameFree(p.PolicyName, ""); err != nil {
		return "", err
	}
	if err := x.org.checkPolicyControls("parameters", p.Condition); err != nil {
		return "", err
	}
	if len(x.org.Policies) >= maxPoliciesPerOrg {
		return "", limitReached("an organization holds at most %d policies", maxPoliciesPerOrg)
	}
	pol := &Policy{ID: newID(), Name: p.PolicyName, Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus,
		Time: p.Time, Notes: p.Notes, CreatedAt: x.now, UpdatedAt: x.now}
	x.org.Policies = append(x.org.Policies, pol)
	return pol.ID, nil
}

func (x *execution) policyNameFree(name, exceptID string) error {
	for _, p := range x.org.Policies {
		if p.Name == name && p.ID != exceptID {
			return apierr.Invalid("policy label must be unique: a policy named %q already exists", name)
		}
	}
	return nil
}

func validateUpdatePolicy(p *api.UpdatePolicyIntentV2) error {
	if err := checkID("parameters.policyId", p.PolicyID); err != nil {
		return err
	}
	return checkPolicy("parameters", p.PolicyName, p.PolicyEffect, p.PolicyCondition, p.PolicyConsensus, p.Time)
}

func execUpdatePolicy(x *execution, p *api.UpdatePolicyIntentV2) (*api.PolicyIDResult, error) {
	pol := x.org.Policy(p.PolicyID)
	if pol == nil {
		return nil, apierr.NotFoundf("policy %s not found", p.PolicyID)
	}
	if p.PolicyName != "" {
		if err := x.policyNameFree(p.PolicyName, pol.ID); err != nil {
			return nil, err
		}
		pol.Name = p.PolicyName
	}
	if p.PolicyEffect != "" {
		pol.Effect = p.PolicyEffect
	}
	if p.PolicyCondition != nil {
		if err := x.org.checkPolicyControls("parameters", *p.PolicyCondition); err != nil {
			return nil, err
		}
		pol.Condition = *p.PolicyCondition
	}
	if p.PolicyConsensus != nil {
		pol.Consensus = *p.PolicyConsensus
	}
	if p.PolicyNotes != nil {
		pol.Notes = *p.PolicyNotes
	}
	if p.Time != nil {
		pol.Time = *p.Time
	}
	pol.UpdatedAt = x.now
	return &api.PolicyIDResult{PolicyID: pol.ID}, nil
}

func validateDeletePolicy(p *api.DeletePolicyIntent) error {
	return checkID("parameters.policyId", p.PolicyID)
}

func execDeletePolicy(x *execution, p *api.DeletePolicyIntent) (*api.PolicyIDResult, error) {
	if err := x.deletePolicies([]string{p.PolicyID}); err != nil {
		return nil, err
	}
	return &api.PolicyIDResult{PolicyID: p.PolicyID}, nil
}

func validateDeletePolicies(p *api.DeletePoliciesIntent) error {
	return checkIDs("parameters.policyIds", p.PolicyIDs, false)
}

func execDeletePolicies(x *execution, p *api.DeletePoliciesIntent) (*api.DeletePoliciesResult, error) {
	if err := x.deletePolicies(p.PolicyIDs); err != nil {
		return nil, err
	}
	return &api.DeletePoliciesResult{PolicyIDs: p.PolicyIDs}, nil
}

func (x *execution) deletePolicies(ids []string) error {
	for _, id := range ids {
		if x.org.Policy(id) == nil {
			return apierr.NotFoundf("policy %s not found", id)
		}
	}
	x.org.Policies = slices.DeleteFunc(x.org.Policies, func(p *Policy) bool { return slices.Contains(ids, p.ID) })
	return nil
}

func renderPolicy(p *Policy) api.Policy {
	return api.Policy{PolicyID: p.ID, PolicyName: p.Name, Effect: p.Effect, CreatedAt: api.NewTimestamp(p.CreatedAt),
		UpdatedAt: api.NewTimestamp(p.UpdatedAt), Notes: p.Notes, Consensus: p.Consensus, Condition: p.Condition, Time: p.Time}
}
