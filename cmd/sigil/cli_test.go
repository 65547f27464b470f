package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
)

// sigil runs the command line args as main would, and returns what it wrote and its exit status.
func sigil(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return sigilEnv(t, nil, args...)
}

// sigilEnv runs a command line with environ as its whole environment.
func sigilEnv(t *testing.T, environ map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(context.Background(), args, &out, &errs, func(k string) (string, bool) { v, ok := environ[k]; return v, ok })
	return out.String(), errs.String(), code
}

func TestKeysNew(t *testing.T) {
	t.Parallel()
	for _, curve := range []string{"p256", "secp256k1", "ed25519"} {
		path := filepath.Join(t.TempDir(), "key.json")
		if out, errs, code := sigil(t, "keys", "new", "--curve", curve, "--out", path); code != 0 || !strings.Contains(out, "public key") {
			t.Fatalf("keys new --curve %s: exit %d\n%s%s", curve, code, out, errs)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: key file mode %v %v", curve, fi.Mode(), err)
		}
		if _, err := loadKeyFile(path); err != nil {
			t.Fatalf("%s: %v", curve, err)
		}
	}
	if _, errs, code := sigil(t, "keys", "new", "--curve", "rsa"); code != 2 || !strings.Contains(errs, `unknown curve "rsa"`) {
		t.Fatalf("unknown curve: exit %d, %s", code, errs)
	}

	// A master key file for a deployment, never overwritten.
	master := filepath.Join(t.TempDir(), "master.key")
	if _, errs, code := sigil(t, "keys", "new-master", "--out", master); code != 0 {
		t.Fatalf("keys new-master: exit %d, %s", code, errs)
	}
	if _, err := seal.LoadKeyFile(master); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := sigil(t, "keys", "new-master", "--out", master); code != 1 || !strings.Contains(errs, "exists") {
		t.Fatalf("keys new-master over a file: exit %d, %s", code, errs)
	}

	// An existing key file is kept unless --force says otherwise.
	path := filepath.Join(t.TempDir(), "key.json")
	sigil(t, "keys", "new", "--out", path)
	before, _ := os.ReadFile(path)
	if _, errs, code := sigil(t, "keys", "new", "--out", path); code != 1 || !strings.Contains(errs, "--force to overwrite") {
		t.Fatalf("overwrite without --force: exit %d, %s", code, errs)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the key file changed without --force")
	}
	if _, errs, code := sigil(t, "keys", "new", "--out", path, "--force"); code != 0 {
		t.Fatalf("--force: exit %d, %s", code, errs)
	}
	if after, _ := os.ReadFile(path); string(after) == string(before) {
		t.Fatal("--force did not write a new key")
	}
}

