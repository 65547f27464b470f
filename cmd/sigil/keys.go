package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"sigil/stamp"
)

// keyFile is the file `sigil keys new` writes and `sigil api --key` reads.
type keyFile struct {
	Curve      string `json:"curve"`
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

var curves = map[string]stamp.Curve{"p256": stamp.CurveP256, "secp256k1": stamp.CurveSecp256k1, "ed25519": stamp.CurveEd25519}

func runKeys(_ context.Context, args []string) error {
	if len(args) == 0 || args[0] != "new" {
		return fmt.Errorf("usage: sigil keys new [--curve p256|secp256k1|ed25519] [--out FILE]")
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
