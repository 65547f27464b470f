-- The hash of the last block each watcher read, so that a reorganisation (the block before the cursor is no longer
-- on the chain) is seen and the watcher reads the replaced blocks again.
ALTER TABLE chain_cursors ADD COLUMN last_hash TEXT NOT NULL DEFAULT '';
