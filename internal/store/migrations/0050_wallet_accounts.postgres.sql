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
);
CREATE UNIQUE INDEX wallet_accounts_id ON wallet_accounts (org_id, id);
CREATE INDEX wallet_accounts_wallet ON wallet_accounts (org_id, wallet_id, seq);
CREATE INDEX wallet_accounts_path ON wallet_accounts (org_id, wallet_id, path, seq);
CREATE INDEX wallet_accounts_address ON wallet_accounts (address_key, org_id, seq);
-- The accounts of every document, in the document's order (wallet by wallet).
INSERT INTO wallet_accounts (org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key,
        public_key, key_secret, created_at, updated_at)
    SELECT o.id, row_number() OVER (PARTITION BY o.id ORDER BY w.i, a.i), a.v->>'id', w.v->>'id', COALESCE(a.v->>'name', ''),
        a.v->>'curve', a.v->>'pathFormat', a.v->>'path', a.v->>'addressFormat', a.v->>'address',
        CASE WHEN lower(substr(a.v->>'address', 1, 2)) = '0x' THEN lower(a.v->>'address') ELSE a.v->>'address' END,
        a.v->>'publicKey', a.v->>'keySecret', a.v->>'createdAt', a.v->>'updatedAt'
    FROM organizations o
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(o.data::jsonb->'wallets') = 'array' THEN o.data::jsonb->'wallets' ELSE '[]'::jsonb END) WITH ORDINALITY AS w(v, i)
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(w.v->'accounts') = 'array' THEN w.v->'accounts' ELSE '[]'::jsonb END) WITH ORDINALITY AS a(v, i);
-- The index entries of wallet accounts' addresses are the address index now; those of private keys stay.
DELETE FROM org_index WHERE kind = 'WALLET_ACCOUNT_ADDRESS'
    AND EXISTS (SELECT 1 FROM wallet_accounts a WHERE a.address_key = org_index.value AND a.org_id = org_index.org_id)
    AND NOT EXISTS (SELECT 1 FROM organizations o
        CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(o.data::jsonb->'privateKeys') = 'array' THEN o.data::jsonb->'privateKeys' ELSE '[]'::jsonb END) AS k(v)
        CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(k.v->'addresses') = 'array' THEN k.v->'addresses' ELSE '[]'::jsonb END) AS ad(v)
        WHERE o.id = org_index.org_id
        AND CASE WHEN lower(substr(ad.v->>'address', 1, 2)) = '0x' THEN lower(ad.v->>'address') ELSE ad.v->>'address' END = org_index.value);
-- The documents keep their wallets without accounts; the new version sends every process's cached copy to be read again.
UPDATE organizations SET version = version + 1, data = jsonb_set(data::jsonb, '{wallets}',
        (SELECT jsonb_agg(w.v - 'accounts' ORDER BY w.i) FROM jsonb_array_elements(data::jsonb->'wallets') WITH ORDINALITY AS w(v, i)))::text
    WHERE jsonb_typeof(data::jsonb->'wallets') = 'array' AND jsonb_array_length(data::jsonb->'wallets') > 0;
