-- The hashes of the blocks each balance watcher read lately (a window behind its cursor), so that after a
-- reorganisation deeper than the confirmation depth it finds the last block it read that the chain still has — the
-- common ancestor — and reads again from there.
CREATE TABLE chain_blocks (
    network TEXT NOT NULL,
    watcher TEXT NOT NULL,
    number  BIGINT NOT NULL,
    hash    TEXT NOT NULL,
    PRIMARY KEY (network, watcher, number)
);
