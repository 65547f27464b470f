--
-- PostgreSQL database dump
--

\restrict MN6hzn9XHfD2OUrpuQhTmxEkEVazufDcQhOFy8UFP8pXHaSPguxjhmH99YcpdqA

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: sigil_upgrade_fixture; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA sigil_upgrade_fixture;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: activities; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.activities (
    seq bigint NOT NULL,
    id text NOT NULL,
    org_id text NOT NULL,
    fingerprint text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    record text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    evaluations text DEFAULT '[]'::text NOT NULL,
    timestamp_ms bigint NOT NULL
);


--
-- Name: activities_seq_seq; Type: SEQUENCE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE SEQUENCE sigil_upgrade_fixture.activities_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: activities_seq_seq; Type: SEQUENCE OWNED BY; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER SEQUENCE sigil_upgrade_fixture.activities_seq_seq OWNED BY sigil_upgrade_fixture.activities.seq;


--
-- Name: chain_blocks; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.chain_blocks (
    network text NOT NULL,
    watcher text NOT NULL,
    number bigint NOT NULL,
    hash text NOT NULL
);


--
-- Name: chain_cursors; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.chain_cursors (
    network text NOT NULL,
    watcher text NOT NULL,
    next_block bigint NOT NULL,
    last_hash text DEFAULT ''::text NOT NULL
);