// sigil api submits activities and runs queries named as the coordinator's list of operations names them, with the
// bootstrap record's key, organization and URL.
func TestAPICommand(t *testing.T) {
	t.Parallel()
	dir, _, _ := coordinatorStack(t, stack.CoordinatorConfig{})
	paramsFile := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(paramsFile, []byte(`{"users":[{"userName":"from-file","apiKeys":[],"authenticators":[],"oauthProviders":[],"userTags":[]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"api", "whoami", "--dir", dir}, `"username": "root"`},
		{[]string{"api", "update_organization_name", "--dir", dir, "--params", `{"organizationName":"Renamed"}`}, "ACTIVITY_STATUS_COMPLETED"},
		{[]string{"api", "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", "--dir", dir, "--params", `{"organizationName":"Again"}`}, "ACTIVITY_STATUS_COMPLETED"},
		{[]string{"api", "get_organization", "--dir", dir}, `"name": "Again"`},
		// A wire path is the newest activity type submitted there; parameters from a file.
		{[]string{"api", "create_users", "--dir", dir, "--params", "@" + paramsFile}, "ACTIVITY_TYPE_CREATE_USERS_V4"},
		// In short by default: type, status, id and the result's fields; the whole record with -o json.
		{[]string{"api", "create_users", "--dir", dir, "--params", strings.Replace(readFileT(t, paramsFile), "from-file", "second", 1)}, "\n  userIds  "},
		{[]string{"api", "update_organization_name", "--dir", dir, "-o", "json", "--params", `{"organizationName":"Json"}`}, `"updateOrganizationNameResult"`},
		{[]string{"api", "--list"}, "create_users_v4"},
	} {
		if out, errs, code := sigil(t, tc.args...); code != 0 || !strings.Contains(out, tc.want) {
			t.Fatalf("%v: exit %d\n%s%s", tc.args, code, out, errs)
		}
	}
	// keys add registers a new key on a user by name; the key then works.
	keyOut := filepath.Join(t.TempDir(), "root2.json")
	if out, errs, code := sigil(t, "keys", "add", "--user", "root", "--out", keyOut, "--dir", dir); code != 0 || !strings.Contains(out, "registered API key") {
		t.Fatalf("keys add: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := sigil(t, "api", "whoami", "--dir", dir, "--key", keyOut); code != 0 || !strings.Contains(out, `"username": "root"`) {
		t.Fatalf("whoami with the added key: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := sigil(t, "keys", "add", "--user", "nobody", "--out", filepath.Join(t.TempDir(), "k.json"), "--dir", dir); code != 1 || !strings.Contains(errs, `no user named "nobody"`) {
		t.Fatalf("keys add for an unknown user: exit %d %s", code, errs)
	}
	// SIGIL_COORDINATOR_URL overrides the bootstrap record's URL (here: a dead one, so the call must fail).
	if _, errs, code := sigilEnv(t, map[string]string{"SIGIL_DIR": dir, "SIGIL_COORDINATOR_URL": "http://127.0.0.1:1"}, "api", "whoami"); code != 1 || !strings.Contains(errs, "127.0.0.1:1") {
		t.Fatalf("SIGIL_COORDINATOR_URL: exit %d %s", code, errs)
	}
	if out, errs, code := sigilEnv(t, map[string]string{"SIGIL_DIR": dir}, "api", "whoami"); code != 0 || !strings.Contains(out, "root") {
		t.Fatalf("SIGIL_DIR: exit %d %s", code, errs)
	}
	if _, errs, code := sigil(t, "api", "creat_walet", "--dir", dir); code != 2 || !strings.Contains(errs, "did you mean create_wallet?") {
		t.Fatalf("a misspelt name: exit %d, %s", code, errs)
	}
	if _, errs, code := sigil(t, "api", "whoami", "--dir", dir, "--params", "@/nonexistent.json"); code != 2 || !strings.Contains(errs, "--params: open /nonexistent.json") {
		t.Fatalf("a missing params file: exit %d, %s", code, errs)
	}
	if body, err := readParams("-", strings.NewReader(`{"a":1}`)); err != nil || string(body) != `{"a":1}` {
		t.Fatalf("params from standard input: %s %v", body, err)
	}
	for _, args := range [][]string{
		{"api", "no_such_thing", "--dir", dir},
		{"api", "whoami", "--dir", dir, "--params", "{"},
		{"api", "--dir", dir},
		{"api"},
	} {
		if out, errs, code := sigil(t, args...); code != 2 || out != "" || !strings.HasPrefix(errs, "sigil api: ") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want a usage error", args, code, out, errs)
		}
	}
}

// sigil backup copies the database of a data directory, which opens as a database of its own.
func TestBackupCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertOrg(ctx, store.Org{ID: "o", Version: 1, Data: []byte(`{}`)}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := filepath.Join(t.TempDir(), "copy.db")
	if stdout, errs, code := sigil(t, "backup", "--dir", dir, "--out", out); code != 0 {
		t.Fatalf("backup: exit %d\n%s%s", code, stdout, errs)
	}
	copied, err := store.Open(ctx, out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if _, err := copied.GetOrg(ctx, "o"); err != nil {
		t.Fatalf("the copy lacks the organization: %v", err)
	}
	if _, _, code := sigil(t, "backup", "--dir", dir); code != 2 {
		t.Fatalf("backup without --out: exit %d", code)
	}
	empty := t.TempDir()
	if _, errs, code := sigil(t, "backup", "--dir", empty, "--out", filepath.Join(t.TempDir(), "x.db")); code != 1 || !strings.Contains(errs, "no database") {
		t.Fatalf("backup of a directory without a database: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(empty, "sigil.db")); err == nil {
		t.Fatal("backup created a database where there was none")
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// coordinatorStack starts a coordinator with a root organization for a test, and writes the bootstrap record the
// commands read into a data directory of its own: that directory, the root organization, and the coordinator's URL.
func coordinatorStack(t *testing.T, cfg stack.CoordinatorConfig) (string, *coordinator.Bootstrap, string) {
	t.Helper()
	ctx := context.Background()
	cfg.Dir = t.TempDir()
	s, err := stack.StartCoordinator(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	boot, err := s.Coordinator().CreateRootOrganization(ctx, "Sigil", "root")
	if err != nil {
		t.Fatal(err)
	}
	dir, url := t.TempDir(), s.Services()[0].URL
	if err := stack.WriteBootstrap(dir, &stack.Bootstrap{OrganizationID: boot.OrganizationID, UserID: boot.UserID,
		APIPublicKey: boot.APIKey.PublicKeyHex(), APIPrivateKey: boot.APIKey.PrivateKeyHex(), CoordinatorURL: url}); err != nil {
		t.Fatal(err)
	}
	return dir, boot, url
}

// sigil chain fund --network funds from the faucet of the dev chain with that network id in bootstrap.json.
func TestChainFundNetwork(t *testing.T) {
	t.Parallel()
	faucet := func(hash string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req chain.FundRequest
			_ = json.NewDecoder(r.Body).Decode(&req)
			_ = json.NewEncoder(w).Encode(chain.FundResponse{Address: req.Address, Transactions: map[string]string{"ETH": hash}})
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	first, second := faucet("0x01"), faucet("0x02")
	dir := t.TempDir()
	b := &stack.Bootstrap{FaucetURL: first.URL, Network: "sigil-dev", Chains: []chain.Bootstrap{
		{NetworkID: "sigil-dev", FaucetURL: first.URL}, {NetworkID: "sigil-dev-2", FaucetURL: second.URL}}}
	if err := stack.WriteBootstrap(dir, b); err != nil {
		t.Fatal(err)
	}
	address := "0x00000000000000000000000000000000000000aa"
	for _, tc := range []struct{ network, want string }{{"", "0x01"}, {"sigil-dev-2", "0x02"}} {
		args := []string{"chain", "fund", address, "--dir", dir, "--eth", "1"}
		if tc.network != "" {
			args = append(args, "--network", tc.network)
		}
		if out, errs, code := sigil(t, args...); code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("chain fund --network %q: exit %d %q %q, want the transaction %s", tc.network, code, out, errs, tc.want)
		}
	}
	if _, errs, code := sigil(t, "chain", "fund", address, "--dir", dir, "--network", "mainnet"); code != 2 || !strings.Contains(errs, "sigil-dev, sigil-dev-2") {
		t.Errorf("an unknown network: exit %d %q", code, errs)
	}
}

// The root key of a production stack is sealed in bootstrap.json: sigil api says how to get it, and sigil keys root
// opens it with the master key (a file, or its content in SIGIL_MASTER_KEY) into a key file sigil api --key uses.
func TestKeysRoot(t *testing.T) {
	t.Parallel()
	dir, boot, _ := coordinatorStack(t, stack.CoordinatorConfig{})
	master := filepath.Join(t.TempDir(), "master.key")
	ring, err := seal.CreateKeyFile(master)
	if err != nil {
		t.Fatal(err)
	}
	b, err := stack.ReadBootstrap(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.SealRootKey(ring); err != nil {
		t.Fatal(err)
	}
	if err := stack.WriteBootstrap(dir, b); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := sigil(t, "api", "whoami", "--dir", dir); code != 1 || !strings.Contains(errs, "sigil keys root") {
		t.Fatalf("sigil api with a sealed root key: exit %d, %s", code, errs)
	}
	if _, errs, code := sigil(t, "keys", "root", "--dir", dir, "--out", filepath.Join(t.TempDir(), "k.json"), "--master-key-file", filepath.Join(t.TempDir(), "none.key")); code != 1 {
		t.Fatalf("keys root without the master key: exit %d, %s", code, errs)
	}
	content, _ := os.ReadFile(master)
	for name, run := range map[string]func(out string) (string, string, int){
		"--master-key-file": func(out string) (string, string, int) {
			return sigil(t, "keys", "root", "--dir", dir, "--out", out, "--master-key-file", master)
		},
		"SIGIL_MASTER_KEY": func(out string) (string, string, int) {
			return sigilEnv(t, map[string]string{"SIGIL_MASTER_KEY": string(content)}, "keys", "root", "--dir", dir, "--out", out)
		},
	} {
		out := filepath.Join(t.TempDir(), "root.json")
		if stdout, errs, code := run(out); code != 0 || !strings.Contains(stdout, boot.APIKey.PublicKeyHex()) {
			t.Fatalf("keys root with %s: exit %d\n%s%s", name, code, stdout, errs)
		}
		if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("the root key file's mode: %v %v", fi.Mode(), err)
		}
		if stdout, errs, code := sigil(t, "api", "whoami", "--dir", dir, "--key", out); code != 0 || !strings.Contains(stdout, `"username": "root"`) {
			t.Fatalf("whoami with the key keys root wrote (%s): exit %d\n%s%s", name, code, stdout, errs)
		}
		if _, errs, code := run(out); code != 1 || !strings.Contains(errs, "exists") {
			t.Fatalf("keys root over an existing file: exit %d, %s", code, errs)
		}
	}
}
