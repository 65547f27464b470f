-- The policy engine's verdict for each vote of an activity: which policies it evaluated and with what outcome.
CREATE TABLE policy_evaluations (
    id          TEXT PRIMARY KEY,
    activity_id TEXT NOT NULL,
    org_id      TEXT NOT NULL,
    vote_id     TEXT NOT NULL,
    evaluations TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX policy_evaluations_activity ON policy_evaluations (activity_id, created_at);
