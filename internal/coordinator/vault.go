package coordinator

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
)

// vault seals and opens key material with the master keyring. Every blob's associated data names its row
// ("sigil/secret/<id>"), so a blob cannot be moved to another row. Another process may rotate the master key
// (sigil keys rotate-master): the vault reads the key file again when it changed (checked at most once a second before
// sealing), so new material is sealed under the new active version, and when a blob names a version it does not hold.
type vault struct {
	mu         sync.RWMutex
	ring       *seal.Keyring
	path       string
	now        func() time.Time // the coordinator's clock
	lastReload time.Time        // the last time the file was read, or checked for a change
	modTime    time.Time        // the file's modification time when it was read
}

func secretAAD(id string) []byte { return []byte("sigil/secret/" + id) }

func (v *vault) keyring() *seal.Keyring {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.ring
}

// ready says whether a master key is loaded, so that key material can be sealed and opened.
func (v *vault) ready(context.Context) error {
	if v.keyring() == nil {
		return errors.New("no master key is loaded")
	}
	return nil
}

func (v *vault) seal(id string, plaintext []byte) ([]byte, error) {
	v.reloadIfChanged()
	ring := v.keyring()
	if ring == nil {
		return nil, errors.New("no master key configured: key material cannot be stored")
	}
	return ring.Seal(plaintext, secretAAD(id))
}

func (v *vault) open(id string, blob []byte) ([]byte, error) {
	ring := v.keyring()
	if ring == nil {
		return nil, errors.New("no master key configured: key material cannot be read")
	}
	pt, err := ring.Open(blob, secretAAD(id))
	if errors.Is(err, seal.ErrUnknownVersion) && v.reload() {
		pt, err = v.keyring().Open(blob, secretAAD(id))
	}
	return pt, err
}

// reload reads the key file again, reporting whether it did.
func (v *vault) reload() bool { return v.readFile(false) }

// reloadIfChanged reads the key file again if it changed since it was read.
func (v *vault) reloadIfChanged() { v.readFile(true) }

// readFile reads the key file, at most once a second; onlyIfChanged skips a file whose modification time is the one
// read before.
func (v *vault) readFile(onlyIfChanged bool) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.path == "" || v.now().Sub(v.lastReload) < time.Second {
		return false
	}
	v.lastReload = v.now()
	info, err := os.Stat(v.path)
	if err != nil || (onlyIfChanged && info.ModTime().Equal(v.modTime)) {
		return false
	}
	ring, err := seal.LoadKeyFile(v.path)
	if err != nil {
		return false
	}
	v.ring, v.modTime = ring, info.ModTime()
	return true
}

// putSecret seals plaintext into a new row of the execution's organization and returns its id.
func (x *execution) putSecret(plaintext []byte) (string, error) {
	return x.putSecretIn(x.org, plaintext)
}

// putSecretIn seals plaintext into a new row belonging to org.
func (x *execution) putSecretIn(org *Org, plaintext []byte) (string, error) {
	s, err := x.c.seal(plaintext)
	if err != nil {
		return "", err
	}
	return s.id, x.putSealed(org, s)
}

// sealedSecret is a secret sealed for the row of its id, not stored yet.
type sealedSecret struct {
	id   string
	blob []byte
}

// seal seals plaintext for a new row; it needs no transaction.
func (c *Coordinator) seal(plaintext []byte) (sealedSecret, error) {
	id := newID()
	blob, err := c.vault.seal(id, plaintext)
	return sealedSecret{id: id, blob: blob}, err
}

// putSealed stores a sealed secret as a row belonging to org.
func (x *execution) putSealed(org *Org, s sealedSecret) error {
	return x.tx.PutSecret(x.ctx, store.Secret{ID: s.id, OrgID: org.ID, Blob: s.blob, CreatedAt: x.now.UnixNano()})
}

// openSecret reads and opens a sealed row. The caller wipes the plaintext after use (keys.Zero). The sealed blob is
// kept for the next call; one that no longer opens (the master key was rotated and its old version retired) is read
// again.
func (c *Coordinator) openSecret(ctx context.Context, id string) ([]byte, error) {
	return c.openSecretFrom(ctx, c.store, id)
}

