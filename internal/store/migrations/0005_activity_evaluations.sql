-- A vote's policy evaluations are kept on its activity's row, as the coordinator's JSON list, so that recording an
-- activity writes one row. Rows of the old table are folded into the list in the order they were recorded.
ALTER TABLE activities ADD COLUMN evaluations TEXT NOT NULL DEFAULT '[]';
UPDATE activities SET evaluations = '[' || (
    SELECT $GROUP_CONCAT('{"id":"' || e.id || '","voteId":"' || e.vote_id || '","createdAt":' || e.created_at
        || ',"policyEvaluations":' || e.evaluations || '}', ',' ORDER BY e.created_at, e.id)
    FROM policy_evaluations e WHERE e.activity_id = activities.id) || ']'
WHERE id IN (SELECT activity_id FROM policy_evaluations);
DROP TABLE policy_evaluations;
