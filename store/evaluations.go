package store

import "context"

// Evaluation is one vote's policy evaluations. Evaluations is the coordinator's JSON.
type Evaluation struct {
	ID          string
	ActivityID  string
	OrgID       string
	VoteID      string
	Evaluations []byte
	CreatedAt   int64 // unix nanoseconds
}

// InsertEvaluation records a vote's policy evaluations.
func (t *Tx) InsertEvaluation(ctx context.Context, e Evaluation) error {
	_, err := t.exec(ctx, "INSERT INTO policy_evaluations (id, activity_id, org_id, vote_id, evaluations, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		e.ID, e.ActivityID, e.OrgID, e.VoteID, string(e.Evaluations), e.CreatedAt)
	return err
}

// ListEvaluations lists an activity's evaluations, oldest first.
func (s *Store) ListEvaluations(ctx context.Context, activityID string) ([]Evaluation, error) {
	rows, err := s.query(ctx, "SELECT id, activity_id, org_id, vote_id, evaluations, created_at FROM policy_evaluations WHERE activity_id = ? ORDER BY created_at, id", activityID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Evaluation
	for rows.Next() {
		var e Evaluation
		var data string
		if err := rows.Scan(&e.ID, &e.ActivityID, &e.OrgID, &e.VoteID, &data, &e.CreatedAt); err != nil {
			return nil, err
		}
		e.Evaluations = []byte(data)
		out = append(out, e)
	}
	return out, rows.Err()
}
