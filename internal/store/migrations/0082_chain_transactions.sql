-- The transaction histories of the organizations' addresses, written by the confirmed balance watcher in the
-- transaction that moves its cursor past the block, and deleted from the common ancestor on when a reorganisation
-- makes it read blocks again. One row per transaction and address it touches (address: lower-case for EVM, as the
-- address index keys it); item is the history entry seen from that address, as JSON. A page is read by the index,
-- newest first from a (block, position) cursor, so it costs the same at any depth.
CREATE TABLE chain_transactions (
    network      TEXT NOT NULL,
    address      TEXT NOT NULL,
    block_number BIGINT NOT NULL,
    position     INTEGER NOT NULL,
    tx_hash      TEXT NOT NULL,
    item         TEXT NOT NULL,
    PRIMARY KEY (network, address, block_number, position)
);
CREATE INDEX chain_transactions_block ON chain_transactions (network, block_number);
