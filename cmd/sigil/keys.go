package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// keyFile is the file sigil keys new writes and sigil api --key reads.
type keyFile struct {
	Curve      string `json:"curve"`
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

var curves = map[string]stamp.Curve{"p256": stamp.CurveP256, "secp256k1": stamp.CurveSecp256k1, "ed25519": stamp.CurveEd25519}

// runKeysNew is sigil keys new: a new API key pair, written to a file readable by its owner only.
func runKeysNew(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	curveName := fs.String("curve", "p256", "p256, secp256k1 or ed25519")
	out := fs.String("out", "", "file to write (default: sigil-key-CURVE.json)")
	force := fs.Bool("force", false, "overwrite the file if it exists (its private key is lost)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	key, path, err := e.newKeyFile(*curveName, *out, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\npublic key (%s): %s\n", path, key.Curve(), key.PublicKeyHex())
	return nil
}

// runKeysAdd is sigil keys add: a new API key pair, written to a file, and registered on a user of the organization
// (CREATE_API_KEYS, stamped with the bootstrap root key or --key).
func runKeysAdd(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	user := fs.String("user", "", "the user's name (required)")
	name := fs.String("name", "", "the key's name (default: sigil-cli)")
	curveName := fs.String("curve", "p256", "p256, secp256k1 or ed25519")
	out := fs.String("out", "", "file to write (default: sigil-key-USER.json)")
	coord := registerCoordinatorFlags(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *user == "" {
		return e.usageErrorf("--user is required")
	}
	c, orgID, err := coord.client(e)
	if err != nil {
		return err
	}
	users, err := c.ListUsers(ctx, orgID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(users.Users, func(u api.User) bool { return u.UserName == *user })
	if i < 0 {
		return fmt.Errorf("organization %s has no user named %q", orgID, *user)
	}
	key, path, err := e.newKeyFile(*curveName, cmp.Or(*out, "sigil-key-"+*user+".json"), false)
	if err != nil {
		return err
	}
	res, _, err := c.CreateAPIKeys(ctx, orgID, api.CreateAPIKeysIntentV2{UserID: users.Users[i].UserID, APIKeys: []api.APIKeyParamsV2{{
		APIKeyName: cmp.Or(*name, "sigil-cli"), PublicKey: key.PublicKeyHex(), CurveType: string(key.Curve())}}})
	if err != nil {
		os.Remove(path) // a key nobody registered is no use, and a private key less to leak
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\nregistered API key %s (%s %s) on user %s\n", path, res.APIKeyIDs[0], key.Curve(), key.PublicKeyHex(), *user)
	return nil
}

// newKeyFile makes an API key pair and writes it to path (default sigil-key-CURVE.json), mode 0600, refusing to
// overwrite a file unless force.
func (e *env) newKeyFile(curveName, path string, force bool) (*stamp.APIKey, string, error) {
	curve, ok := curves[curveName]
	if !ok {
		return nil, "", e.usageErrorf("unknown curve %q: use p256, secp256k1 or ed25519", curveName)
	}
	key, err := stamp.GenerateAPIKey(curve)
	if err != nil {
		return nil, "", err
	}
	path = cmp.Or(path, "sigil-key-"+curveName+".json")
	return key, path, writeKeyFile(key, path, force)
}

// writeKeyFile writes an API key pair to path, mode 0600, refusing to overwrite a file unless force.
func writeKeyFile(key *stamp.APIKey, path string, force bool) error {
	data, _ := json.MarshalIndent(keyFile{Curve: string(key.Curve()), PublicKey: key.PublicKeyHex(), PrivateKey: key.PrivateKeyHex()}, "", "  ")
	defer clear(data)
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists and may hold a private key in use: give another --out, or --force to overwrite it", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// masterKeyFlags name a stack's master key for a command working beside the stack, as sigil up's flags do; the key
// file's content may come in SIGIL_MASTER_KEY instead.
type masterKeyFlags struct{ file, command *string }

func registerMasterKeyFlags(fs *flag.FlagSet) masterKeyFlags {
	return masterKeyFlags{
		file:    fs.String("master-key-file", "", "the stack's master key file (default DIR/master.key; or its content in SIGIL_MASTER_KEY, or --master-key-command)"),
		command: fs.String("master-key-command", "", "command (run with sh -c) that prints the master key file's content"),
	}
}

// source is where the flags and the environment say the master key is.
func (f masterKeyFlags) source(e *env) stack.MasterKeySource {
	content, _ := e.getenv("SIGIL_MASTER_KEY")
	return stack.MasterKeySource{File: *f.file, Content: []byte(content), Command: *f.command}
}

// runKeysRoot is sigil keys root: the root user's API key, which production mode keeps sealed in bootstrap.json,
// opened with the master key and written to a key file for sigil api --key.
func runKeysRoot(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of the stack (its bootstrap.json)")
	out := fs.String("out", "", "key file to write (required; never overwritten)")
	master := registerMasterKeyFlags(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return e.usageErrorf("--out is required")
	}
	b, err := stack.ReadBootstrap(*dir)
	if err != nil {
		return err
	}
	ring, err := master.source(e).Open(ctx, *dir)
	if err != nil {
		return err
	}
	key, err := b.OpenRootKey(ring)
	if err != nil {
		return err
	}
	if err := writeKeyFile(key, *out, false); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: the API key of root user %s of organization %s (%s)\nsigil api --key %s stamps with it\n",
		*out, b.UserID, b.OrganizationID, key.PublicKeyHex(), *out)
	return nil
}

func loadKeyFile(path string) (*stamp.APIKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var kf keyFile
	if err := json.Unmarshal(data, &kf); err != nil {
		return nil, fmt.Errorf("%s: not a key file: %w", path, err)
	}
	return stamp.ParseAPIKey(stamp.Curve(kf.Curve), kf.PrivateKey)
}

// runRotateMaster is sigil keys rotate-master: it adds a new master key version, makes it active, and rewraps every
// sealed row under it. A running coordinator keeps working throughout: it reads the key file again when it meets the
// new version.
func runRotateMaster(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory")
	masterKey := fs.String("master-key-file", "", "master key file (default DIR/master.key)")
	dbURL := fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	path := cmp.Or(*masterKey, filepath.Join(*dir, "master.key"))
	version, err := seal.AddVersion(path, true)
	if err != nil {
		return err
	}
	ring, err := seal.LoadKeyFile(path)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *dbURL, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := coordinator.New(st, coordinator.Config{Keyring: ring, MasterKeyFile: path}).RotateMasterKey(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "master key version %d is active; %d sealed secrets rewrapped\n", version, n)
	return nil
}

// runKeysNewMaster is sigil keys new-master: a master key file of one random key, refusing to overwrite one. A
// deployment keeps it apart from the database (a secret manager, SIGIL_MASTER_KEY, --master-key-command), since the
// two together open every sealed key.
func runKeysNewMaster(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	out := fs.String("out", "", "file to write (required; never overwritten)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return e.usageErrorf("--out is required")
	}
	if _, err := seal.CreateKeyFile(*out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: keep it apart from the database, and back it up: without it nothing sealed opens\n", *out)
	return nil
}
