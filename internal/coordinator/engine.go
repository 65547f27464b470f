package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/jsonstrict"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// tracer starts the spans of an activity's phases: authenticate (and decode and check), run (decide, execute and
// commit), and within it decide and execute. It exports only when tracing is set up (package tracing).
var tracer = otel.Tracer("github.com/sigil/sigil/internal/coordinator")

// submission is a request that passed every check that needs no database write: authenticated, then parsed and
// checked.
type submission struct {
	op          *activityInfo
	job         job // its parameters, decoded and checked
	env         api.SubmitRequest
	body        []byte
	timestampMs int64
	fingerprint string
	org         *Org // the request's organization, as read before the transaction
	who         *principal
	client      string // the client the request named (api.ClientHeader), "" for none
}

// Submit runs one activity request (the body of POST /public/v1/submit/<path>) and returns the activity record, or
// an error for a request that is refused (the error of a FAILED activity, every time the same body is submitted).
func (c *Coordinator) Submit(ctx context.Context, path string, header http.Header, body []byte) (*api.ActivityResponse, error) {
	if f := api.UnimplementedSubmit(path); f != nil {
		return nil, unimplemented("/public/v1/submit/"+path, f)
	}
	pctx, span := tracer.Start(ctx, "activity.authenticate")
	sub, err := c.prepare(pctx, path, header, body)
	span.End()
	if err != nil {
		return nil, err
	}
	rctx, span := tracer.Start(ctx, "activity.run", trace.WithAttributes(attribute.String("sigil.activity_type", sub.env.Type)))
	if err := sub.job.read(&reading{ctx: rctx, c: c, org: sub.org, db: c.store}); err != nil {
		span.End()
		return nil, err
	}
	rec, err := c.run(rctx, sub)
	if err == nil && (rec.fresh || rec.coSigned) {
		c.audit.record(rec) // committed
		c.wakeSends(rec)
	}
	if rec != nil {
		span.SetAttributes(attribute.String("sigil.activity_id", rec.ID), attribute.String("sigil.status", rec.Status))
	}
	span.End()
	if err != nil {
		return nil, err
	}
	if rec.Status == api.StatusFailed {
		return nil, rec.failure()
	}
	if target, err := c.votedOn(ctx, rec); target != nil || err != nil {
		return target, err
	}
	return &api.ActivityResponse{Activity: rec.answer(sub.who.User.ID)}, nil
}

// votedOn answers a completed vote with the activity voted on, as the reference's SDKs expect.
func (c *Coordinator) votedOn(ctx context.Context, rec *record) (*api.ActivityResponse, error) {
	if rec.Status != api.StatusCompleted || (rec.Type != approveActivity.Type && rec.Type != rejectActivity.Type) {
		return nil, nil
	}
	var res api.VoteResult
	if err := json.Unmarshal(rec.Result, &res); err != nil {
		return nil, err
	}
	row, err := c.store.ActivityByID(ctx, rec.OrganizationID, res.ActivityID) // a vote is on an activity of its own organization
	if err != nil {
		return nil, err
	}
	target, err := c.decodeRecord(row)
	if err != nil {
		return nil, err
	}
	if target.Status == api.StatusFailed {
		return nil, target.failure()
	}
	return &api.ActivityResponse{Activity: target.render(rec.Votes[0].UserID)}, nil
}