// openSecret is Coordinator.openSecret reading where the execution is: in its transaction, which holds its
// organization and must take no second connection meanwhile.
func (x *execution) openSecret(id string) ([]byte, error) {
	if x.tx != nil {
		return x.c.openSecretFrom(x.ctx, x.tx, id)
	}
	return x.c.openSecret(x.ctx, id)
}

func (c *Coordinator) openSecretFrom(ctx context.Context, db store.SecretReader, id string) ([]byte, error) {
	if blob, ok := c.blobs.get(id); ok {
		if pt, err := c.vault.open(id, blob); err == nil {
			return pt, nil
		}
		c.blobs.drop(id)
	}
	s, err := db.GetSecret(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("sealed secret %s: %w", id, err)
	}
	pt, err := c.vault.open(id, s.Blob)
	if err == nil {
		c.blobs.put(id, s.Blob, nil)
	}
	return pt, err
}

// ownKey returns one of the coordinator's own P-256 keys (the token key, the app-proof key), generated and sealed on
// first use, shared by every process on the database.
func (c *Coordinator) ownKey(ctx context.Context, name string) (*ecdsa.PrivateKey, error) {
	c.ownKeysMu.Lock()
	defer c.ownKeysMu.Unlock()
	if k, ok := c.ownKeys[name]; ok {
		return k, nil
	}
	id := "coordinator/" + name
	scalar, err := c.openSecret(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		scalar, err = c.createOwnKey(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	defer keys.Zero(scalar)
	k, err := p256Key(scalar)
	if err != nil {
		return nil, err
	}
	c.ownKeys[name] = k
	return k, nil
}

func (c *Coordinator) createOwnKey(ctx context.Context, id string) ([]byte, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	scalar, err := k.Bytes()
	if err != nil {
		return nil, err
	}
	blob, err := c.vault.seal(id, scalar)
	if err != nil {
		return nil, err
	}
	err = c.store.Write(ctx, func(tx *store.Tx) error {
		return tx.PutSecret(ctx, store.Secret{ID: id, Blob: blob, CreatedAt: c.now().UnixNano()})
	})
	if err != nil {
		// Another process created it first: use theirs.
		return c.openSecret(ctx, id)
	}
	return scalar, nil
}

func p256Key(scalar []byte) (*ecdsa.PrivateKey, error) {
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), scalar)
	if err != nil {
		return nil, fmt.Errorf("stored key is not a valid P-256 scalar: %w", err)
	}
	return k, nil
}

// RotateMasterKey rewraps every sealed row under the keyring's active master key, without decrypting any payload: the
// sealed secrets and the sealed columns of other tables (store.RewrapSealedColumns).
// Rows a concurrent change replaced are left for the next run. It returns how many rows it rewrapped.
func (c *Coordinator) RotateMasterKey(ctx context.Context) (int, error) {
	ids, err := c.store.SecretIDs(ctx)
	if err != nil {
		return 0, err
	}
	ring := c.vault.keyring()
	n := 0
	for _, id := range ids {
		s, err := c.store.GetSecret(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		if !ring.NeedsRewrap(s.Blob) {
			continue
		}
		blob, err := ring.Rewrap(s.Blob)
		if err != nil {
			return n, fmt.Errorf("rewrap %s: %w", id, err)
		}
		if err := c.store.ReplaceSecretBlob(ctx, id, s.Blob, blob); err != nil {
			return n, err
		}
		n++
	}
	// The yield service's webhook secrets, sealed with the same keyring, and the copies their deliveries carry.
	m, err := c.store.RewrapSealedColumns(ctx, func(blob []byte) ([]byte, bool, error) {
		if !ring.NeedsRewrap(blob) {
			return nil, false, nil
		}
		out, err := ring.Rewrap(blob)
		return out, err == nil, err
	})
	return n + m, err
}

// Start prepares what activities need before the first request: the coordinator's own keys are created here, outside
// any activity's transaction (on SQLite an activity's transaction holds the only write connection).
func (c *Coordinator) Start(ctx context.Context) error {
	for _, name := range []string{signerKeyName, tokenKeyName} {
		if _, err := c.ownKey(ctx, name); err != nil {
			return err
		}
	}
	return nil
}
