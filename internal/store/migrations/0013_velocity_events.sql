-- What velocity controls measured: one row per measured activity and control bucket, in the order they were
-- recorded (seq, per bucket). cumulative is the bucket's running total up to and including the row, so the sum over
-- any window is the latest cumulative less the cumulative of the last row before the window: two indexed reads, however
-- many rows the window holds. Amounts are decimal integers (asset units scaled by 10^18, or counts).
CREATE TABLE velocity_events (
    control_id  TEXT NOT NULL,
    bucket      TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    at_ms       BIGINT NOT NULL,
    amount      TEXT NOT NULL,
    cumulative  TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    PRIMARY KEY (control_id, bucket, seq)
);
CREATE INDEX velocity_events_time ON velocity_events (control_id, bucket, at_ms, seq);
