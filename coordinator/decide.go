package coordinator

import "sigil/apierr"

type outcome int

const (
	outcomeAllow outcome = iota
	outcomeDeny
	outcomeConsensusNeeded
)

type decision struct {
	outcome outcome
	err     *apierr.Error // for a denial
}

// decide says whether the principal may run the activity now. Until the policy engine lands, only the root quorum
// decides: the submitter's approval allows an activity when it reaches the threshold, leaves it waiting for more root
// approvals when it does not, and anyone outside the root quorum is denied. Logins into a sub-organization with a
// parent organization's credential are decided by the parent's root quorum.
func decide(org *Org, who *principal, def activityDef) decision {
	deciding := org
	if who.ViaParent {
		deciding = who.Org
	}
	if !deciding.IsRoot(who.User.ID) {
		return decision{outcome: outcomeDeny, err: apierr.New(apierr.PermissionDenied, "REQUEST_NOT_AUTHORIZED",
			"request not authorized: only the root quorum may run %s in this organization", def.spec.Type)}
	}
	if deciding.RootQuorum.Threshold <= 1 {
		return decision{outcome: outcomeAllow}
	}
	return decision{outcome: outcomeConsensusNeeded}
}
