package coordinator

import (
	"errors"
	"slices"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// approvalWindow is how long approvals of an activity stay valid after the first one. Once it has passed, the earlier
// approvals have expired: the next approval starts a new window and counts alone (with any later ones). The activity
// itself never expires; it waits in CONSENSUS_NEEDED until enough fresh approvals arrive or it is rejected.
const approvalWindow = 24 * time.Hour

// The votes: a change to one of the organization's pending activities. Voting on an activity whose consensus names
// the voter is an implicit permission (prepareVote).
var (
	approveActivity = prepared(api.ApproveActivity, on(resOrganization, actUpdate), validateVote, prepareVote, execApprove)
	rejectActivity  = prepared(api.RejectActivity, on(resOrganization, actUpdate), validateVote, prepareVote, execReject)
)

// validateVote refuses a fingerprint no activity can have (fingerprint.go), and records the vote's intent with the
// fingerprint in the reference's form, whichever form it was given in.
func validateVote(p *api.VoteIntent) error {
	if p.Fingerprint == "" {
		return apierr.Invalid("parameters.fingerprint must name the activity to vote on")
	}
	digest, err := parseFingerprint("parameters.fingerprint", p.Fingerprint)
	if err != nil {
		return err
	}
	p.Fingerprint = wireFingerprint(digest)
	return nil
}

// target loads the activity a vote is for, holding it for the transaction. Only an activity waiting for consensus is
// found: one never recorded and one already decided are alike to a vote.
func (x *execution) target(fingerprint string) (*record, error) {
	digest, err := parseFingerprint("parameters.fingerprint", fingerprint)
	if err != nil {
		return nil, err
	}
	row, err := x.tx.ActivityAwaitingVotes(x.ctx, x.org.ID, digest)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("No activity waiting for consensus has fingerprint %s (it may be unknown, or already completed, rejected or failed)", fingerprint)
	}
	if err != nil {
		return nil, err
	}
	if row, err = x.tx.LockActivity(x.ctx, x.org.ID, row.ID); err != nil {
		return nil, err
	}
	rec, err := x.c.decodeRecord(row)
	if err != nil {
		return nil, err
	}
	if rec.Status != api.StatusConsensusNeeded && rec.Status != api.StatusAuthenticatorsNeeded {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "activity %s is %s; only activities waiting for consensus or authenticators take votes", rec.ID, rec.Status)
	}
	// A user votes once, but may approve again with another credential to meet an MFA policy (vote checks it did).
	for _, v := range liveVotes(rec.Votes, x.now) {
		if v.UserID == x.who.User.ID && v.PublicKey == x.who.PublicKey {
			return nil, errAlreadyVoted(x.who.User.ID, rec.ID)
		}
	}
	return rec, nil
}

func errAlreadyVoted(userID, activityID string) error {
	return apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "user %s has already voted on activity %s", userID, activityID)
}

// prepareVote finds the activity voted on and tells the policy engine whether the voter takes part in its consensus:
// votes are then implicitly allowed.
func prepareVote(x *execution, p *api.VoteIntent, d *decisionRequest) (*voteTarget, error) {
	t, err := x.voteTarget(p.Fingerprint)
	if err != nil {
		return nil, err
	}
	// A voter whose MFA on the activity is pending takes part in it: the second factor is the vote.
	d.voterInConsensus = x.c.inConsensus(t.request(x.org, liveVotes(t.rec.Votes, x.now)), x.who) ||
		!mfaSatisfied(t.rec.MfaStatuses, x.who.User.ID)
	return t, nil
}

// inConsensus reports whether a user's vote can matter to an activity, decided as req: the user is a root user, or
// the consensus of a policy that would allow the activity names the user.
func (c *Coordinator) inConsensus(req decisionRequest, who *principal) bool {
	preq, err := c.policyRequest(req)
	if err != nil {
		return false
	}
	return policy.CanVote(preq, policyUser(who.User), []policy.Credential{credentialOf(who.User, who.PublicKey)})
}

// liveVotes drops approvals older than the approval window, counted from the first approval.
func liveVotes(votes []api.Vote, now time.Time) []api.Vote {
	for len(votes) > 0 && now.Sub(votes[0].CreatedAt.Time()) > approvalWindow {
		votes = votes[1:]
	}
	return votes
}

