package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"sigil/coordinator"
	"sigil/seal"
	"sigil/stamp"
	"sigil/store"
)

// keyFile is the file `sigil keys new` writes and `sigil api --key` reads.
type keyFile struct {
	Curve      string `json:"curve"`
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

var curves = map[string]stamp.Curve{"p256": stamp.CurveP256, "secp256k1": stamp.CurveSecp256k1, "ed25519": stamp.CurveEd25519}

func runKeys(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "rotate-master" {
		return rotateMaster(ctx, args[1:])
	}
	if len(args) == 0 || args[0] != "new" {
		return fmt.Errorf("usage: sigil keys new [--curve p256|secp256k1|ed25519] [--out FILE] | sigil keys rotate-master [--dir DIR]")
	}
	fs := flag.NewFlagSet("keys new", flag.ContinueOnError)
	curveName := fs.String("curve", "p256", "p256, secp256k1 or ed25519")
	out := fs.String("out", "", "file to write (default: print the public key and write sigil-key-<curve>.json)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	curve, ok := curves[*curveName]
	if !ok {
		return fmt.Errorf("unknown curve %q: use p256, secp256k1 or ed25519", *curveName)
	}
	key, err := stamp.GenerateAPIKey(curve)
	if err != nil {
		return err
	}
	path := *out
	if path == "" {
		path = "sigil-key-" + *curveName + ".json"
	}
	data, _ := json.MarshalIndent(keyFile{Curve: string(curve), PublicKey: key.PublicKeyHex(), PrivateKey: key.PrivateKeyHex()}, "", "  ")
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	fmt.Printf("wrote %s\npublic key (%s): %s\n", path, curve, key.PublicKeyHex())
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

// rotateMaster adds a new master key version, makes it active, and rewraps every sealed row under it. A running
// coordinator keeps working throughout: it reads the key file again when it meets the new version.
func rotateMaster(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("keys rotate-master", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory")
	masterKey := fs.String("master-key-file", "", "master key file (default DIR/master.key)")
	dbURL := fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path := firstNonEmpty(*masterKey, filepath.Join(*dir, "master.key"))
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
	fmt.Printf("master key version %d is active; %d sealed secrets rewrapped\n", version, n)
	return nil
}
