-- Every claim names its source, so webhook_deliveries_source_due (source, state, seq) serves it; the older index on
-- (state, seq) alone served no query since the yield service's deliveries joined the outbox (0016), and every row
-- written or moved to another state still paid for its entry.
DROP INDEX webhook_deliveries_due;
