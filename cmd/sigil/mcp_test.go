package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sigil mcp refuses to start without the user's key, with a key it cannot read, with a malformed --rpc, and over
// plain HTTP beyond loopback; the key never defaults to the bootstrap root key.
func TestMCPRefusesToStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "agent.json")
	if _, errs, code := sigil(t, "keys", "new", "--out", keyPath); code != 0 {
		t.Fatal(errs)
	}
	yieldKey := filepath.Join(dir, "yield-key")
	if err := os.WriteFile(yieldKey, []byte("project-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	given := []string{"--dir", dir, "--org", "org", "--url", "http://127.0.0.1:1", "--yield-url", "http://127.0.0.1:1", "--yield-key-file", yieldKey}
	for _, c := range []struct {
		name    string
		environ map[string]string
		args    []string
		code    int
		want    string
	}{
		{"no key", nil, given, 2, "--key FILE"},
		{"a key file that is not one", nil, append([]string{"--key", yieldKey}, given...), 1, "not a key file"},
		{"a key in the environment that is not a key file", map[string]string{"SIGIL_MCP_API_KEY": "0xdeadbeef"}, given, 1, "SIGIL_MCP_API_KEY does not hold a key file's JSON"},
		{"a malformed --rpc", nil, append([]string{"--key", keyPath, "--rpc", "1337=http://x"}, given...), 2, "is not eip155:CHAIN_ID=URL"},
		{"no yield service", nil, []string{"--key", keyPath, "--dir", dir, "--org", "org", "--url", "http://127.0.0.1:1"}, 1, "bootstrap.json"},
		{"plain HTTP beyond loopback", nil, append([]string{"--key", keyPath, "--http", "0.0.0.0:0"}, given...), 1, "beyond loopback over plain HTTP"},
		{"a rate limit of 0", nil, append([]string{"--key", keyPath, "--rate-limit", "0"}, given...), 2, "--rate-limit must be 1 or more"},
	} {
		_, errs, code := sigilEnv(t, c.environ, append([]string{"mcp"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %q; want exit %d with %q", c.name, code, errs, c.code, c.want)
		}
	}
}
