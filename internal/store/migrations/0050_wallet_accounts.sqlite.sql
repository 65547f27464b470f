-- Wallet accounts leave the organization document for rows of their own: an organization may hold any number of them,
-- and an activity must cost the same whatever that number. Every key starts with the organization. seq is the
-- account's place in its organization, in creation order (the order lists show); the address index serves signWith,
-- get_wallet_account and the look-ups that do not know the organization (list_suborgs by address, balance webhooks).
-- Each look-up orders by its whole index key, so that even without statistics the planner reads that index rather than
-- every row of the organization in seq order (store/accounts.go).
-- Times are the document's RFC 3339 text, copied as they were.
CREATE TABLE wallet_accounts (
    org_id         TEXT NOT NULL,
    seq            BIGINT NOT NULL,
    id             TEXT NOT NULL,
    wallet_id      TEXT NOT NULL,
    name           TEXT NOT NULL,
    curve          TEXT NOT NULL,
    path_format    TEXT NOT NULL,
    path           TEXT NOT NULL,
    address_format TEXT NOT NULL,
    address        TEXT NOT NULL,
    address_key    TEXT NOT NULL,
    public_key     TEXT NOT NULL,
    key_secret     TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (org_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX wallet_accounts_id ON wallet_accounts (org_id, id);
CREATE INDEX wallet_accounts_wallet ON wallet_accounts (org_id, wallet_id, seq);
CREATE INDEX wallet_accounts_path ON wallet_accounts (org_id, wallet_id, path, seq);
CREATE INDEX wallet_accounts_address ON wallet_accounts (address_key, org_id, seq);
-- The accounts of every document, in the document's order (wallet by wallet).
INSERT INTO wallet_accounts (org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key,
        public_key, key_secret, created_at, updated_at)
    SELECT o.id, row_number() OVER (PARTITION BY o.id ORDER BY w.key, a.key), json_extract(a.value, '$.id'),
        json_extract(w.value, '$.id'), COALESCE(json_extract(a.value, '$.name'), ''), json_extract(a.value, '$.curve'),
        json_extract(a.value, '$.pathFormat'), json_extract(a.value, '$.path'), json_extract(a.value, '$.addressFormat'),
        json_extract(a.value, '$.address'),
        CASE WHEN lower(substr(json_extract(a.value, '$.address'), 1, 2)) = '0x' THEN lower(json_extract(a.value, '$.address'))
            ELSE json_extract(a.value, '$.address') END,
        json_extract(a.value, '$.publicKey'), json_extract(a.value, '$.keySecret'), json_extract(a.value, '$.createdAt'),
        json_extract(a.value, '$.updatedAt')
    FROM organizations o, json_each(o.data, '$.wallets') w, json_each(w.value, '$.accounts') a
    WHERE json_type(o.data, '$.wallets') = 'array' AND json_type(w.value, '$.accounts') = 'array';
-- The index entries of wallet accounts' addresses are the address index now; those of private keys stay.
DELETE FROM org_index WHERE kind = 'WALLET_ACCOUNT_ADDRESS'
    AND EXISTS (SELECT 1 FROM wallet_accounts a WHERE a.address_key = org_index.value AND a.org_id = org_index.org_id)
    AND NOT EXISTS (SELECT 1 FROM organizations o, json_each(o.data, '$.privateKeys') k, json_each(k.value, '$.addresses') ad
        WHERE o.id = org_index.org_id AND json_type(o.data, '$.privateKeys') = 'array'
        AND CASE WHEN lower(substr(json_extract(ad.value, '$.address'), 1, 2)) = '0x' THEN lower(json_extract(ad.value, '$.address'))
            ELSE json_extract(ad.value, '$.address') END = org_index.value);
-- The documents keep their wallets without accounts; the new version sends every process's cached copy to be read again.
UPDATE organizations SET version = version + 1, data = json_set(data, '$.wallets', json((SELECT json_group_array(json_remove(w.value, '$.accounts') ORDER BY w.key)
        FROM json_each(organizations.data, '$.wallets') w)))
    WHERE json_type(data, '$.wallets') = 'array' AND json_array_length(data, '$.wallets') > 0;