// prepare authenticates a request, then checks it. The stamp is verified over the raw body before anything of it is
// read. The envelope is then read once, but nothing of it except the organization it names is used, and nothing wrong
// with it is answered, until the credential is found: a caller who cannot authenticate learns nothing from the answer
// about the body, the parameters or the organization (authenticateSubmission). The parameters are decoded after.
func (c *Coordinator) prepare(ctx context.Context, path string, header http.Header, body []byte) (*submission, error) {
	st, err := stamp.FromHeaders(header)
	if err != nil {
		return nil, stampError(err)
	}
	if err := verifyStamp(st, body); err != nil {
		return nil, err
	}
	sub := &submission{body: body}
	// A body that is not a well-formed envelope may still name its organization, read leniently.
	badEnvelope := decodeRequest(body, &sub.env)
	orgID := sub.env.OrganizationID
	if badEnvelope != nil {
		orgID = bodyOrgID(body)
	}
	if sub.org, sub.who, err = c.authenticateSubmission(ctx, st, body, orgID); err != nil {
		return nil, err
	}
	if badEnvelope != nil {
		return nil, badEnvelope
	}
	op, ok := c.ops.activity(sub.env.Type)
	if !ok {
		return nil, apierr.Invalid("unknown activity type %q", sub.env.Type)
	}
	sub.op = op.info()
	sub.env.Type = sub.op.Type // an alias is recorded as its type
	if sub.op.Path != path {
		return nil, apierr.Invalid("activity type %s is submitted at /public/v1/submit/%s, not /public/v1/submit/%s", sub.env.Type, sub.op.Path, path)
	}
	if sub.timestampMs, err = c.checkTimestamp(sub.env.TimestampMs); err != nil {
		return nil, err
	}
	sub.job, err = op.begin(func(params any) error {
		if err := jsonstrict.Decode(sub.env.Parameters, params, "parameters"); err != nil {
			return apierr.Invalid("%s", err.Error())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sub.who.ViaParent && !sub.op.ByParent {
		return nil, apierr.Denied("%s in a sub-organization must be submitted by one of its own users; the parent organization's credentials may only read and log users in", sub.env.Type)
	}
	sub.fingerprint = bodyDigest(body)
	sub.client = requestClient(header)
	return sub, nil
}

// decodeRequest decodes an authenticated request body strictly: unknown fields, wrong types, duplicate keys and
// missing required fields are errors naming their path.
func decodeRequest(body []byte, v any) error {
	if err := jsonstrict.Decode(body, v, "request"); err != nil {
		return apierr.Invalid("bad request body: %s", err.Error())
	}
	return nil
}

// checkTimestamp parses timestampMs and refuses requests outside the configured window around server time.
func (c *Coordinator) checkTimestamp(ms string) (int64, error) {
	v, err := parseTimestampMs(ms)
	if err != nil {
		return 0, err
	}
	t := time.UnixMilli(v)
	now := c.now()
	if age := now.Sub(t); age > c.cfg.MaxTimestampAge {
		return 0, apierr.Invalid("timestampMs is %s old; requests older than %s are refused (check the client's clock or send a fresh request)", age.Round(time.Second), c.cfg.MaxTimestampAge)
	}
	if ahead := t.Sub(now); ahead > c.cfg.MaxTimestampSkew {
		return 0, apierr.Invalid("timestampMs is %s in the future; at most %s of clock skew is accepted", ahead.Round(time.Second), c.cfg.MaxTimestampSkew)
	}
	return v, nil
}

// parseTimestampMs reads an envelope's timestampMs: milliseconds since the epoch, a positive decimal string.
func parseTimestampMs(ms string) (int64, error) {
	v, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || v <= 0 {
		return 0, apierr.Invalid("timestampMs must be milliseconds since the epoch as a decimal string, got %q", ms)
	}
	return v, nil
}

// run decides and, when allowed, executes the activity and records it, in one database transaction holding the
// organization's lock. An identical body already recorded is returned as it is, never executed again.
//
// An activity that only reads its organization (signing) is decided and executed before, against the document it was
// authenticated with, so that its cryptography runs beside other requests instead of one after the other under the
// lock, and recorded by one statement that holds nothing, if the organization is still at that version (nothing the
// decision read has changed). When it is not — or the same body is recorded already — the activity is decided and
// executed again in the transaction.
func (c *Coordinator) run(ctx context.Context, sub *submission) (*record, error) {
	if ahead := c.decideAhead(ctx, sub); ahead != nil {
		recorded, err := c.store.InsertActivityAtOrgVersion(ctx, ahead.row, sub.org.version, ahead.deliveries)
		if recorded {
			ahead.rec.fresh = true
			c.cfg.Metrics.Activity(ahead.rec.Type, ahead.rec.Status)
			if len(ahead.deliveries) > 0 && err == nil {
				c.webhooksCommitted(ahead.deliveries, false)
			}
		}
		if err != nil || recorded {
			return ahead.rec, err
		}
	}
	if !sub.op.Signs {
		// Work that needs no lock (deriving keys) is done now, beside other requests, not while the organization is held.
		sub.job.ahead(&execution{ctx: ctx, c: c, org: sub.org, who: sub.who, now: c.now(), readOnly: true})
	}
	// An activity a velocity control measures reads and adds to the control's total: it holds the organization
	// exclusively. A control created since the cached document was read is found under the hold, and the activity
	// starts again with the exclusive one.
	readOnly := sub.op.Signs && !sub.org.measures(sub.op)
	rec, err := c.runIn(ctx, sub, readOnly)
	if errors.Is(err, errNowMeasured) || errors.Is(err, errCoSigning) {
		rec, err = c.runIn(ctx, sub, false)
	}
	return rec, err
}

// errNowMeasured ends a transaction that held its organization shared when a velocity control measures the activity.
var errNowMeasured = errors.New("coordinator: a velocity control now measures the activity")

// errCoSigning ends a transaction that held its organization shared when its body turns out to be another user's
// activity waiting for votes: the submission is a vote, which needs the organization held exclusively.
var errCoSigning = errors.New("coordinator: the body is another user's activity waiting for votes")

// runIn decides, executes and records the activity in one transaction, holding the organization shared (readOnly)
// or exclusively.
func (c *Coordinator) runIn(ctx context.Context, sub *submission, readOnly bool) (*record, error) {
	var rec *record
	var read *Org // the document as the transaction read it
	err := c.store.WriteHolding(ctx, store.Hold{OrgID: sub.org.ID, Shared: readOnly}, func(tx *store.Tx) error {
		ctx := store.Holding(ctx, tx) // what is read meanwhile is read in tx, which holds the organization
		org, err := c.lockOrg(ctx, tx, sub.org.ID, readOnly)
		if err != nil {
			return err
		}
		read = org
		if readOnly && org.measures(sub.op) {
			return errNowMeasured
		}
		who, err := sub.who.refresh(org)
		if err != nil {
			return err
		}
		if !readOnly {
			// Under the exclusive lock, an identical body recorded by any process (its transaction has ended) is
			// visible here, and must be found before anything is executed again.
			if rec, err = c.recorded(ctx, tx, org, who, sub, false); rec != nil || err != nil {
				return err
			}
		}
		rec = c.newRecord(sub, who)
		if err := c.decideAndExecute(ctx, tx, org, who, sub, rec, readOnly); err != nil {
			return err
		}
		row, err := rec.row()
		if err != nil {
			return err
		}
		inserted, err := tx.InsertActivity(ctx, row)
		if inserted {
			rec.fresh = true
			c.cfg.Metrics.Activity(rec.Type, rec.Status) // counted a few microseconds before the commit, which may fail
		}
		if err != nil {
			return err
		}
		if inserted {
			rec.offered, err = c.enqueueNewActivity(ctx, tx, org, rec)
			return err
		}
		// Only a read-only activity gets here: it holds its organization shared, so another transaction may have
		// recorded an identical body meanwhile. That record stands; what this one computed, having changed nothing,
		// is dropped.
		if rec, err = c.recorded(ctx, tx, org, who, sub, true); rec != nil || err != nil {
			return err
		}
		return fmt.Errorf("coordinator: activity %s was neither recorded nor found recorded", row.ID)
	})
	if err == nil && readOnly {
		// A document newer than the cached one, read shared and left unchanged, is committed now: the next activities
		// authenticate against it and are decided ahead again, instead of each finding the cached version stale and
		// coming here. (A document read exclusively is the transaction's own copy to change, and is not kept.)
		c.orgs.put(read)
	}
	if err == nil && (rec.webhooks || len(rec.offered) > 0) {
		c.webhooksCommitted(rec.offered, rec.webhooks)
	}
	return rec, err
}

// recorded is the activity already recorded for the submission's body; nil when there is none. A body is the same
// activity for the user who submitted it. For another user who sends the identical bytes, it is the same activity
// only while that activity waits for votes: the submission is then the user's approval of it (co-signing, as
// @turnkey/sdk-server's submitExportSecrets does it; coSign). Otherwise the other user (a copy of someone else's
// request, or two requests in the same millisecond) is refused, never handed that user's activity and its result.
func (c *Coordinator) recorded(ctx context.Context, tx *store.Tx, org *Org, who *principal, sub *submission, shared bool) (*record, error) {
	existing, err := tx.ActivityByBody(ctx, sub.org.ID, sub.timestampMs, sub.fingerprint)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec, err := c.decodeRecord(existing)
	if err != nil {
		return nil, err
	}
	if len(rec.Votes) > 0 && rec.Votes[0].UserID == sub.who.User.ID {
		return rec, nil
	}
	if rec.Status == api.StatusConsensusNeeded || rec.Status == api.StatusAuthenticatorsNeeded {
		if shared { // the organization is held shared (a signing activity): a vote needs it held exclusively
			return nil, errCoSigning
		}
		return c.coSign(ctx, tx, org, who, rec)
	}
	return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID",
		"another user has submitted an identical request (the same body and timestampMs); send this one with a new timestampMs")
}

// coSign records a submission of the identical body of another user's activity waiting for votes as the submitter's
// approval of it, when the submitter takes part in its consensus: the activity is decided again, and executed when its
// consensus is now met, as APPROVE_ACTIVITY by its fingerprint would (votes.go). The approval shows in the activity's
// votes; the activity is what the co-signer is answered.
func (c *Coordinator) coSign(ctx context.Context, tx *store.Tx, org *Org, who *principal, target *record) (*record, error) {
	x := &execution{ctx: ctx, tx: tx, c: c, org: org, who: who, now: c.now(), activityID: target.ID}
	t, err := x.voteTarget(target.Fingerprint)
	if err != nil {
		return nil, err
	}
	if !c.inConsensus(t.request(x.org, liveVotes(t.rec.Votes, x.now)), who) && mfaSatisfied(t.rec.MfaStatuses, who.User.ID) {
		return nil, apierr.Denied("another user submitted this identical request, which waits for the approvals of its consensus; you take no part in it")
	}
	if _, err := x.vote(t, api.VoteApproved); err != nil {
		return nil, err
	}
	if err := x.save(); err != nil {
		return nil, err
	}
	t.rec.webhooks, t.rec.coSigned = x.webhooks, true
	return t.rec, nil
}

// outcome is an activity decided and executed ahead of its transaction, with the row that records it and the webhook
// deliveries that report it.
type outcome struct {
	rec        *record
	row        store.Activity
	deliveries []store.WebhookDelivery
}

// decideAhead decides and executes a read-only activity against the document the submission was authenticated with,
// outside any transaction; nil for other activities, or when that fails for a reason of storage (the transaction then
// tries again).
func (c *Coordinator) decideAhead(ctx context.Context, sub *submission) *outcome {
	if !sub.op.Signs || sub.who.ViaParent || sub.org.measures(sub.op) {
		return nil
	}
	rec := c.newRecord(sub, sub.who)
	if err := c.decideAndExecute(ctx, nil, sub.org, sub.who, sub, rec, true); err != nil {
		return nil
	}
	row, err := rec.row()
	if err != nil {
		return nil
	}
	deliveries, err := c.newActivityDeliveries(ctx, sub.org, rec)
	if err != nil {
		return nil
	}
	return &outcome{rec: rec, row: row, deliveries: deliveries}
}

// newRecord is the record of a submission, its intent with the secrets in it redacted: records, and so every answer
// and every log that shows one, never hold an OTP code or a token.
func (c *Coordinator) newRecord(sub *submission, who *principal) *record {
	now := c.now()
	intent, _ := json.Marshal(api.Redact(sub.job.params()))
	id := newActivityID()
	return &record{
		spec: sub.op.ActivitySpec,
		ID:   id, OrganizationID: sub.org.ID, Type: sub.env.Type, Status: api.StatusPending,
		TimestampMs: sub.env.TimestampMs, Fingerprint: sub.fingerprint, Intent: intent, CredentialID: who.CredID,
		Client:    sub.client,
		Votes:     []api.Vote{c.approval(id, who, now)},
		CreatedAt: now, UpdatedAt: now,
	}
}

// newActivityID is a time-ordered (version 7) UUID: activities are stored in the order they arrive, and ids that sort
// the same way are appended to the id index rather than written into a random page of it.
func newActivityID() string { return uuid.Must(uuid.NewV7()).String() }

// approval is the submitter's vote: submitting an activity approves it.
func (c *Coordinator) approval(activityID string, who *principal, now time.Time) api.Vote {
	return api.Vote{
		ID: uuid.NewString(), UserID: who.User.ID, User: renderUser(who.User), ActivityID: activityID,
		Selection: api.VoteApproved, Message: "", PublicKey: who.PublicKey, Signature: who.Signature,
		Scheme: who.Scheme, CreatedAt: api.NewTimestamp(now),
	}
}

// decideAndExecute decides, and executes an allowed activity, in the locked organization (or, for a read-only activity
// decided ahead, with no transaction: tx is nil). Failures of the activity itself (denied, invalid for the current
// state) are recorded on rec; only storage failures are returned.
func (c *Coordinator) decideAndExecute(ctx context.Context, tx *store.Tx, org *Org, who *principal, sub *submission, rec *record, readOnly bool) error {
	x := &execution{ctx: ctx, tx: tx, c: c, org: org, who: who, now: c.now(), activityID: rec.ID, readOnly: readOnly, signs: sub.op.Signs,
		wantProofs: sub.env.GenerateAppProofs != nil && *sub.env.GenerateAppProofs}
	defer func() { rec.webhooks = rec.webhooks || x.webhooks }()
	req := decisionRequest{org: org, op: sub.op, intent: rec.Intent, votes: rec.Votes, submitterID: who.User.ID}
	if who.ViaParent {
		req.org = who.Org
	}
	run, err := sub.job.prepare(x, &req)
	if err != nil {
		return failOrAbort(err, rec, x.now)
	}
	var release func()
	req.budget, release = c.policyBudget(req.org)
	defer release()
	if err := x.enforceProfile(func() *policy.Input { in := c.policyInput(req, true); return &in }, req.budget); err != nil {
		return failOrAbort(err, rec, x.now)
	}
	if err := x.enforceRecoveryCredential(sub.op); err != nil {
		return failOrAbort(err, rec, x.now)
	}
	if subjectToMfa(sub.op) {
		if rec.MfaStatuses, err = c.mfaStatuses(req.org, func() *policy.Input { in := c.policyInput(req, true); return &in }, rec.Votes, req.budget); err != nil {
			return failOrAbort(err, rec, x.now)
		}
		if !mfaSatisfied(rec.MfaStatuses, who.User.ID) {
			rec.Status = api.StatusAuthenticatorsNeeded // decided once the second factors approve it (votes.go)
			return nil
		}
	}
	var measures []measure
	if len(req.org.Controls) > 0 && !readOnly {
		if measures, err = c.measureControls(ctx, tx, &req, x.now); err != nil {
			return err
		}
	}
	_, span := tracer.Start(ctx, "activity.decide")
	d := c.decide(req)
	release() // the turn at costly evaluations is for deciding, not executing
	span.SetAttributes(attribute.String("sigil.outcome", d.Outcome.String()))
	span.End()
	c.cfg.Metrics.Decision(d.Outcome.String())
	if err := rec.addEvaluation(rec.Votes[0].ID, d, x.now); err != nil {
		return err
	}
	x.evaluations = evaluationsWire(d)
	switch d.Outcome {
	case policy.Allow:
		_, span := tracer.Start(ctx, "activity.execute")
		defer span.End()
		return c.execute(x, run, measures, rec)
	case policy.ConsensusNeeded:
		rec.Status = api.StatusConsensusNeeded
	case policy.Rejected:
		rec.Status = api.StatusRejected
	default:
		rec.fail(permissionError(d), x.now)
	}
	return nil
}

// lockOrg holds the organization for the transaction and returns its document: locked, as a private copy to change;
// or, for an activity that only reads it, held shared with other readers, as the shared decoded document when the
// stored version is the cached one.
func (c *Coordinator) lockOrg(ctx context.Context, tx *store.Tx, id string, readOnly bool) (*Org, error) {
	known := int64(-1)
	cached := c.orgs.get(id)
	if readOnly && cached != nil {
		known = cached.version
	}
	hold := tx.LockOrgIfChanged
	if readOnly {
		hold = tx.ShareOrgIfChanged // activities that change nothing run side by side
	}
	row, err := hold(ctx, id, known)
	if errors.Is(err, store.ErrNotFound) {
		c.orgs.drop(id) // deleted since the request was authenticated against the cached document
		return nil, errOrgNotFound
	}
	if err != nil {
		return nil, err
	}
	if row.Version == known {
		return cached, nil
	}
	return decodeOrg(row)
}

// failOrAbort records an activity's own failure on rec, or returns a storage failure to abort the transaction.
func failOrAbort(err error, rec *record, now time.Time) error {
	var apiErr *apierr.Error
	if errors.As(err, &apiErr) {
		rec.fail(apiErr, now)
		return nil
	}
	return err
}

// executeSavepoint marks where an activity's writes begin; a failed activity rolls back to it.
const executeSavepoint = "execute"

// execute runs an allowed activity's Execute step and records what it added to velocity controls. Its writes are undone
// if it fails, leaving only the FAILED record; a read-only activity writes nothing.
func (c *Coordinator) execute(x *execution, run func() (any, error), measures []measure, rec *record) error {
	if !x.readOnly {
		if err := x.tx.Savepoint(x.ctx, executeSavepoint); err != nil {
			return err
		}
	}
	var orgBefore []byte
	if x.wantProofs {
		orgBefore, _ = json.Marshal(x.org)
	}
	result, err := run()
	if err == nil {
		err = recordMeasures(x.ctx, x.tx, measures, x.now, rec.ID)
	}
	if err == nil {
		err = x.proveOutcome(rec, orgBefore, x.evaluations)
	}
	if err == nil {
		err = x.save()
	}
	if err != nil {
		var apiErr *apierr.Error
		if errors.As(err, &apiErr) && !x.readOnly {
			if rbErr := x.tx.RollbackTo(x.ctx, executeSavepoint); rbErr != nil {
				return rbErr
			}
		}
		return failOrAbort(err, rec, x.now)
	}
	if err := rec.setResult(result); err != nil {
		return err
	}
	rec.Status = api.StatusCompleted
	rec.AppProofs = x.proofs
	rec.UpdatedAt = x.now
	return nil
}

// refresh re-finds the principal's user and credential in the locked document: a credential deleted since the
// request was authenticated (against a cached document, or while it waited for the lock) no longer authenticates.
// Credentials of the parent organization were read from the parent's stored document and stay as read.
func (p *principal) refresh(org *Org) (*principal, error) {
	if p.ViaParent {
		return p, nil
	}
	user := org.User(p.User.ID)
	if user == nil || (p.CredID != "" && !user.hasCredential(p.CredID)) {
		return nil, errKeyNotFound
	}
	q := *p
	q.Org, q.User = org, user
	return &q, nil
}