func execApprove(x *execution, _ *api.VoteIntent, t *voteTarget) (*api.VoteResult, error) {
	return x.vote(t, api.VoteApproved)
}

func execReject(x *execution, _ *api.VoteIntent, t *voteTarget) (*api.VoteResult, error) {
	return x.vote(t, api.VoteRejected)
}

// vote adds the voter's vote to the target, decides it again, and executes it when its consensus is now met, all in
// the voting activity's transaction.
func (x *execution) vote(t *voteTarget, selection string) (*api.VoteResult, error) {
	target := t.rec
	v := x.c.approval(target.ID, x.who, x.now)
	v.Selection = selection
	votedBefore := (&record{Votes: liveVotes(target.Votes, x.now)}).votedBy(x.who.User.ID)
	target.Votes = append(liveVotes(target.Votes, x.now), v)
	target.UpdatedAt = x.now
	req := t.request(x.org, target.Votes)
	var release func()
	req.budget, release = x.c.policyBudget(req.org)
	defer release()
	waiting, err := x.applyMfa(t, &req, votedBefore, selection)
	if err != nil || waiting {
		return x.saveTarget(target, err)
	}
	measures, err := x.c.measureControls(x.ctx, x.tx, &req, x.now)
	if err != nil {
		return nil, err
	}
	d := x.c.decide(req)
	release()
	x.c.cfg.Metrics.Decision(d.Outcome.String())
	if err := target.addEvaluation(v.ID, d, x.now); err != nil {
		return nil, err
	}
	switch d.Outcome {
	case policy.Allow:
		if err := x.executeTarget(t); err != nil {
			return nil, err
		}
		if target.Status == api.StatusCompleted {
			if err := recordMeasures(x.ctx, x.tx, measures, x.now, target.ID); err != nil {
				return nil, err
			}
		}
	case policy.ConsensusNeeded:
		target.Status = api.StatusConsensusNeeded
		if !mfaSatisfied(target.MfaStatuses, req.submitterID) {
			target.Status = api.StatusAuthenticatorsNeeded // a rejection that did not decide it
		}
	case policy.Rejected:
		target.Status = api.StatusRejected
	case policy.Deny:
		target.fail(permissionError(d), x.now)
	}
	return x.saveTarget(target, nil)
}

// applyMfa brings the target's MFA statuses up to date with the new vote, refuses a second vote of a user that met
// no further MFA step, and keeps the approvals of users whose MFA is pending out of the decision. It reports whether
// the target still waits for its submitter's second factors (it is not decided then).
func (x *execution) applyMfa(t *voteTarget, req *decisionRequest, votedBefore bool, selection string) (bool, error) {
	target := t.rec
	if !subjectToMfa(t.op) {
		if votedBefore {
			return false, errAlreadyVoted(x.who.User.ID, target.ID)
		}
		return false, nil
	}
	before := target.MfaStatuses
	statuses, err := x.c.mfaStatuses(req.org, func() *policy.Input { in := x.c.policyInput(*req, true); return &in }, target.Votes, req.budget)
	if err != nil {
		return false, err
	}
	target.MfaStatuses = statuses
	// A user who voted may vote again only to meet a further MFA step, or to reject while it is pending.
	abandons := selection == api.VoteRejected && !mfaSatisfied(before, x.who.User.ID)
	if votedBefore && !mfaProgressed(before, target.MfaStatuses, x.who.User.ID) && !abandons {
		return false, errAlreadyVoted(x.who.User.ID, target.ID)
	}
	if selection == api.VoteApproved && !mfaSatisfied(target.MfaStatuses, req.submitterID) {
		target.Status = api.StatusAuthenticatorsNeeded
		return true, nil
	}
	req.votes = countedVotes(target.Votes, target.MfaStatuses)
	return false, nil
}

// saveTarget stores the target's new state and queues its webhook deliveries, unless the vote failed (err).
func (x *execution) saveTarget(target *record, err error) (*api.VoteResult, error) {
	if err != nil {
		return nil, err
	}
	row, err := target.row()
	if err != nil {
		return nil, err
	}
	if err := x.tx.UpdateActivity(x.ctx, row); err != nil {
		return nil, err
	}
	queued, err := x.c.enqueueActivityUpdate(x.ctx, x.tx, x.org, target, x.now)
	x.webhooks = x.webhooks || queued
	if err != nil {
		return nil, err
	}
	return &api.VoteResult{ActivityID: target.ID}, nil
}

