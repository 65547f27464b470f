package yield

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sigil/sigil/internal/store"
)

// keyPrefix starts every yield API key, so a leaked one is recognisable (secret scanners, logs).
const keyPrefix = "sgy_"

// keyInfo is what a valid key grants: its project and fee set. id is safe to log; the key never is.
type keyInfo struct {
	id      string
	project string
	feeSet  int
}

// NewAPIKey creates an API key for a project, stores its hash and returns the key, which is shown once and never
// stored, and the project's fee set. The fee set belongs to the project and is fixed by its first key: feeSet 0 takes
// the project's, and a key on the other set is refused, since it would show the project the other set's vaults.
func NewAPIKey(ctx context.Context, st *store.Store, project string, feeSet int, now time.Time) (string, int, error) {
	project = strings.TrimSpace(project)
	if project == "" || len(project) > 128 {
		return "", 0, errors.New("yield: a key needs a project name of 1 to 128 characters")
	}
	if feeSet != 0 && !slices.Contains(FeeSets, feeSet) {
		return "", 0, fmt.Errorf("yield: fee set %d is not 10 or 20", feeSet)
	}
	key, row, err := newKeyRow(project, now)
	if err != nil {
		return "", 0, err
	}
	err = st.Write(ctx, func(tx *store.Tx) error {
		set, err := tx.ClaimYieldProject(ctx, project, feeSet, row.CreatedAt)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("yield: project %q does not exist yet; its first key needs a fee set (10 or 20)", project)
		}
		if err != nil {
			return err
		}
		if feeSet != 0 && set != feeSet {
			return fmt.Errorf("yield: project %q is on the %d%% fee set; a project has one fee set, so its keys cannot be on the %d%% set",
				project, set, feeSet)
		}
		row.FeeSet = set
		return tx.PutYieldAPIKey(ctx, row)
	})
	if err != nil {
		return "", 0, err
	}
	return key, row.FeeSet, nil
}

// newKeyRow makes a fresh key and the row that stores its hash.
func newKeyRow(project string, now time.Time) (string, store.YieldAPIKey, error) {
	secret := make([]byte, 32)
	idBytes := make([]byte, 8)
	if _, err := rand.Read(secret); err != nil {
		return "", store.YieldAPIKey{}, err
	}
	if _, err := rand.Read(idBytes); err != nil {
		return "", store.YieldAPIKey{}, err
	}
	key := keyPrefix + base64.RawURLEncoding.EncodeToString(secret)
	return key, store.YieldAPIKey{ID: "yk_" + hex.EncodeToString(idBytes), KeyHash: hashKey(key), Project: project,
		CreatedAt: now.UnixMilli()}, nil
}

// CreateAPIKey is NewAPIKey on the service's store and clock.
func (s *Service) CreateAPIKey(ctx context.Context, project string, feeSet int) (string, error) {
	key, _, err := NewAPIKey(ctx, s.store, project, feeSet, s.now())
	return key, err
}

// hashKey is the SHA-256 of the key. The key carries 256 random bits, so no salt or slow hash is needed; the
// lookup by hash compares nothing secret in variable time.
func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// keyCache remembers valid keys by hash: neither a key nor its project's fee set can be changed once created, so a
// hit never goes stale.
type keyCache struct {
	mu     sync.RWMutex
	byHash map[string]*keyInfo
}

func newKeyCache() *keyCache { return &keyCache{byHash: map[string]*keyInfo{}} }

// authenticate finds the key of a request. Unknown and malformed keys are the same 401 to the caller.
func (s *Service) authenticate(ctx context.Context, key string) (*keyInfo, error) {
	if key == "" {
		return nil, &apiError{StatusCode: 401, Message: "Missing API key: send it in the X-API-KEY header"}
	}
	invalid := &apiError{StatusCode: 401, Message: "Invalid API key"}
	if !strings.HasPrefix(key, keyPrefix) || len(key) > 128 {
		return nil, invalid
	}
	h := hashKey(key)
	s.keys.mu.RLock()
	k := s.keys.byHash[h]
	s.keys.mu.RUnlock()
	if k != nil {
		return k, nil
	}
	row, err := s.store.YieldAPIKeyByHash(ctx, h)
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	k = &keyInfo{id: row.ID, project: row.Project, feeSet: row.FeeSet}
	s.keys.mu.Lock()
	s.keys.byHash[h] = k
	s.keys.mu.Unlock()
	return k, nil
}
