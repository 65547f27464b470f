package stack

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sigil/sigil/internal/seal"
)

// MasterKeySource says where the master key comes from: a file (the default DIR/master.key, created on the first
// start), the content of a key file handed over directly (the SIGIL_MASTER_KEY environment variable), or a command
// that prints it (a secret manager's or a KMS's command line, run with sh -c). At most one of the three.
type MasterKeySource struct {
	File    string
	Content []byte
	Command string
}

// masterKeyCommandTimeout bounds the command: a start must not hang on a secret manager that does not answer.
const masterKeyCommandTimeout = 30 * time.Second

// Given reports whether the source names where the key is (a file, its content or a command), rather than the
// default DIR/master.key.
func (m MasterKeySource) Given() bool { return m.File != "" || len(m.Content) > 0 || m.Command != "" }

// Open returns the keyring of a stack's master key, for a command that works beside the stack (its default file
// DIR/master.key is never created here).
func (m MasterKeySource) Open(ctx context.Context, dir string) (*seal.Keyring, error) {
	ring, _, err := m.open(ctx, dir, false)
	return ring, err
}

// load returns the keyring and, for a file, its path (the coordinator reads it again after a rotation by another
// process; keys from elsewhere change with a restart). The default file is created on the first start.
func (m MasterKeySource) load(ctx context.Context, dir string) (*seal.Keyring, string, error) {
	return m.open(ctx, dir, true)
}

func (m MasterKeySource) open(ctx context.Context, dir string, create bool) (*seal.Keyring, string, error) {
	given := 0
	for _, set := range []bool{m.File != "", len(m.Content) > 0, m.Command != ""} {
		if set {
			given++
		}
	}
	if given > 1 {
		return nil, "", errors.New("stack: the master key comes from one place: a file, SIGIL_MASTER_KEY or a command, not several")
	}
	switch {
	case len(m.Content) > 0:
		ring, err := seal.ParseKeyFile(m.Content, "SIGIL_MASTER_KEY")
		return ring, "", err
	case m.Command != "":
		ring, err := runMasterKeyCommand(ctx, m.Command)
		return ring, "", err
	}
	path := cmp.Or(m.File, filepath.Join(dir, "master.key"))
	ring, err := seal.LoadKeyFile(path)
	if errors.Is(err, os.ErrNotExist) && m.File == "" && create {
		ring, err = seal.CreateKeyFile(path)
	}
	return ring, path, err
}

// runMasterKeyCommand runs the command and reads a key file's content from its standard output. Its error output is
// reported when it fails; what it prints is never logged.
func runMasterKeyCommand(ctx context.Context, command string) (*seal.Keyring, error) {
	ctx, cancel := context.WithTimeout(ctx, masterKeyCommandTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	defer clear(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("stack: master key command: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return seal.ParseKeyFile(stdout.Bytes(), "the master key command's output")
}
