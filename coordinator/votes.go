package coordinator

import (
	"errors"
	"time"

	"sigil/api"
	"sigil/apierr"
	"sigil/policy"
	"sigil/store"
)

// approvalWindow is how long approvals of an activity stay valid after the first one. Once it has passed, the earlier
// approvals have expired: the next approval starts a new window and counts alone (with any later ones). The activity
// itself never expires; it waits in CONSENSUS_NEEDED until enough fresh approvals arrive or it is rejected.
const approvalWindow = 24 * time.Hour

func validateVote(p *api.VoteIntent) error {
	if p.Fingerprint == "" {
		return apierr.Invalid("parameters.fingerprint must name the activity to vote on")
	}
	return nil
}

// target loads the activity a vote is for, holding it for the transaction.
func (x *execution) target(fingerprint string) (*record, error) {
	row, err := x.tx.ActivityByFingerprint(x.ctx, x.org.ID, fingerprint)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("No activity found with fingerprint %s", fingerprint)
	}
	if err != nil {
		return nil, err
	}
	if row, err = x.tx.LockActivity(x.ctx, row.ID); err != nil {
		return nil, err
	}
	rec, err := decodeRecord(row)
	if err != nil {
		return nil, err
	}
	if rec.Status != api.StatusConsensusNeeded {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "activity %s is %s; only activities waiting for consensus take votes", rec.ID, rec.Status)
	}
	live := &record{Votes: liveVotes(rec.Votes, x.now)}
	if live.votedBy(x.who.User.ID) {
		return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "user %s has already voted on activity %s", x.who.User.ID, rec.ID)
	}
	return rec, nil
}

// prepareVote tells the policy engine whether the voter takes part in the target's consensus: votes are then
// implicitly allowed.
func prepareVote(x *execution, p *api.VoteIntent, d *decisionRequest) error {
	target, err := x.target(p.Fingerprint)
	if err != nil {
		return err
	}
	d.voterInConsensus = x.c.inConsensus(x.org, target, x.who, x.now)
	return nil
}

// inConsensus reports whether a user's vote can matter to an activity: the user is a root user, or the consensus of a
// policy that would allow the activity names the user.
func (c *Coordinator) inConsensus(org *Org, target *record, who *principal, now time.Time) bool {
	req, err := c.policyRequest(decisionRequest{org: org, typ: target.Type, intent: target.Intent, votes: liveVotes(target.Votes, now)})
	if err != nil {
		return false
	}
	return policy.CanVote(req, policyUser(who.User), []policy.Credential{credentialOf(who.User, who.PublicKey)})
}

// liveVotes drops approvals older than the approval window, counted from the first approval.
func liveVotes(votes []api.Vote, now time.Time) []api.Vote {
	for len(votes) > 0 && now.Sub(votes[0].CreatedAt.Time()) > approvalWindow {
		votes = votes[1:]
	}
	return votes
}

func execApprove(x *execution, p *api.VoteIntent) (*api.VoteResult, error) {
	return x.vote(p.Fingerprint, api.VoteApproved)
}

func execReject(x *execution, p *api.VoteIntent) (*api.VoteResult, error) {
	return x.vote(p.Fingerprint, api.VoteRejected)
}

// vote adds the voter's vote to the target, decides it again, and executes it when its consensus is now met, all in
// the voting activity's transaction.
func (x *execution) vote(fingerprint, selection string) (*api.VoteResult, error) {
	target, err := x.target(fingerprint)
	if err != nil {
		return nil, err
	}
	v := x.c.approval(target.ID, x.who, x.now)
	v.Selection = selection
	target.Votes = append(liveVotes(target.Votes, x.now), v)
	target.UpdatedAt = x.now
	d := x.c.decide(decisionRequest{org: x.org, typ: target.Type, intent: target.Intent, votes: target.Votes, submitterID: target.Votes[0].UserID})
	if err := target.addEvaluation(v.ID, d, x.now); err != nil {
		return nil, err
	}
	switch d.Outcome {
	case policy.Allow:
		if err := x.executeTarget(target); err != nil {
			return nil, err
		}
	case policy.Rejected:
		target.Status = api.StatusRejected
	case policy.Deny:
		target.fail(permissionError(d), x.now)
	}
	row, err := target.row()
	if err != nil {
		return nil, err
	}
	if err := x.tx.UpdateActivity(x.ctx, row); err != nil {
		return nil, err
	}
	return &api.VoteResult{ActivityID: target.ID}, nil
}

// executeTarget runs an activity whose consensus a vote just completed, on a copy of the organization that replaces
// the voting activity's only if the target succeeds.
func (x *execution) executeTarget(target *record) error {
	def, ok := registry()[target.Type]
	if !ok {
		return apierr.Invalid("activity type %s can no longer be executed", target.Type)
	}
	params := def.spec.NewParams()
	if err := decodeIntent(target.Intent, params); err != nil {
		return err
	}
	submitter := x.org.User(target.Votes[0].UserID)
	if submitter == nil {
		target.fail(apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the user who submitted activity %s no longer exists", target.ID), x.now)
		return nil
	}
	sub := *x
	sub.org = x.org.clone()
	sub.who = &principal{Org: sub.org, User: sub.org.User(submitter.ID), PublicKey: target.Votes[0].PublicKey}
	sub.activityID = target.ID
	sub.created = nil
	result, err := def.exec(&sub, params)
	if err != nil {
		return failOrAbort(err, target, x.now)
	}
	if target.Result, err = jsonMarshal(result); err != nil {
		return err
	}
	target.Status = api.StatusCompleted
	x.org, x.created, x.deleted = sub.org, append(x.created, sub.created...), x.deleted || sub.deleted
	return nil
}
