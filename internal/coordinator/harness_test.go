package coordinator_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// stack is a coordinator on a real HTTP server over a real database, with a root organization.
type stack struct {
	t     testing.TB
	store *store.Store
	coord *coordinator.Coordinator
	srv   *httptest.Server
	boot  *coordinator.Bootstrap
	root  *client.Client
	clock *clock // the coordinator's clock, nil for the real one
	// stamps gives the stack's clients their timestampMs when the clock is real: never the same millisecond twice, so
	// that two users' identical requests are two activities, as they would be from two machines.
	stamps *stampClock
	ring   *seal.Keyring // the master keys; another coordinator over the same database needs them too
}

func newStack(t testing.TB, b testdb.Backend) *stack { return newStackAt(t, b, nil) }

// newStackAt is newStack with the coordinator's clock (nil: the real one); its clients stamp their requests with it.
func newStackAt(t testing.TB, b testdb.Backend, clk *clock) *stack {
	return newStackWith(t, b, clk, nil)
}

// newStackWith is newStackAt with a change to the coordinator's configuration (nil: none).
func newStackWith(t testing.TB, b testdb.Backend, clk *clock, configure func(*coordinator.Config)) *stack {
	t.Helper()
	s, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st := &stack{t: t, store: s, ring: testKeyring(t), clock: clk, stamps: &stampClock{}}
	var now func() time.Time
	if clk != nil {
		now = clk.Now
	}
	cfg := coordinator.Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), AllowedOrigins: []string{"http://app.example"},
		Keyring: st.ring, Now: now,
	}
	if configure != nil {
		configure(&cfg)
	}
	st.coord = coordinator.New(s, cfg)
	if err := st.coord.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	st.srv = httptest.NewServer(st.coord.Handler())
	t.Cleanup(st.srv.Close)
	st.boot, err = st.coord.CreateRootOrganization(context.Background(), "Acme", "root")
	if err != nil {
		t.Fatal(err)
	}
	st.root = st.client(st.boot.APIKey)
	return st
}

func (s *stack) client(st stamp.Stamper) *client.Client {
	c := client.New(s.srv.URL, st)
	c.PollInterval = 10 * time.Millisecond
	c.Now = s.stamps.Now
	if s.clock != nil {
		c.Now = s.clock.Stamp
	}
	return c
}

// testKeyring is a master keyring with one random key.
func testKeyring(t testing.TB) *seal.Keyring {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// newKey makes an API key and its registration parameters.
func newKey(t testing.TB, curve stamp.Curve) (*stamp.APIKey, api.APIKeyParamsV2) {
	t.Helper()
	k, err := stamp.GenerateAPIKey(curve)
	if err != nil {
		t.Fatal(err)
	}
	return k, api.APIKeyParamsV2{APIKeyName: "key", PublicKey: k.PublicKeyHex(), CurveType: string(curve)}
}

// createUser creates a user with one P-256 API key and returns the user id and a client stamping as that user.
func (s *stack) createUser(orgID string, root *client.Client, name string) (string, *client.Client) {
	s.t.Helper()
	key, params := newKey(s.t, stamp.CurveP256)
	res, _, err := root.CreateUsers(context.Background(), orgID, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{
		UserName: name, APIKeys: []api.APIKeyParamsV2{params}, Authenticators: []api.AuthenticatorParamsV2{},
		OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{},
	}}})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.UserIDs[0], s.client(key)
}

// envelope builds a submit body.
func envelope(typ, orgID string, params any, ts time.Time) []byte {
	p, _ := json.Marshal(params)
	b, _ := json.Marshal(api.SubmitRequest{Type: typ, TimestampMs: strconv.FormatInt(ts.UnixMilli(), 10), OrganizationID: orgID, Parameters: p})
	return b
}

type response struct {
	status int
	body   map[string]any
	raw    []byte
}

// post sends body with the given headers and decodes the answer.
func (s *stack) post(path string, body []byte, header http.Header) response {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, bytes.NewReader(body))
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

// stamped sends body stamped by key.
func (s *stack) stamped(path string, body []byte, key stamp.Stamper) response {
	s.t.Helper()
	name, value, err := key.Stamp(body)
	if err != nil {
		s.t.Fatal(err)
	}
	h := http.Header{}
	h.Set(name, value)
	return s.post(path, body, h)
}

func (s *stack) activityCount(orgID string) int {
	s.t.Helper()
	res, err := s.root.ListActivities(context.Background(), api.ListActivitiesRequest{OrganizationID: orgID, PaginationOptions: &api.Pagination{Limit: "100"}})
	if err != nil {
		s.t.Fatal(err)
	}
	return len(res.Activities)
}

func (r response) message() string {
	m, _ := r.body["message"].(string)
	return m
}

// stampClock is the real time, moved on by a millisecond when a reading would repeat the last one.
type stampClock struct {
	mu   sync.Mutex
	last time.Time
}

func (c *stampClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now().Truncate(time.Millisecond)
	if !now.After(c.last) {
		now = c.last.Add(time.Millisecond)
	}
	c.last = now
	return now
}
