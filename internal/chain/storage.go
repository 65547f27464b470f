package chain

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/internal/contracts"
)

// Files the dev chain keeps in its data directory next to go-ethereum's own.
const (
	devKeyFile = "dev-account.key" // hex private key of the dev account, mode 0600
	recordFile = "deployment.json" // where the fixtures are
)

// devAccountKey is the dev account of every new dev chain: the first account of the mnemonic Hardhat
// and Anvil use ("test test … junk"), 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266. A published key
// on purpose: the fixtures it deploys land at the same addresses on every fresh chain (the first
// is 0x5FbDB2315678afecb367f032d93F642f64180aa3, as on Anvil), so scripts and notes can name them.
// It holds only dev-chain ether, on a chain that listens on loopback.
const devAccountKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

// loadOrCreateDevKey returns the dev account's key: the one saved in dataDir (a chain made before
// the key was fixed keeps its own), or devAccountKey (saved there unless the chain is ephemeral).
// The genesis block funds that account.
func loadOrCreateDevKey(dataDir string) (*ecdsa.PrivateKey, error) {
	if dataDir == "" {
		return crypto.HexToECDSA(devAccountKey)
	}
	path := filepath.Join(dataDir, devKeyFile)
	text, err := os.ReadFile(path)
	switch {
	case err == nil:
		key, err := crypto.HexToECDSA(strings.TrimSpace(string(text)))
		if err != nil {
			return nil, fmt.Errorf("chain: %s does not hold a hex secp256k1 key (delete the data directory to start a new chain)", path)
		}
		return key, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("chain: read dev key: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("chain: create data directory: %w", err)
	}
	key, err := crypto.HexToECDSA(devAccountKey)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, []byte(hex.EncodeToString(crypto.FromECDSA(key))+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("chain: save dev key: %w", err)
	}
	return key, nil
}

func addressOf(key *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(key.PublicKey) }

// record is the deployment record: a restart on the same data directory reuses these addresses
// instead of deploying again, as long as Artifacts is the embedded artifacts' fingerprint.
type record struct {
	ChainID  int64          `json:"chainId"`
	Deployer common.Address `json:"deployer"`
	// Artifacts is contracts.Fingerprint() of the artifacts the fixtures were deployed from.
	Artifacts string              `json:"artifacts,omitempty"`
	Contracts contracts.Addresses `json:"contracts"`
}

func readRecord(dataDir string) (*record, error) {
	if dataDir == "" {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(dataDir, recordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("chain: read deployment record: %w", err)
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("chain: deployment record %s is not valid JSON (delete it to redeploy): %w", filepath.Join(dataDir, recordFile), err)
	}
	return &rec, nil
}

func writeRecord(dataDir string, rec record) error {
	if dataDir == "" {
		return nil
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dataDir, recordFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("chain: save deployment record: %w", err)
	}
	return nil
}

// writeFileAtomic writes through a temporary file and a rename, so a crash never leaves half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