--
-- Name: contract_interfaces; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.contract_interfaces (
    id text NOT NULL,
    org_id text NOT NULL,
    body text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: email_events; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.email_events (
    id text NOT NULL,
    org_id text NOT NULL,
    message_id text NOT NULL,
    event_type text NOT NULL,
    from_address text NOT NULL,
    to_address text NOT NULL,
    at_ms bigint NOT NULL
);


--
-- Name: org_index; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.org_index (
    kind text NOT NULL,
    value text NOT NULL,
    org_id text NOT NULL,
    parent_id text DEFAULT ''::text NOT NULL
);


--
-- Name: organizations; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.organizations (
    id text NOT NULL,
    parent_id text DEFAULT ''::text NOT NULL,
    version bigint NOT NULL,
    data text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: otp_codes; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.otp_codes (
    id text NOT NULL,
    org_id text NOT NULL,
    otp_type text NOT NULL,
    contact text NOT NULL,
    contact_key text NOT NULL,
    user_identifier text DEFAULT ''::text NOT NULL,
    code_hash text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    used integer DEFAULT 0 NOT NULL,
    encrypted integer DEFAULT 0 NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: rate_buckets; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.rate_buckets (
    bucket text NOT NULL,
    tokens double precision NOT NULL,
    updated_ns bigint NOT NULL
);


--
-- Name: rate_windows; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.rate_windows (
    bucket text NOT NULL,
    window_start bigint NOT NULL,
    count integer NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.schema_migrations (
    version bigint NOT NULL,
    name text NOT NULL,
    applied_at bigint NOT NULL
);


--
-- Name: sealed_secrets; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.sealed_secrets (
    id text NOT NULL,
    org_id text DEFAULT ''::text NOT NULL,
    blob text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: send_nonces; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.send_nonces (
    network text NOT NULL,
    address text NOT NULL,
    next_nonce bigint NOT NULL
);


--
-- Name: send_transactions; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.send_transactions (
    id text NOT NULL,
    org_id text NOT NULL,
    activity_id text NOT NULL,
    network text NOT NULL,
    from_address text NOT NULL,
    key_secret text NOT NULL,
    request text NOT NULL,
    status text NOT NULL,
    nonce bigint NOT NULL,
    tx_hash text NOT NULL,
    raw_tx text NOT NULL,
    error text NOT NULL,
    attempts integer NOT NULL,
    next_at bigint NOT NULL,
    lease_until bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    sponsor_org text DEFAULT ''::text NOT NULL,
    gas_cost_wei text DEFAULT ''::text NOT NULL
);


--
-- Name: used_tokens; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.used_tokens (
    token_id text NOT NULL,
    org_id text NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint NOT NULL
);


--
-- Name: velocity_events; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.velocity_events (
    control_id text NOT NULL,
    bucket text NOT NULL,
    seq bigint NOT NULL,
    at_ms bigint NOT NULL,
    amount text NOT NULL,
    cumulative text NOT NULL,
    activity_id text NOT NULL
);


--
-- Name: webauthn_counters; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.webauthn_counters (
    org_id text NOT NULL,
    credential_id text NOT NULL,
    sign_count bigint NOT NULL
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.webhook_deliveries (
    seq bigint NOT NULL,
    id text NOT NULL,
    event_id text NOT NULL,
    endpoint_id text NOT NULL,
    org_id text NOT NULL,
    url text NOT NULL,
    event_type text NOT NULL,
    subject text NOT NULL,
    sequence bigint NOT NULL,
    body text NOT NULL,
    state text NOT NULL,
    attempts integer NOT NULL,
    next_at bigint NOT NULL,
    lease_until bigint NOT NULL,
    last_status integer NOT NULL,
    last_error text NOT NULL,
    created_at bigint NOT NULL,
    done_at bigint NOT NULL,
    scheme text DEFAULT 'turnkey'::text NOT NULL,
    secret text DEFAULT ''::text NOT NULL,
    source text DEFAULT 'coordinator'::text NOT NULL
);


--
-- Name: webhook_deliveries_seq_seq; Type: SEQUENCE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE SEQUENCE sigil_upgrade_fixture.webhook_deliveries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: webhook_deliveries_seq_seq; Type: SEQUENCE OWNED BY; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER SEQUENCE sigil_upgrade_fixture.webhook_deliveries_seq_seq OWNED BY sigil_upgrade_fixture.webhook_deliveries.seq;


--
-- Name: yield_actions; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_actions (
    id text NOT NULL,
    project text NOT NULL,
    address text NOT NULL,
    yield_id text NOT NULL,
    intent text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    body text NOT NULL,
    created_at bigint NOT NULL,
    completed_at bigint DEFAULT 0 NOT NULL
);


--
-- Name: yield_api_keys; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_api_keys (
    key_hash text NOT NULL,
    id text NOT NULL,
    project text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: yield_price_samples; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_price_samples (
    yield_id text NOT NULL,
    block_number bigint NOT NULL,
    block_time bigint NOT NULL,
    shares text NOT NULL,
    assets text NOT NULL
);


--
-- Name: yield_projects; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_projects (
    project text NOT NULL,
    fee_set integer NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: yield_transactions; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_transactions (
    id text NOT NULL,
    action_id text NOT NULL,
    step_index integer NOT NULL,
    status text NOT NULL,
    hash text DEFAULT ''::text NOT NULL,
    error text DEFAULT ''::text NOT NULL,
    body text NOT NULL,
    broadcasted_at bigint DEFAULT 0 NOT NULL,
    updated_at bigint NOT NULL
);


--
-- Name: yield_webhook_endpoints; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_webhook_endpoints (
    id text NOT NULL,
    project text NOT NULL,
    url text NOT NULL,
    events text NOT NULL,
    secret text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: yield_webhook_sequences; Type: TABLE; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE TABLE sigil_upgrade_fixture.yield_webhook_sequences (
    subject text NOT NULL,
    sequence bigint NOT NULL
);


--
-- Name: activities seq; Type: DEFAULT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.activities ALTER COLUMN seq SET DEFAULT nextval('sigil_upgrade_fixture.activities_seq_seq'::regclass);


--
-- Name: webhook_deliveries seq; Type: DEFAULT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.webhook_deliveries ALTER COLUMN seq SET DEFAULT nextval('sigil_upgrade_fixture.webhook_deliveries_seq_seq'::regclass);


--
-- Data for Name: activities; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--

INSERT INTO sigil_upgrade_fixture.activities VALUES (1, '01a233c6-945c-7759-beb6-c225b7cc61e4', '842f3ea8-2d76-45a0-993a-68b1fabef757', '3c9000c27395fa24c0a98732f38515d5d50790311031aa52e5128ec5e4070ffb', 'ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-945c-7759-beb6-c225b7cc61e4","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_CREATE_WALLET","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981848","fingerprint":"3c9000c27395fa24c0a98732f38515d5d50790311031aa52e5128ec5e4070ffb","votes":[{"id":"f68c1193-ce49-4d9d-90b7-bb617d1c1650","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-945c-7759-beb6-c225b7cc61e4","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"3046022100c651c496dae34500a2e0e781b57f0f47a3fac4ad11fb007417925b57a8d2cb8102210094a0faa00577ac64412272bf6a6e5bc32d3c954c6ee260a485f8a10f3fca7949","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"852457291"}}],"createdAt":"2026-12-01T22:43:01.852457291Z","updatedAt":"2026-12-01T22:43:01.852549829Z","intent":{"walletName":"treasury","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"},{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/1","addressFormat":"ADDRESS_FORMAT_ETHEREUM"},{"curve":"CURVE_ED25519","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/501''/0''/0''","addressFormat":"ADDRESS_FORMAT_SOLANA"}]},"result":{"walletId":"1ed8165d-f8d7-47c5-ad3e-3096b2d327e3","addresses":["0xc2faddBa7C10CAedE05f11A7b1Bc67B179FB391E","0x616429e94f4ef9de36A005d7a29D6A6Ecce9209B","CnTs6UYG3CNkvJh2WanehGwVnw7MG8pzzWxP4sWGh3Lf"]}}', 1796164981852457291, 1796164981852549829, '[{"id":"11b257ff-8911-43e1-9fcf-e1da5c750662","voteId":"f68c1193-ce49-4d9d-90b7-bb617d1c1650","createdAt":1796164981852549829,"policyEvaluations":[]}]', 1796164981848);
INSERT INTO sigil_upgrade_fixture.activities VALUES (2, '01a233c6-9491-7e3f-b0a9-b303e52dca3e', '842f3ea8-2d76-45a0-993a-68b1fabef757', '4b82b2d2b58201ecdb9f8fd2879b9eb0309a72a4251da2cae624ab507ceb01ed', 'ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-9491-7e3f-b0a9-b303e52dca3e","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_CREATE_WALLET","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981879","fingerprint":"4b82b2d2b58201ecdb9f8fd2879b9eb0309a72a4251da2cae624ab507ceb01ed","votes":[{"id":"f3acb018-37ec-4801-b336-02efb7d8c7a3","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-9491-7e3f-b0a9-b303e52dca3e","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"3045022100edb99de127d04fca5b5583a664c850882b558eea56c6ba7caced4541a77e067e0220492fbe05cbb183954b183e19a8368da8f52b372b34727f49777c6ec584f9059f","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"905909916"}}],"createdAt":"2026-12-01T22:43:01.905909916Z","updatedAt":"2026-12-01T22:43:01.905940682Z","intent":{"walletName":"deposits","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"},{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/84''/0''/0''/0/0","addressFormat":"ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"}]},"result":{"walletId":"c8e1493c-f978-489a-affb-3eeff5c435f2","addresses":["0xFcAC1326C13112F79F1d337FAAFF80112BdeeF0d","bc1qzmfqd3ukg8lw6vrsqtwf7pgn8fsg75rl2wz4j8"]}}', 1796164981905909916, 1796164981905940682, '[{"id":"cdc55322-28dd-40d6-919d-37da78bfde60","voteId":"f3acb018-37ec-4801-b336-02efb7d8c7a3","createdAt":1796164981905940682,"policyEvaluations":[]}]', 1796164981879);
INSERT INTO sigil_upgrade_fixture.activities VALUES (3, '01a233c6-94a9-72a9-8e92-3e5de5f7e5ac', '842f3ea8-2d76-45a0-993a-68b1fabef757', '478398a0a3bc57d17643b16f2e45061f7dc37975848b2ded7a3acbb6ef91733b', 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-94a9-72a9-8e92-3e5de5f7e5ac","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981928","fingerprint":"478398a0a3bc57d17643b16f2e45061f7dc37975848b2ded7a3acbb6ef91733b","votes":[{"id":"bed55fca-9882-4f12-a169-4105cc200c79","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-94a9-72a9-8e92-3e5de5f7e5ac","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"3046022100d68d288741d214cd39df109f6f72d3a91cc5a86e98d2fb27e1d34b674f50a14a022100d8efb288bc0e570d27adec108cd3de85b2bff9892c5c1b93594819e93d7b33b1","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"929162035"}}],"createdAt":"2026-12-01T22:43:01.929162035Z","updatedAt":"2026-12-01T22:43:01.929178169Z","intent":{"walletId":"1ed8165d-f8d7-47c5-ad3e-3096b2d327e3","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/2","addressFormat":"ADDRESS_FORMAT_ETHEREUM","name":"named account"},{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/3","addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]},"result":{"addresses":["0x4F3E54f85790dC95276040EE9d0755813870c34D","0x265895179b13c42261Bf69f0a1E799923D63b6EE"]}}', 1796164981929162035, 1796164981929178169, '[{"id":"f30000af-b270-4c23-92e2-b744f71ae37d","voteId":"bed55fca-9882-4f12-a169-4105cc200c79","createdAt":1796164981929178169,"policyEvaluations":[]}]', 1796164981928);
INSERT INTO sigil_upgrade_fixture.activities VALUES (4, '01a233c6-94bb-75d6-929a-b1f6cae4560d', '842f3ea8-2d76-45a0-993a-68b1fabef757', '2cdad8ea428f8ba15db08de4a124bd9684f3af66e4268218f184901bf9767fb7', 'ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-94bb-75d6-929a-b1f6cae4560d","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981946","fingerprint":"2cdad8ea428f8ba15db08de4a124bd9684f3af66e4268218f184901bf9767fb7","votes":[{"id":"d6f382bf-58e2-4b51-a673-da3b3c9ed92b","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-94bb-75d6-929a-b1f6cae4560d","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"30450220401da4a4da1db704184fb373e0e88a4ddaeb104ae755aff9a48aca1907efbaaf022100bf0b4e769ee4d21a71883bf23c54f7ad49ad54f6e4a02dbfd1a7e42643b6f23e","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"947372980"}}],"createdAt":"2026-12-01T22:43:01.94737298Z","updatedAt":"2026-12-01T22:43:01.94738651Z","intent":{"walletAccountIds":["24d29b52-5e74-4066-8730-d56929062ebc"],"deleteWithoutExport":true},"result":{"walletAccountIds":["24d29b52-5e74-4066-8730-d56929062ebc"]}}', 1796164981947372980, 1796164981947386510, '[{"id":"be20e611-f734-42c1-88dd-4a36e6ef1d7e","voteId":"d6f382bf-58e2-4b51-a673-da3b3c9ed92b","createdAt":1796164981947386510,"policyEvaluations":[]}]', 1796164981946);
INSERT INTO sigil_upgrade_fixture.activities VALUES (5, '01a233c6-94bf-7505-a970-0d2bfb560c40', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'e7e5bfb874d900d7b456630fccdc569ea2eb1e93372d484eb092e8d5993d2dd9', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-94bf-7505-a970-0d2bfb560c40","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981949","fingerprint":"e7e5bfb874d900d7b456630fccdc569ea2eb1e93372d484eb092e8d5993d2dd9","votes":[{"id":"32aecdf1-8c23-46c0-bf86-8a7d2a6178ea","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-94bf-7505-a970-0d2bfb560c40","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"3045022045eaf6ccc7e4bc2cfaf7041d341e4cfef89f56d903871a21ea4baf9b95f66bc7022100c61f8cb7e1f0fceeb3364d4f4f3ba8a877ecfbd016c0e4fe1471ff2b7e7353ba","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"951314702"}}],"createdAt":"2026-12-01T22:43:01.951314702Z","updatedAt":"2026-12-01T22:43:01.951332329Z","intent":{"privateKeys":[{"privateKeyName":"hot key","curve":"CURVE_SECP256K1","privateKeyTags":[],"addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]},"result":{"privateKeys":[{"privateKeyId":"e11d10b0-2f8e-46a4-bff8-9256396797b0","addresses":[{"format":"ADDRESS_FORMAT_ETHEREUM","address":"0x3fee9aA61385e211A495CCbf13040B5613648964"}]}]}}', 1796164981951314702, 1796164981951332329, '[{"id":"eb138ff6-fa99-4b7d-b0f6-13643353bc8d","voteId":"32aecdf1-8c23-46c0-bf86-8a7d2a6178ea","createdAt":1796164981951332329,"policyEvaluations":[]}]', 1796164981949);
INSERT INTO sigil_upgrade_fixture.activities VALUES (6, '01a233c6-94c5-7954-af74-fd59371195ba', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'daa4edc88314d73c259a63a1f8182a9ee523b1b5806dff6e52b1141067beda63', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-94c5-7954-af74-fd59371195ba","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981956","fingerprint":"daa4edc88314d73c259a63a1f8182a9ee523b1b5806dff6e52b1141067beda63","votes":[{"id":"86246ddc-0cd2-4d73-b056-6d24ab3771ca","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-94c5-7954-af74-fd59371195ba","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"3044022060b92688fbfb11ec55413cab5687caf3c17da007285ecb6e01b8b6d93cf17f9402201ea6aa20c9c294c09bbe730262730a1a6ecf6796ec2505ed3955f7fd8a8ba64c","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"957581133"}}],"createdAt":"2026-12-01T22:43:01.957581133Z","updatedAt":"2026-12-01T22:43:01.957642024Z","intent":{"subOrganizationName":"customer 1","rootUsers":[{"userName":"customer","apiKeys":[{"apiKeyName":"k","publicKey":"02d02f90a41a19a495dd68ebf7c7a4b1c0e9c13dcfdeecc1787b44edad5e1a9741","curveType":"API_KEY_CURVE_P256"}],"authenticators":[],"oauthProviders":[]}],"rootQuorumThreshold":1,"wallet":{"walletName":"default","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"},{"curve":"CURVE_ED25519","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/501''/0''/0''","addressFormat":"ADDRESS_FORMAT_SOLANA"}]}},"result":{"subOrganizationId":"7f57e9b1-41e0-45e5-9eff-56ff971978fa","wallet":{"walletId":"b3479043-bf30-4ba6-aad1-f3401e1c318b","addresses":["0xf205E5522CBEB6Dbefed8ddad0CcA7747c0aFF38","Ef8Bg6NriavDrbPcKyP1Ms7qw49W5ydiLKoX3irVgpAx"]},"rootUserIds":["578cb957-b1ee-424f-8e0f-c7e814f0aed8"]}}', 1796164981957581133, 1796164981957642024, '[{"id":"fb01ec1a-0596-4c6b-949e-c2fef4dab5d5","voteId":"86246ddc-0cd2-4d73-b056-6d24ab3771ca","createdAt":1796164981957642024,"policyEvaluations":[]}]', 1796164981956);
INSERT INTO sigil_upgrade_fixture.activities VALUES (7, '01a233c6-94cc-7e1d-8b6b-8914d92ab6ef', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'a2150dfa1af13dd192fe145a6129662f9b7e8c065ff220f5c8f41b67930e5d4d', 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_STATUS_COMPLETED', '{"id":"01a233c6-94cc-7e1d-8b6b-8914d92ab6ef","organizationId":"842f3ea8-2d76-45a0-993a-68b1fabef757","type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2","status":"ACTIVITY_STATUS_COMPLETED","timestampMs":"1796164981961","fingerprint":"a2150dfa1af13dd192fe145a6129662f9b7e8c065ff220f5c8f41b67930e5d4d","votes":[{"id":"ccc9a1cf-f70f-44d6-9ffc-e66147a26411","userId":"529461b7-dd44-4c33-80f9-13f7083753ba","user":{"userId":"529461b7-dd44-4c33-80f9-13f7083753ba","userName":"root","authenticators":[],"apiKeys":[{"credential":{"publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","type":"CREDENTIAL_TYPE_API_KEY_P256"},"apiKeyId":"99004aa1-2b6b-4c23-9029-d4329e54f007","apiKeyName":"bootstrap","createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"}}],"userTags":[],"oauthProviders":[],"createdAt":{"seconds":"1796164981","nanos":"842453613"},"updatedAt":{"seconds":"1796164981","nanos":"842453613"},"mfaPolicies":[]},"activityId":"01a233c6-94cc-7e1d-8b6b-8914d92ab6ef","selection":"VOTE_SELECTION_APPROVED","message":"","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","signature":"3046022100ea6a72d76d4d249e0e593d489c3e74efdcd36d735c6532e837cc6527372c66a6022100ab1de6523d788fb83a68be7f14d9d675a32260960b44e49a0dbc042f5e6dfb05","scheme":"SIGNATURE_SCHEME_TK_API_P256","createdAt":{"seconds":"1796164981","nanos":"964920015"}}],"createdAt":"2026-12-01T22:43:01.964920015Z","updatedAt":"2026-12-01T22:43:01.964928237Z","intent":{"signWith":"0xc2faddBa7C10CAedE05f11A7b1Bc67B179FB391E","payload":"deadbeef","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_KECCAK256"},"result":{"r":"da399b449ff515dbe8334939bfe4272a64476736450e05c362409130e78e1a95","s":"30af5b052444ee95edb8015188be53b96d7a8ac6497ed45e8b074e800acdfcd7","v":"00"}}', 1796164981964920015, 1796164981964928237, '[{"id":"a6644c0a-ffe4-4f79-a880-d02a4c2aff3e","voteId":"ccc9a1cf-f70f-44d6-9ffc-e66147a26411","createdAt":1796164981964928237,"policyEvaluations":[]}]', 1796164981961);


--
-- Data for Name: chain_blocks; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: chain_cursors; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: contract_interfaces; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: email_events; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: org_index; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--

INSERT INTO sigil_upgrade_fixture.org_index VALUES ('NAME', 'Upgrade fixture', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('PUBLIC_KEY', '035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('USERNAME', 'root', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', '0xc2faddba7c10caede05f11a7b1bc67b179fb391e', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', 'CnTs6UYG3CNkvJh2WanehGwVnw7MG8pzzWxP4sWGh3Lf', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', '0xfcac1326c13112f79f1d337faaff80112bdeef0d', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', 'bc1qzmfqd3ukg8lw6vrsqtwf7pgn8fsg75rl2wz4j8', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', '0x265895179b13c42261bf69f0a1e799923d63b6ee', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', '0x4f3e54f85790dc95276040ee9d0755813870c34d', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', '0x3fee9aa61385e211a495ccbf13040b5613648964', '842f3ea8-2d76-45a0-993a-68b1fabef757', '');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('NAME', 'customer 1', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', '842f3ea8-2d76-45a0-993a-68b1fabef757');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('PUBLIC_KEY', '02d02f90a41a19a495dd68ebf7c7a4b1c0e9c13dcfdeecc1787b44edad5e1a9741', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', '842f3ea8-2d76-45a0-993a-68b1fabef757');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('USERNAME', 'customer', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', '842f3ea8-2d76-45a0-993a-68b1fabef757');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', '0xf205e5522cbeb6dbefed8ddad0cca7747c0aff38', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', '842f3ea8-2d76-45a0-993a-68b1fabef757');
INSERT INTO sigil_upgrade_fixture.org_index VALUES ('WALLET_ACCOUNT_ADDRESS', 'Ef8Bg6NriavDrbPcKyP1Ms7qw49W5ydiLKoX3irVgpAx', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', '842f3ea8-2d76-45a0-993a-68b1fabef757');


--
-- Data for Name: organizations; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--

INSERT INTO sigil_upgrade_fixture.organizations VALUES ('842f3ea8-2d76-45a0-993a-68b1fabef757', '', 6, '{"id":"842f3ea8-2d76-45a0-993a-68b1fabef757","name":"Upgrade fixture","rootQuorum":{"userIds":["529461b7-dd44-4c33-80f9-13f7083753ba"],"threshold":1},"users":[{"id":"529461b7-dd44-4c33-80f9-13f7083753ba","name":"root","tags":[],"apiKeys":[{"id":"99004aa1-2b6b-4c23-9029-d4329e54f007","name":"bootstrap","publicKey":"035ba2bd3549fbabbb1721261b788f2666d3c184962aa1044f816b4e69a8a5fe33","curve":"API_KEY_CURVE_P256","type":"CREDENTIAL_TYPE_API_KEY_P256","createdAt":"2026-12-01T22:43:01.842453613Z","updatedAt":"2026-12-01T22:43:01.842453613Z"}],"authenticators":[],"oauthProviders":[],"createdAt":"2026-12-01T22:43:01.842453613Z","updatedAt":"2026-12-01T22:43:01.842453613Z"}],"tags":[],"policies":null,"wallets":[{"id":"1ed8165d-f8d7-47c5-ad3e-3096b2d327e3","name":"treasury","mnemonicSecret":"119dbfd3-7f9b-4680-8053-4c1c6a2ef2a0","exported":false,"imported":false,"accounts":[{"id":"2d6ba06b-7a2b-4da1-af86-63f138baa467","curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM","address":"0xc2faddBa7C10CAedE05f11A7b1Bc67B179FB391E","publicKey":"031048770545358a7923890ab089d05feba0c70e042bf1785b65c5cadfb2b044ed","keySecret":"49ff8e87-4d06-4d4c-a831-7db9c0970306","createdAt":"2026-12-01T22:43:01.852549829Z","updatedAt":"2026-12-01T22:43:01.852549829Z"},{"id":"f2fd8203-a1f5-4c3d-94ef-dc9680bd842c","curve":"CURVE_ED25519","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/501''/0''/0''","addressFormat":"ADDRESS_FORMAT_SOLANA","address":"CnTs6UYG3CNkvJh2WanehGwVnw7MG8pzzWxP4sWGh3Lf","publicKey":"af1611462652b54a200b8ea333e941d343dc14058b51b831ad14d9aaebb99c0c","keySecret":"7fb8113b-e651-444b-b1cc-5a3642526dff","createdAt":"2026-12-01T22:43:01.852549829Z","updatedAt":"2026-12-01T22:43:01.852549829Z"},{"id":"be0e810d-ec80-4cd1-92f4-dcc1e2248166","name":"named account","curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/2","addressFormat":"ADDRESS_FORMAT_ETHEREUM","address":"0x4F3E54f85790dC95276040EE9d0755813870c34D","publicKey":"02de358f1022dc6d7653809a242b7ab8ac5e0e2c0572ae607ee0e66f0164b44929","keySecret":"8a48d91b-b134-425a-a00b-240442bac789","createdAt":"2026-12-01T22:43:01.929178169Z","updatedAt":"2026-12-01T22:43:01.929178169Z"},{"id":"6645c2f2-949c-4511-9832-e6f95531f537","curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/3","addressFormat":"ADDRESS_FORMAT_ETHEREUM","address":"0x265895179b13c42261Bf69f0a1E799923D63b6EE","publicKey":"02a9a74030630dbd31a8657b9abdb9c1b395a2ea1d60e724b303692688403cf75d","keySecret":"3c8590e7-0d8e-4f56-9038-e254c400142e","createdAt":"2026-12-01T22:43:01.929178169Z","updatedAt":"2026-12-01T22:43:01.929178169Z"}],"createdAt":"2026-12-01T22:43:01.852549829Z","updatedAt":"2026-12-01T22:43:01.929178169Z"},{"id":"c8e1493c-f978-489a-affb-3eeff5c435f2","name":"deposits","mnemonicSecret":"fac4b683-161a-4d6f-b251-ad3f43b2b712","exported":false,"imported":false,"accounts":[{"id":"643d3f3c-b2fa-4456-a336-67e9761405f9","curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM","address":"0xFcAC1326C13112F79F1d337FAAFF80112BdeeF0d","publicKey":"0272542cec0ec0411d1faa0ae37765760d865eee56fd48c8c42b09261ab0f75b1c","keySecret":"74090945-4b1c-4f2e-ba47-b26bb290994c","createdAt":"2026-12-01T22:43:01.905940682Z","updatedAt":"2026-12-01T22:43:01.905940682Z"},{"id":"b714b997-6cb3-4187-85ab-594229617d7a","curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/84''/0''/0''/0/0","addressFormat":"ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH","address":"bc1qzmfqd3ukg8lw6vrsqtwf7pgn8fsg75rl2wz4j8","publicKey":"02ad9ae0d465c9e018e80a1a0e9be9f1bb358ec6a0af31b9f94e1b025c2c8316e7","keySecret":"8fddaaff-061c-4fb3-a11f-1889c4b68cb2","createdAt":"2026-12-01T22:43:01.905940682Z","updatedAt":"2026-12-01T22:43:01.905940682Z"}],"createdAt":"2026-12-01T22:43:01.905940682Z","updatedAt":"2026-12-01T22:43:01.905940682Z"}],"privateKeys":[{"id":"e11d10b0-2f8e-46a4-bff8-9256396797b0","name":"hot key","curve":"CURVE_SECP256K1","publicKey":"021b7e165d543b6266f63f5d4eb4299fb87854f48dfbf9d616d6551bafd8a1d8b9","addresses":[{"format":"ADDRESS_FORMAT_ETHEREUM","address":"0x3fee9aA61385e211A495CCbf13040B5613648964"}],"tags":[],"keySecret":"243afd8b-605c-4528-9b3b-76adf91a86b7","exported":false,"imported":false,"createdAt":"2026-12-01T22:43:01.951332329Z","updatedAt":"2026-12-01T22:43:01.951332329Z"}],"createdAt":"2026-12-01T22:43:01.842453613Z","updatedAt":"2026-12-01T22:43:01.951332329Z"}', 1796164981842453613);
INSERT INTO sigil_upgrade_fixture.organizations VALUES ('7f57e9b1-41e0-45e5-9eff-56ff971978fa', '842f3ea8-2d76-45a0-993a-68b1fabef757', 1, '{"id":"7f57e9b1-41e0-45e5-9eff-56ff971978fa","name":"customer 1","parentId":"842f3ea8-2d76-45a0-993a-68b1fabef757","rootQuorum":{"userIds":["578cb957-b1ee-424f-8e0f-c7e814f0aed8"],"threshold":1},"users":[{"id":"578cb957-b1ee-424f-8e0f-c7e814f0aed8","name":"customer","tags":[],"apiKeys":[{"id":"6dcff2a9-650f-4c4a-bdcf-06af484eb677","name":"k","publicKey":"02d02f90a41a19a495dd68ebf7c7a4b1c0e9c13dcfdeecc1787b44edad5e1a9741","curve":"API_KEY_CURVE_P256","type":"CREDENTIAL_TYPE_API_KEY_P256","createdAt":"2026-12-01T22:43:01.957642024Z","updatedAt":"2026-12-01T22:43:01.957642024Z"}],"authenticators":[],"oauthProviders":[],"createdAt":"2026-12-01T22:43:01.957642024Z","updatedAt":"2026-12-01T22:43:01.957642024Z"}],"tags":[],"policies":null,"wallets":[{"id":"b3479043-bf30-4ba6-aad1-f3401e1c318b","name":"default","mnemonicSecret":"8bb0cec9-93dc-4667-97dc-e4f2f69329c3","exported":false,"imported":false,"accounts":[{"id":"7bdf2594-194f-45f3-9d3b-6baad71967a0","curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/60''/0''/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM","address":"0xf205E5522CBEB6Dbefed8ddad0CcA7747c0aFF38","publicKey":"02e788ddbc63cb5b497c24616cca59b54e34bddaadcaf92bc76594f83a46969020","keySecret":"7e8eb9f1-f4fa-48f5-8d81-45ec456dd9cd","createdAt":"2026-12-01T22:43:01.957642024Z","updatedAt":"2026-12-01T22:43:01.957642024Z"},{"id":"673a2661-bbc8-4c8e-a4a4-57fef6a65a77","curve":"CURVE_ED25519","pathFormat":"PATH_FORMAT_BIP32","path":"m/44''/501''/0''/0''","addressFormat":"ADDRESS_FORMAT_SOLANA","address":"Ef8Bg6NriavDrbPcKyP1Ms7qw49W5ydiLKoX3irVgpAx","publicKey":"caec1fb17214b12ba1f1830eade44226907f14b869b9b561d86560a708ab8895","keySecret":"aa53ce12-0e87-44e4-9617-bb6c6a0a474c","createdAt":"2026-12-01T22:43:01.957642024Z","updatedAt":"2026-12-01T22:43:01.957642024Z"}],"createdAt":"2026-12-01T22:43:01.957642024Z","updatedAt":"2026-12-01T22:43:01.957642024Z"}],"privateKeys":null,"createdAt":"2026-12-01T22:43:01.957642024Z","updatedAt":"2026-12-01T22:43:01.957642024Z"}', 1796164981957642024);


--
-- Data for Name: otp_codes; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: rate_buckets; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: rate_windows; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--

INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (1, '0001_core.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (2, '0002_policy_evaluations.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (3, '0003_sealed_secrets.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (4, '0004_otp.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (5, '0005_activity_evaluations.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (6, '0006_activities_in_time_order.postgres.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (10, '0010_yield.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (11, '0011_yield_projects.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (12, '0012_contract_interfaces.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (13, '0013_velocity_events.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (14, '0014_email_events.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (15, '0015_webhooks.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (16, '0016_yield_webhooks.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (18, '0018_rate_buckets.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (19, '0019_chain_cursors.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (20, '0020_activities_awaiting_authenticators.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (25, '0025_sends.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (26, '0026_send_gas.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (40, '0040_chain_cursor_hash.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (45, '0045_chain_blocks.sql', 1796164981);
INSERT INTO sigil_upgrade_fixture.schema_migrations VALUES (46, '0046_webhook_deliveries_without_due_index.sql', 1796164981);


--
-- Data for Name: sealed_secrets; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--

INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('coordinator/signer', '', 'AQAAAAHjL4Fkvhw94TuuETGfgWEMal2mQApqXPqMmKsGQmqDGHg5Nz8AixW6UWt3dD8iU7HbNTot5e/R9uhatgjVfvpaFxEAWv8HbPWvMSREUPOATYTdSJb0FF6++NM47aC2X5h1IDzQu2FUSdinHWJgLH0m844+Dz6gkvA=', 1796164981833604878);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('coordinator/token', '', 'AQAAAAHfZhQZIBkOlwJc88ILVKvS48rtaVZgpiGIJR/n6kRaPiEta360jyOPDFQYOqOxdtRpAB98BG31uDmBZrtHFl9WO5QwhGM/6Uem0xAZBYuuG4ExAkstBeeicQV00lgVlTZ8+mUT7ImrBGDxTX/qwGCEiSNKLf2eYxw=', 1796164981841464607);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('119dbfd3-7f9b-4680-8053-4c1c6a2ef2a0', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAGyylVNjqJGhlZPxUptc4yddWXonLQ9dtvnK4w49f4BJwYEwMm6YFL7fo51lySZyaG1oGILgIaG53/5Rs5KOnftHnQbnFevD3VLRcdMltucPzdZ608fADu9p5IkVHXI6Zb0dY1ckxzFRVRnzQQVsFlar0Mm4z5dBgKPIO4FLbrzPrcWQLOzd8C4xezXFw/L67KsJU4jzsjhyFzClRmLJ7tO1KeW9L0av+I3MmFPcA==', 1796164981852549829);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('49ff8e87-4d06-4d4c-a831-7db9c0970306', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAHCyzQsY8gjw1m3QRv/b4kPIoSXZtlRpvMR5LjBkIrBuoFGiS9vzGuElAFUTRf0MeEx1J5pRrm+0R/FoNHy57yjCHFW6DhFGaVp3VqMAWIgDrYdMePPoriPZdSevywPP+BKOYVCBmHiFcAJQUDw2z8bUJgusZhFfJA=', 1796164981852549829);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('7fb8113b-e651-444b-b1cc-5a3642526dff', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAElNnoEhGuCDdAqP6F8TsMFHnqsZ8z1U2KEFfjJZ6UeJoKWIlrpsdn29tBWcdZBAEpUeQ4XQrxX8wZXA2mzTYvJrnRjyhXrcn+3LtZCAGM0n+efIYKjN7omQJIpikXE+ZPHhTsp7QARfiSeX0xW3O+Wc05FyYlNN5Q=', 1796164981852549829);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('fac4b683-161a-4d6f-b251-ad3f43b2b712', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAEtmma1OM2WJwpWGW1yOm9ZqmWh/Nzqjdy1TkcsHa6+fASXOoyNBcRqDgvpe+EIasGN/lfRlXXIvWwIC+lATu9PhAeN+O5lCFYrzbxQpNH8+AnGF14306DxgbidbrKncJFJf+84RkEu/aOg7Cu8g3XchxfLupM3FDKmsm5QrmtVhqD/1AdSz69jfnzDtdnGKiKMOpMZNZwU6Dh6SdjFQz+UYJTylQAWeYYgYrQ=', 1796164981905940682);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('74090945-4b1c-4f2e-ba47-b26bb290994c', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAEObl8th7Ok3Dt4kmwhhW+rDwLPwMiWNKGwHhRRuvpOr3wH7jZjrJ3ri4noapeItfamMbuHZsP6mXYMf0vH4ruRBpWZMCusDONDzM2T3yEkk2KoCf5bgq0YDutUKb84U9xOlUY86HWtCfCrx65haV1x7fzeUeSBcw4=', 1796164981905940682);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('8fddaaff-061c-4fb3-a11f-1889c4b68cb2', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAFNaQkbuL6LCkaw5scb0NL8Z1OsPBEmnOpGj+KmNmcR59fnH5ogv4yROyZY6dRw2Rd/XhL7z1YIvFBnO90LCCG6q5rbvSgUw4QlR7omSTqa0SYKnzWlrG9+2XLCJ09E9UnxwSHKNPgXIGKyqj8jaUSs5H7HwHv9yyo=', 1796164981905940682);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('8a48d91b-b134-425a-a00b-240442bac789', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAGomQ/JNXm6+vdQYkcWwBib5bcXBuzZJLwCnJdhCne9XARW9TT9OdfsQYbzAS268AlQUswU1jooFDKDGpjsReuwkSRepaOe4KatNyMniZ5ipHJRXkC/pSaPGOzz2TRvF3hhm6w3UfVyZMlW0X6hLjGV9a+zcfTuMt8=', 1796164981929178169);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('3c8590e7-0d8e-4f56-9038-e254c400142e', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAHvEb8F3RPlUhOQTBxTy6HK3G/vkY2uGpxSzhcO/fhSblDTN80xwn7MABZqMUhYFuwV/elwDjQc14CJi67TmR5KoaMVJeq/jn1aLu9YTzv30cphvnybT9nvYNLoSAaKcenC+x2S9fMqyYJZACQC7BXDLF+fH/kDBjg=', 1796164981929178169);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('243afd8b-605c-4528-9b3b-76adf91a86b7', '842f3ea8-2d76-45a0-993a-68b1fabef757', 'AQAAAAEJv+pQ8BIc7NW+4BpR3bu3UygO7OBNmnYONJK7IPScMXk6JJBxGJB+9mghzc5Ua0EgBqFaj07m2Pp0RLCqi8jgMdHquhWlX0UqtKMLKdozxQ1D+aCjTf2l8zVcaYpNa7H+Xg7fPNlxGXem0dYGVgN2ujwBBQCRwCs=', 1796164981951332329);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('8bb0cec9-93dc-4667-97dc-e4f2f69329c3', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', 'AQAAAAE33+2SfKeUHCV5hwo6OS0IgHetg62uT7C40QHMtpyf7WNGC0zLpksHcR9cpwDVLfgZJMI0ptPzHyX9gw5vHEMHssyxeFEwjsh2RZIh1b/8tuOKJkbBxavdX1QkkIq3A7BDSzd5kStJKrfUOJy7ZThsNauRLw7h+/TImQ04CfFhYRzTk++8hHHs1MBbVmzFt2N27XghDfkIpX8Et8ubyolH038r3A==', 1796164981957642024);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('7e8eb9f1-f4fa-48f5-8d81-45ec456dd9cd', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', 'AQAAAAGQsgmJTwTJzkF07afMKd5myVHpZkOOzknDvuqOtuUASTXI0PbPvevgB91ODOj6Hrk6pCusPZyxEpPB+NZRU50MK8bIwc1eZoIDSRapacBCUPYGw/TI9mGIJbYXxsnwHEr4Gj0pxtHiQPEgYmGnwwPJ4JM1lwupGP4=', 1796164981957642024);
INSERT INTO sigil_upgrade_fixture.sealed_secrets VALUES ('aa53ce12-0e87-44e4-9617-bb6c6a0a474c', '7f57e9b1-41e0-45e5-9eff-56ff971978fa', 'AQAAAAFqtanGzIMahn7l+3rPQuagXl6i96LmTGxK7bT7PP4X+yaELvuIko80hvsWOfrRFls4bHOXYfzWWPnJSyh2bTWkygomaJqsYRZF/Bf8JsQ3meEJBSmUcLYORQNgZS95+CFUwsw6lMzmCPHPs4AL2Vc/Nc2oaj7aL+E=', 1796164981957642024);


--
-- Data for Name: send_nonces; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: send_transactions; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: used_tokens; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: velocity_events; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: webauthn_counters; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_actions; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_api_keys; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_price_samples; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_projects; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_transactions; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_webhook_endpoints; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Data for Name: yield_webhook_sequences; Type: TABLE DATA; Schema: sigil_upgrade_fixture; Owner: -
--



--
-- Name: activities_seq_seq; Type: SEQUENCE SET; Schema: sigil_upgrade_fixture; Owner: -
--

SELECT pg_catalog.setval('sigil_upgrade_fixture.activities_seq_seq', 7, true);


--
-- Name: webhook_deliveries_seq_seq; Type: SEQUENCE SET; Schema: sigil_upgrade_fixture; Owner: -
--

SELECT pg_catalog.setval('sigil_upgrade_fixture.webhook_deliveries_seq_seq', 1, false);


--
-- Name: activities activities_id_key; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.activities
    ADD CONSTRAINT activities_id_key UNIQUE (id);


--
-- Name: activities activities_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.activities
    ADD CONSTRAINT activities_pkey PRIMARY KEY (seq);


--
-- Name: chain_blocks chain_blocks_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.chain_blocks
    ADD CONSTRAINT chain_blocks_pkey PRIMARY KEY (network, watcher, number);


--
-- Name: chain_cursors chain_cursors_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.chain_cursors
    ADD CONSTRAINT chain_cursors_pkey PRIMARY KEY (network, watcher);


--
-- Name: contract_interfaces contract_interfaces_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.contract_interfaces
    ADD CONSTRAINT contract_interfaces_pkey PRIMARY KEY (id);


--
-- Name: email_events email_events_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.email_events
    ADD CONSTRAINT email_events_pkey PRIMARY KEY (id);


--
-- Name: org_index org_index_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.org_index
    ADD CONSTRAINT org_index_pkey PRIMARY KEY (kind, value, org_id);


--
-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);


--
-- Name: otp_codes otp_codes_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.otp_codes
    ADD CONSTRAINT otp_codes_pkey PRIMARY KEY (id);


--
-- Name: rate_buckets rate_buckets_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.rate_buckets
    ADD CONSTRAINT rate_buckets_pkey PRIMARY KEY (bucket);


--
-- Name: rate_windows rate_windows_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.rate_windows
    ADD CONSTRAINT rate_windows_pkey PRIMARY KEY (bucket, window_start);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: sealed_secrets sealed_secrets_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.sealed_secrets
    ADD CONSTRAINT sealed_secrets_pkey PRIMARY KEY (id);


--
-- Name: send_nonces send_nonces_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.send_nonces
    ADD CONSTRAINT send_nonces_pkey PRIMARY KEY (network, address);


--
-- Name: send_transactions send_transactions_activity_id_key; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.send_transactions
    ADD CONSTRAINT send_transactions_activity_id_key UNIQUE (activity_id);


--
-- Name: send_transactions send_transactions_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.send_transactions
    ADD CONSTRAINT send_transactions_pkey PRIMARY KEY (id);


--
-- Name: used_tokens used_tokens_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.used_tokens
    ADD CONSTRAINT used_tokens_pkey PRIMARY KEY (token_id);


--
-- Name: velocity_events velocity_events_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.velocity_events
    ADD CONSTRAINT velocity_events_pkey PRIMARY KEY (control_id, bucket, seq);


--
-- Name: webauthn_counters webauthn_counters_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.webauthn_counters
    ADD CONSTRAINT webauthn_counters_pkey PRIMARY KEY (org_id, credential_id);


--
-- Name: webhook_deliveries webhook_deliveries_id_key; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_id_key UNIQUE (id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (seq);


--
-- Name: yield_actions yield_actions_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_actions
    ADD CONSTRAINT yield_actions_pkey PRIMARY KEY (id);


--
-- Name: yield_api_keys yield_api_keys_id_key; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_api_keys
    ADD CONSTRAINT yield_api_keys_id_key UNIQUE (id);


--
-- Name: yield_api_keys yield_api_keys_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_api_keys
    ADD CONSTRAINT yield_api_keys_pkey PRIMARY KEY (key_hash);


--
-- Name: yield_price_samples yield_price_samples_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_price_samples
    ADD CONSTRAINT yield_price_samples_pkey PRIMARY KEY (yield_id, block_number);


--
-- Name: yield_projects yield_projects_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_projects
    ADD CONSTRAINT yield_projects_pkey PRIMARY KEY (project);


--
-- Name: yield_transactions yield_transactions_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_transactions
    ADD CONSTRAINT yield_transactions_pkey PRIMARY KEY (id);


--
-- Name: yield_webhook_endpoints yield_webhook_endpoints_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_webhook_endpoints
    ADD CONSTRAINT yield_webhook_endpoints_pkey PRIMARY KEY (id);


--
-- Name: yield_webhook_sequences yield_webhook_sequences_pkey; Type: CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_webhook_sequences
    ADD CONSTRAINT yield_webhook_sequences_pkey PRIMARY KEY (subject);


--
-- Name: activities_awaiting_authenticators; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX activities_awaiting_authenticators ON sigil_upgrade_fixture.activities USING btree (org_id, fingerprint) WHERE (status = 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED'::text);


--
-- Name: activities_awaiting_votes; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX activities_awaiting_votes ON sigil_upgrade_fixture.activities USING btree (org_id, fingerprint) WHERE (status = 'ACTIVITY_STATUS_CONSENSUS_NEEDED'::text);


--
-- Name: activities_body; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE UNIQUE INDEX activities_body ON sigil_upgrade_fixture.activities USING btree (org_id, timestamp_ms, fingerprint);


--
-- Name: activities_org; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX activities_org ON sigil_upgrade_fixture.activities USING btree (org_id, seq);


--
-- Name: contract_interfaces_org; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX contract_interfaces_org ON sigil_upgrade_fixture.contract_interfaces USING btree (org_id);


--
-- Name: email_events_recipient; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX email_events_recipient ON sigil_upgrade_fixture.email_events USING btree (org_id, to_address, at_ms);


--
-- Name: org_index_org; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX org_index_org ON sigil_upgrade_fixture.org_index USING btree (org_id);


--
-- Name: organizations_parent; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX organizations_parent ON sigil_upgrade_fixture.organizations USING btree (parent_id, created_at);


--
-- Name: otp_codes_contact; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX otp_codes_contact ON sigil_upgrade_fixture.otp_codes USING btree (org_id, contact_key);


--
-- Name: otp_codes_expiry; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX otp_codes_expiry ON sigil_upgrade_fixture.otp_codes USING btree (org_id, expires_at);


--
-- Name: otp_codes_identifier; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX otp_codes_identifier ON sigil_upgrade_fixture.otp_codes USING btree (org_id, user_identifier, created_at);


--
-- Name: rate_buckets_updated; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX rate_buckets_updated ON sigil_upgrade_fixture.rate_buckets USING btree (updated_ns);


--
-- Name: sealed_secrets_org; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX sealed_secrets_org ON sigil_upgrade_fixture.sealed_secrets USING btree (org_id);


--
-- Name: send_transactions_due; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX send_transactions_due ON sigil_upgrade_fixture.send_transactions USING btree (network, status, next_at);


--
-- Name: send_transactions_hash; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX send_transactions_hash ON sigil_upgrade_fixture.send_transactions USING btree (org_id, tx_hash);


--
-- Name: send_transactions_sponsored; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX send_transactions_sponsored ON sigil_upgrade_fixture.send_transactions USING btree (sponsor_org, status, updated_at);


--
-- Name: used_tokens_expiry; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX used_tokens_expiry ON sigil_upgrade_fixture.used_tokens USING btree (expires_at);


--
-- Name: velocity_events_time; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX velocity_events_time ON sigil_upgrade_fixture.velocity_events USING btree (control_id, bucket, at_ms, seq);


--
-- Name: webhook_deliveries_endpoint; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX webhook_deliveries_endpoint ON sigil_upgrade_fixture.webhook_deliveries USING btree (endpoint_id, seq);


--
-- Name: webhook_deliveries_source_due; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX webhook_deliveries_source_due ON sigil_upgrade_fixture.webhook_deliveries USING btree (source, state, seq);


--
-- Name: webhook_deliveries_subject; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX webhook_deliveries_subject ON sigil_upgrade_fixture.webhook_deliveries USING btree (endpoint_id, subject, state, seq);


--
-- Name: yield_actions_address; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX yield_actions_address ON sigil_upgrade_fixture.yield_actions USING btree (project, address, created_at);


--
-- Name: yield_price_samples_time; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX yield_price_samples_time ON sigil_upgrade_fixture.yield_price_samples USING btree (yield_id, block_time);


--
-- Name: yield_transactions_action; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX yield_transactions_action ON sigil_upgrade_fixture.yield_transactions USING btree (action_id, step_index);


--
-- Name: yield_transactions_status; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX yield_transactions_status ON sigil_upgrade_fixture.yield_transactions USING btree (status);


--
-- Name: yield_webhook_endpoints_project; Type: INDEX; Schema: sigil_upgrade_fixture; Owner: -
--

CREATE INDEX yield_webhook_endpoints_project ON sigil_upgrade_fixture.yield_webhook_endpoints USING btree (project, created_at);


--
-- Name: yield_transactions yield_transactions_action_id_fkey; Type: FK CONSTRAINT; Schema: sigil_upgrade_fixture; Owner: -
--

ALTER TABLE ONLY sigil_upgrade_fixture.yield_transactions
    ADD CONSTRAINT yield_transactions_action_id_fkey FOREIGN KEY (action_id) REFERENCES sigil_upgrade_fixture.yield_actions(id);


--
-- PostgreSQL database dump complete
--

\unrestrict MN6hzn9XHfD2OUrpuQhTmxEkEVazufDcQhOFy8UFP8pXHaSPguxjhmH99YcpdqA

