package webhook

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// verifyScript runs Turnkey's own verifier, verifyTurnkeyWebhookSignature
// from @turnkey/crypto, on deliveries this package signed, with the keys of
// this package's JWKS converted as Turnkey's documentation does it
// (Buffer.from(x, "base64url").toString("hex")). Then it signs a delivery
// itself, in the documented format, for Verify to check.
const verifyScript = `
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const dir = process.argv[2];
const req = createRequire(path.join(path.resolve(dir), "package.json"));
const main = req.resolve("@turnkey/crypto");
const { verifyTurnkeyWebhookSignature } = req("@turnkey/crypto");
if (typeof verifyTurnkeyWebhookSignature !== "function") {
  console.error("@turnkey/crypto has no verifyTurnkeyWebhookSignature");
  process.exit(3);
}
const { ed25519 } = createRequire(main)("@noble/curves/ed25519");
const version = JSON.parse(fs.readFileSync(path.join(path.dirname(main), "..", "package.json"), "utf8")).version;

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const verificationKeys = input.jwks.keys.map((key) => ({
  keyId: key.kid,
  publicKey: Buffer.from(key.x, "base64url").toString("hex"),
  algorithm: "ed25519",
}));
const results = input.deliveries.map((d) => {
  const body = Buffer.from(d.body, "base64");
  const headers = d.fetchHeaders ? new Headers(d.headers) : d.headers;
  const r = verifyTurnkeyWebhookSignature({
    headers, body: new Uint8Array(body), verificationKeys, maxTimestampAgeMs: d.maxAgeMs, nowMs: d.nowMs,
  });
  return { name: d.name, ...r };
});

const priv = ed25519.utils.randomPrivateKey();
const kid = "node-key";
const timestampMs = String(input.nowMs);
const eventId = "evt-from-node";
const body = Buffer.from(input.nodeBody, "base64");
const signed = Buffer.concat([Buffer.from("v1.ed25519." + kid + "." + timestampMs + "." + eventId + "."), body]);
const signature = Buffer.from(ed25519.sign(signed, priv)).toString("hex");
const publicKey = Buffer.from(ed25519.getPublicKey(priv)).toString("hex");
const selfCheck = verifyTurnkeyWebhookSignature({
  headers: {
    "x-turnkey-timestamp": timestampMs, "x-turnkey-event-id": eventId, "x-turnkey-signature-key-id": kid,
    "x-turnkey-signature-algorithm": "ed25519", "x-turnkey-signature-version": "v1", "x-turnkey-signature": signature,
  },
  body, verificationKeys: [{ keyId: kid, publicKey }], maxTimestampAgeMs: 1000, nowMs: input.nowMs,
});
console.log(JSON.stringify({ version, results, node: { kid, timestampMs, eventId, signature, publicKey, selfCheck } }));
`

// turnkeyCryptoDir is the folder whose node_modules holds @turnkey/crypto:
// $SIGIL_TURNKEY_CRYPTO_DIR, or tests/compat where `make test` installs the
// conformance tests' packages. The test is skipped without node or the package.
func turnkeyCryptoDir(t *testing.T) (node, dir string) {
	t.Helper()
	// The README's test command installs the SDKs and sets SIGIL_REQUIRE_SDKS, so there a missing one fails.
	skip := t.Skipf
	if os.Getenv("SIGIL_REQUIRE_SDKS") != "" {
		skip = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed: skipping the check against @turnkey/crypto's verifier")
	}
	dir = os.Getenv("SIGIL_TURNKEY_CRYPTO_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "tests", "compat")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@turnkey", "crypto", "package.json")); err != nil {
		skip("@turnkey/crypto is not installed in %s/node_modules: run `npm ci` in tests/compat "+
			"or set SIGIL_TURNKEY_CRYPTO_DIR to a folder whose node_modules has @turnkey/crypto >= 2.10", dir)
	}
	return node, dir
}