// voteTarget is what a vote's prepare step resolves and its execute step uses: the activity voted on, read and held
// for the transaction, and that activity made ready to run again (nil, with the reason, when it no longer can be).
type voteTarget struct {
	rec    *record
	op     *activityInfo // its type
	run    *rerun
	runErr *apierr.Error
}

// voteTarget resolves the activity with the fingerprint.
func (x *execution) voteTarget(fingerprint string) (*voteTarget, error) {
	rec, err := x.target(fingerprint)
	if err != nil {
		return nil, err
	}
	t := &voteTarget{rec: rec, op: x.c.ops.info(rec.Type)}
	if t.run, err = x.rerun(rec); err != nil && !errors.As(err, &t.runErr) {
		return nil, err
	}
	return t, nil
}

// request is the target's decision request with the votes, with the facts its prepare step gave the policy engine
// when it was submitted (the transaction it signs, ...), found again now.
func (t *voteTarget) request(org *Org, votes []api.Vote) decisionRequest {
	req := decisionRequest{org: org, op: t.op, intent: t.rec.Intent, votes: votes, submitterID: t.rec.Votes[0].UserID}
	if t.run != nil {
		req.facts, req.moreFacts, req.moves, req.walletID = t.run.req.facts, t.run.req.moreFacts, t.run.req.moves, t.run.req.walletID
	}
	// The facts are the target's (each call's, for a batch); the controls are measured for each decision anew.
	req.facts = withoutControls(req.facts)
	req.moreFacts = slices.Clone(req.moreFacts)
	for i, f := range req.moreFacts {
		req.moreFacts[i] = withoutControls(f)
	}
	return req
}

// withoutControls is a copy of facts without the velocity controls' outcomes.
func withoutControls(facts *policy.Input) *policy.Input {
	if facts == nil {
		return nil
	}
	out := *facts
	out.Controls, out.ControlErrors = nil, nil
	return &out
}

// rerun is an activity waiting for consensus made ready to be decided and executed again, in the transaction of the
// vote that may complete it: an execution of its own as its submitter on a copy of the organization (replacing the
// voting activity's only if the target succeeds), what its prepare step adds to the decision, and its execute step.
type rerun struct {
	x       *execution
	req     decisionRequest
	execute func() (any, error)
}

// rerun prepares target as it was prepared when submitted. An API error says why it no longer can be: its parameters
// no longer pass, its submitter or what it names is gone.
func (x *execution) rerun(target *record) (*rerun, error) {
	op, ok := x.c.ops.activity(target.Type)
	if !ok {
		return nil, apierr.Invalid("activity type %s can no longer be executed", target.Type)
	}
	j, err := op.begin(func(params any) error { return decodeIntent(target.Intent, params) })
	if err != nil {
		return nil, err
	}
	// What the activity reads from a network is read again now, in the vote's transaction (votes are few).
	if err := j.read(&reading{ctx: x.ctx, c: x.c, org: x.org, db: x.accounts()}); err != nil {
		return nil, err
	}
	submitter := x.org.User(target.Votes[0].UserID)
	if submitter == nil {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the user who submitted activity %s no longer exists", target.ID)
	}
	sub := *x
	sub.org = x.org.clone()
	sub.who = &principal{Org: sub.org, User: sub.org.User(submitter.ID), CredID: target.CredentialID, PublicKey: target.Votes[0].PublicKey}
	sub.activityID, sub.created = target.ID, nil
	var req decisionRequest
	execute, err := j.prepare(&sub, &req)
	if err != nil {
		return nil, err
	}
	return &rerun{x: &sub, req: req, execute: execute}, nil
}

// executeTarget runs an activity whose consensus a vote just completed.
func (x *execution) executeTarget(t *voteTarget) error {
	if t.runErr != nil {
		t.rec.fail(t.runErr, x.now)
		return nil
	}
	sub := t.run.x
	result, err := t.run.execute()
	if err != nil {
		return failOrAbort(err, t.rec, x.now)
	}
	if err := t.rec.setResult(result); err != nil {
		return err
	}
	t.rec.Status = api.StatusCompleted
	x.org, x.created, x.deleted = sub.org, append(x.created, sub.created...), x.deleted || sub.deleted
	return nil
}
