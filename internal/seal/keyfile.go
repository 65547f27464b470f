package seal

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Master key file: JSON, mode 0600, for example
//
//	{
//	  "format": "sigil-master-keys-v1",
//	  "active": 2,
//	  "keys": [
//	    {"version": 1, "key": "<base64 of 32 bytes>"},
//	    {"version": 2, "key": "<base64 of 32 bytes>"}
//	  ]
//	}
//
// Rotation: AddVersion(path, false) on every server's file, restart them so
// all can open blobs under the new version, SetActiveVersion, rewrap every
// blob with Keyring.Rewrap, then RemoveVersion the old one. With a single
// server, AddVersion(path, true) does the first two steps at once.

const keyFileFormat = "sigil-master-keys-v1"

type keyFile struct {
	Format string          `json:"format"`
	Active uint32          `json:"active"`
	Keys   []keyFileMaster `json:"keys"`
}

type keyFileMaster struct {
	Version uint32 `json:"version"`
	Key     []byte `json:"key"` // base64 in JSON
}

// CreateKeyFile writes a new master key file with one random key, version 1,
// active. It refuses to overwrite an existing file.
func CreateKeyFile(path string) (*Keyring, error) {
	kf := &keyFile{Format: keyFileFormat, Active: 1, Keys: []keyFileMaster{{Version: 1, Key: randomKey()}}}
	defer kf.wipe()
	data, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return nil, err
	}
	defer clear(data)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create master key file: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("write master key file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("write master key file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write master key file %s: %w", path, err)
	}
	return kf.keyring()
}

// LoadKeyFile reads a master key file. It refuses a file that is not a
// regular file or that its group or others can read or write.
func LoadKeyFile(path string) (*Keyring, error) {
	kf, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	defer kf.wipe()
	return kf.keyring()
}

// AddVersion adds a random master key under the next version number and, if
// activate is set, makes it the active one. It returns the new version.
func AddVersion(path string, activate bool) (uint32, error) {
	var added uint32
	err := updateKeyFile(path, func(kf *keyFile) error {
		for _, k := range kf.Keys {
			added = max(added, k.Version)
		}
		if added == ^uint32(0) {
			return errors.New("master key versions are exhausted")
		}
		added++
		kf.Keys = append(kf.Keys, keyFileMaster{Version: added, Key: randomKey()})
		if activate {
			kf.Active = added
		}
		return nil
	})
	return added, err
}

// SetActiveVersion makes version, which the file must hold, the active one.
func SetActiveVersion(path string, version uint32) error {
	return updateKeyFile(path, func(kf *keyFile) error {
		if !slices.ContainsFunc(kf.Keys, func(k keyFileMaster) bool { return k.Version == version }) {
			return fmt.Errorf("master key file %s has no version %d", path, version)
		}
		kf.Active = version
		return nil
	})
}

// RemoveVersion deletes a master key version. The active version cannot be
// removed. Blobs still wrapped under it can no longer be opened, so rewrap
// them first.
func RemoveVersion(path string, version uint32) error {
	return updateKeyFile(path, func(kf *keyFile) error {
		if version == kf.Active {
			return fmt.Errorf("master key version %d is active: activate another version before removing it", version)
		}
		i := slices.IndexFunc(kf.Keys, func(k keyFileMaster) bool { return k.Version == version })
		if i < 0 {
			return fmt.Errorf("master key file %s has no version %d", path, version)
		}
		clear(kf.Keys[i].Key)
		kf.Keys = slices.Delete(kf.Keys, i, i+1)
		return nil
	})
}

func randomKey() []byte {
	k := make([]byte, keySize)
	rand.Read(k) // crypto/rand.Read never fails; it crashes the program instead.
	return k
}

func readKeyFile(path string) (*keyFile, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("master key file %s is not a regular file", path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("master key file %s has mode %04o: group and others must have no access (chmod 600 %s)", path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	defer clear(data)
	return parseKeyFile(data, "master key file "+path)
}

// ParseKeyFile reads the content of a master key file that came from elsewhere than a file (an environment variable,
// a secret manager's command); source names it in errors.
func ParseKeyFile(data []byte, source string) (*Keyring, error) {
	kf, err := parseKeyFile(data, source)
	if err != nil {
		return nil, err
	}
	defer kf.wipe()
	return kf.keyring()
}

func parseKeyFile(data []byte, source string) (*keyFile, error) {
	var kf keyFile
	if err := json.Unmarshal(data, &kf); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", source, err)
	}
	if kf.Format != keyFileFormat {
		kf.wipe()
		return nil, fmt.Errorf("%s has format %q: want %q", source, kf.Format, keyFileFormat)
	}
	return &kf, nil
}

// updateKeyFile reads the file, applies change, checks the result still makes
// a keyring, and replaces the file atomically (same directory, mode 0600).
func updateKeyFile(path string, change func(*keyFile) error) error {
	kf, err := readKeyFile(path)
	if err != nil {
		return err
	}
	defer kf.wipe()
	if err := change(kf); err != nil {
		return err
	}
	if _, err := kf.keyring(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return err
	}
	defer clear(data)
	return writeFileAtomic(path, append(data, '\n'))
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".master-keys-*") // created with mode 0600
	if err != nil {
		return fmt.Errorf("write master key file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write master key file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write master key file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write master key file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace master key file: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}

func (kf *keyFile) keyring() (*Keyring, error) {
	keys := make([]MasterKey, len(kf.Keys))
	for i, k := range kf.Keys {
		keys[i] = MasterKey(k)
	}
	return NewKeyring(kf.Active, keys...)
}

func (kf *keyFile) wipe() {
	for _, k := range kf.Keys {
		clear(k.Key)
	}
}