func TestTurnkeyOfficialVerifier(t *testing.T) {
	t.Parallel()
	node, dir := turnkeyCryptoDir(t)

	current, previous, unpublished := testSigner(t, "whk_current", 7), testSigner(t, "whk_previous", 8), testSigner(t, "whk_gone", 9)
	jwks, err := json.Marshal(JWKS(current.VerificationKey(), previous.VerificationKey()))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	body := []byte("{\"type\":\"ACTIVITY_UPDATES\",\"note\":\"caf\u00e9 \u2713\",\n\"n\":[1, 2]}")
	type delivery struct {
		Name         string            `json:"name"`
		Headers      map[string]string `json:"headers"`
		Body         []byte            `json:"body"`
		NowMs        int64             `json:"nowMs"`
		MaxAgeMs     int64             `json:"maxAgeMs"`
		FetchHeaders bool              `json:"fetchHeaders"`
	}
	flat := func(h http.Header) map[string]string {
		m := map[string]string{}
		for k := range h {
			m[k] = h.Get(k)
		}
		return m
	}
	sign := func(s *Signer, at time.Time) map[string]string {
		h, err := s.Headers(Meta{EventID: "0196a0c2-7d1e-7b3a-9f00-1c2d3e4f5a6b", EventType: "ACTIVITY_UPDATES", OrganizationID: "org-1"}, body, at)
		if err != nil {
			t.Fatal(err)
		}
		return flat(h)
	}
	first, retry := sign(current, now.Add(-time.Minute)), sign(current, now)
	if first[HeaderEventID] != retry[HeaderEventID] || first[HeaderSignature] == retry[HeaderSignature] {
		t.Fatal("a retry must keep the event id and get a fresh signature")
	}
	tampered := append(bytes.Clone(body[:len(body)-1]), ' ', '}')
	ms := now.UnixMilli()
	deliveries := []delivery{
		{Name: "first attempt", Headers: first, Body: body, NowMs: ms, MaxAgeMs: 300_000},
		{Name: "retry", Headers: retry, Body: body, NowMs: ms, MaxAgeMs: 300_000},
		{Name: "fetch Headers object", Headers: retry, Body: body, NowMs: ms, MaxAgeMs: 300_000, FetchHeaders: true},
		{Name: "previous key, still published", Headers: sign(previous, now), Body: body, NowMs: ms, MaxAgeMs: 300_000},
		{Name: "tampered body", Headers: retry, Body: tampered, NowMs: ms, MaxAgeMs: 300_000},
		{Name: "stale", Headers: first, Body: body, NowMs: ms, MaxAgeMs: 30_000},
		{Name: "unpublished key", Headers: sign(unpublished, now), Body: body, NowMs: ms, MaxAgeMs: 300_000},
	}
	want := map[string]string{ // name -> reason ("" = ok)
		"first attempt": "", "retry": "", "fetch Headers object": "", "previous key, still published": "",
		"tampered body": "invalid_signature", "stale": "stale_timestamp", "unpublished key": "missing_key",
	}
	nodeBody := []byte(`{"type":"balances:confirmed","msg":{"amount":"1"}}`)
	in, err := json.Marshal(map[string]any{"jwks": json.RawMessage(jwks), "deliveries": deliveries, "nowMs": ms, "nodeBody": nodeBody})
	if err != nil {
		t.Fatal(err)
	}

	script := filepath.Join(t.TempDir(), "verify.cjs")
	if err := os.WriteFile(script, []byte(verifyScript), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, dir)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got struct {
		Version string `json:"version"`
		Results []struct {
			Name        string `json:"name"`
			OK          bool   `json:"ok"`
			Reason      string `json:"reason"`
			EventID     string `json:"eventId"`
			KeyID       string `json:"keyId"`
			TimestampMs int64  `json:"timestampMs"`
		} `json:"results"`
		Node struct {
			Kid         string `json:"kid"`
			TimestampMs string `json:"timestampMs"`
			EventID     string `json:"eventId"`
			Signature   string `json:"signature"`
			PublicKey   string `json:"publicKey"`
			SelfCheck   struct {
				OK bool `json:"ok"`
			} `json:"selfCheck"`
		} `json:"node"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	t.Logf("@turnkey/crypto %s", got.Version)
	if len(got.Results) != len(deliveries) {
		t.Fatalf("node returned %d results for %d deliveries", len(got.Results), len(deliveries))
	}
	for _, r := range got.Results {
		reason := want[r.Name]
		switch {
		case reason == "" && !r.OK:
			t.Errorf("%s: @turnkey/crypto refused it: %s", r.Name, r.Reason)
		case reason != "" && (r.OK || r.Reason != reason):
			t.Errorf("%s: @turnkey/crypto said ok=%v reason=%q, want %q", r.Name, r.OK, r.Reason, reason)
		case reason == "" && r.EventID != first[HeaderEventID]:
			t.Errorf("%s: event id %q", r.Name, r.EventID)
		}
	}
	if ts, _ := strconv.ParseInt(retry[HeaderTimestamp], 10, 64); got.Results[1].TimestampMs != ts || got.Results[1].KeyID != "whk_current" {
		t.Errorf("retry: verified %+v", got.Results[1])
	}

	// The other way round: a delivery signed by Node in the documented
	// format verifies here, and one byte changed does not.
	if !got.Node.SelfCheck.OK {
		t.Fatal("the Node-signed delivery does not pass @turnkey/crypto itself")
	}
	pub, err := hex.DecodeString(got.Node.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(HeaderTimestamp, got.Node.TimestampMs)
	h.Set(HeaderEventID, got.Node.EventID)
	h.Set(HeaderSignatureKeyID, got.Node.Kid)
	h.Set(HeaderSignatureAlgorithm, "ed25519")
	h.Set(HeaderSignatureVersion, "v1")
	h.Set(HeaderSignature, got.Node.Signature)
	keys := []VerificationKey{{KeyID: got.Node.Kid, PublicKey: pub}}
	if _, err := Verify(h, nodeBody, keys, time.Second, now); err != nil {
		t.Fatalf("Verify of a Node-signed delivery: %v", err)
	}
	if _, err := Verify(h, append(bytes.Clone(nodeBody), ' '), keys, time.Second, now); err == nil {
		t.Fatal("Verify accepted a changed body")
	}
}
