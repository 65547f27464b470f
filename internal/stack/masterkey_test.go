package stack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/stack"
)

// The master key may come from SIGIL_MASTER_KEY's content or from a command's output instead of a file: a stack
// started either way opens what the other sealed. Bad sources fail the start with what was wrong.
func TestMasterKeySources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	keyFile := filepath.Join(t.TempDir(), "master.key")
	if _, err := seal.CreateKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	content, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, err := stack.StartCoordinator(ctx, stack.CoordinatorConfig{Dir: dir, MasterKey: content})
	if err != nil {
		t.Fatal(err)
	}
	want, err := first.Coordinator().JWKS(ctx) // the token key, created and sealed under the master key
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	if _, err := os.Stat(filepath.Join(dir, "master.key")); !os.IsNotExist(err) {
		t.Fatalf("a master key file was written beside the database: %v", err)
	}
	second, err := stack.StartCoordinator(ctx, stack.CoordinatorConfig{Dir: dir, MasterKeyCommand: "cat " + keyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	got, err := second.Coordinator().JWKS(ctx)
	if err != nil || got.Keys[0].X != want.Keys[0].X {
		t.Fatalf("the key sealed under the content was not opened with the command's output: %v", err)
	}

	for _, tc := range []struct {
		name string
		cfg  stack.CoordinatorConfig
		msg  string
	}{
		{"two sources", stack.CoordinatorConfig{MasterKeyFile: keyFile, MasterKey: content}, "one place"},
		{"not a key file", stack.CoordinatorConfig{MasterKey: []byte("hunter2")}, "SIGIL_MASTER_KEY is not valid JSON"},
		{"a failing command", stack.CoordinatorConfig{MasterKeyCommand: "echo vault is sealed >&2; exit 3"}, "vault is sealed"},
		{"a command printing nothing useful", stack.CoordinatorConfig{MasterKeyCommand: "echo {}"}, "the master key command's output has format"},
	} {
		tc.cfg.Dir = t.TempDir()
		if _, err := stack.StartCoordinator(ctx, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}
}
