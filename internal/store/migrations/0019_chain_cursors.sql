-- How far each watcher has read each network: the next block to look at, written in the transaction that writes the
-- webhook deliveries of the blocks before it, so that a restart neither misses nor repeats a block.
CREATE TABLE chain_cursors (
    network    TEXT NOT NULL,
    watcher    TEXT NOT NULL,
    next_block BIGINT NOT NULL,
    PRIMARY KEY (network, watcher)
);
