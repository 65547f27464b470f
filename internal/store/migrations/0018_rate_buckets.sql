-- Token buckets shared by every process over the database (the auth proxy's per-client and per-configuration limits,
-- when several processes serve one PostgreSQL). tokens is what is left at updated_ns (unix nanoseconds).
CREATE TABLE rate_buckets (
    bucket     TEXT PRIMARY KEY,
    tokens     DOUBLE PRECISION NOT NULL,
    updated_ns BIGINT NOT NULL
);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated_ns);

-- Fixed-window request counters shared by every process (the yield service's per-API-key limit on PostgreSQL).
CREATE TABLE rate_windows (
    bucket       TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
