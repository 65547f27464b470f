package coordinator

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
)

// execution is what an activity's execute function works with: the locked organization document (changed in place
// and saved when the function succeeds), the principal, and the transaction for the rare activity that touches another
// organization (creating or deleting a sub-organization).
type execution struct {
	ctx        context.Context
	c          *Coordinator
	tx         *store.Tx
	org        *Org
	who        *principal
	now        time.Time
	activityID string

	created []*Org // sub-organizations created by this activity
	deleted bool   // the organization itself was deleted

	readOnly    bool                   // the activity writes nothing, and org may be shared (a signing activity no velocity control measures)
	signs       bool                   // the activity signs (activityInfo.Signs): an allowed one proves its outcome
	wantProofs  bool                   // the request asked for app proofs (generateAppProofs)
	proofs      []api.AppProof         // the app proofs this activity produced
	evaluations []api.PolicyEvaluation // the decision's per-policy outcomes, for the policy-outcome proof
	webhooks    bool                   // webhook deliveries were written (a voted activity's update)
}

func newID() string { return uuid.NewString() }

// save writes the organization and any organization the activity created.
func (x *execution) save() error {
	if x.readOnly {
		return nil
	}
	if x.deleted {
		return x.tx.DeleteOrg(x.ctx, x.org.ID)
	}
	if err := x.saveOrg(); err != nil {
		return err
	}
	for _, o := range x.created {
		row, err := o.row()
		if err != nil {
			return err
		}
		if err := x.tx.InsertOrg(x.ctx, row, o.indexEntries()); err != nil {
			return err
		}
	}
	return nil
}

// saveOrg writes the organization if the activity changed it (signing, for one, does not), and its index entries if
// they changed.
func (x *execution) saveOrg() error {
	row, err := x.org.row()
	if err != nil {
		return err
	}
	if bytes.Equal(row.Data, x.org.stored) {
		return nil
	}
	x.org.UpdatedAt = x.now
	if row, err = x.org.row(); err != nil {
		return err
	}
	index := append([]store.IndexEntry{}, x.org.indexEntries()...) // non-nil: nil tells the store nothing changed
	if slices.Equal(index, x.org.indexed) {
		index = nil
	}
	return x.tx.UpdateOrg(x.ctx, row, index)
}

// user finds a user of the organization or fails the activity.
func (x *execution) user(id string) (*User, error) {
	if u := x.org.User(id); u != nil {
		return u, nil
	}
	return nil, apierr.NotFoundf("user %s not found in organization %s", id, x.org.ID)
}
