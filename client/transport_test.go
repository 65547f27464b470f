package client_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// startCoordinator starts a coordinator on a fresh SQLite database, not listening, with a root organization.
func startCoordinator(t *testing.T) (*coordinator.Coordinator, *coordinator.Bootstrap) {
	t.Helper()
	ctx := context.Background()
	b := testdb.SQLite(t)
	st, err := store.Open(ctx, b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	coord := coordinator.New(st, coordinator.Config{Keyring: ring, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := coord.Start(ctx); err != nil {
		t.Fatal(err)
	}
	boot, err := coord.CreateRootOrganization(ctx, "client test", "root")
	if err != nil {
		t.Fatal(err)
	}
	return coord, boot
}

// A client over HandlerTransport submits and queries a coordinator that has no listener, through its HTTP handler.
func TestInProcessClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	coord, boot := startCoordinator(t)
	c := client.NewInProcess(coord.Handler(), boot.APIKey)
	who, err := c.Whoami(ctx, boot.OrganizationID)
	if err != nil || who.Username != "root" {
		t.Fatalf("whoami in process: %+v, %v", who, err)
	}
	res, a, err := c.UpdateOrganizationName(ctx, boot.OrganizationID, api.UpdateOrganizationNameIntent{OrganizationName: "renamed"})
	if err != nil || a.Status != api.StatusCompleted || res == nil {
		t.Fatalf("an activity in process: %+v, %v", a, err)
	}
	// A refusal keeps its code and message, as over the network.
	stranger, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.NewInProcess(coord.Handler(), stranger).Whoami(ctx, boot.OrganizationID)
	if !client.IsCode(err, apierr.Unauthenticated) {
		t.Fatalf("an unknown key in process: %v, want UNAUTHENTICATED", err)
	}
}

// NewSubmitRequest builds the bytes Submit sends, stamped over exactly those bytes; the coordinator executes it as it
// would the same request from the network.
func TestNewSubmitRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	coord, boot := startCoordinator(t)
	var sent []byte
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(sent))
		coord.Handler().ServeHTTP(w, r)
	})
	at := time.Now()
	c := client.NewInProcess(record, boot.APIKey)
	c.Now = func() time.Time { return at }
	params := api.UpdateOrganizationNameIntent{OrganizationName: "prepared"}
	if _, err := c.Submit(ctx, boot.OrganizationID, api.UpdateOrganizationName.ActivitySpec, params); err != nil {
		t.Fatal(err)
	}

	c.Now = func() time.Time { return at.Add(time.Millisecond) }
	req, err := c.NewSubmitRequest(ctx, boot.OrganizationID, api.UpdateOrganizationName.ActivitySpec, params)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	ms := func(t time.Time) []byte { return []byte(`"` + strconv.FormatInt(t.UnixMilli(), 10) + `"`) }
	want := bytes.Replace(sent, ms(at), ms(at.Add(time.Millisecond)), 1)
	if !bytes.Equal(body, want) || req.URL.Path != "/public/v1/submit/update_organization_name" || req.Method != http.MethodPost {
		t.Fatalf("prepared %s %s\n%s\nwant the body Submit sends, a millisecond later:\n%s", req.Method, req.URL, body, want)
	}
	s, err := stamp.ParseAPIKeyStamp(req.Header.Get("X-Stamp"))
	if err != nil || s.Verify(body) != nil {
		t.Fatalf("the prepared request's stamp does not verify over its body: %v", err)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ar api.ActivityResponse
	if err := client.ReadResponse(res, &ar); err != nil || ar.Activity.Status != api.StatusCompleted {
		t.Fatalf("the prepared request: %+v, %v", ar.Activity, err)
	}

	// A prepared query; a refused one reads as the API error.
	req, err = c.NewQueryRequest(ctx, api.Whoami.Path, api.OrganizationRequest{OrganizationID: boot.OrganizationID})
	if err != nil {
		t.Fatal(err)
	}
	var who api.WhoamiResponse
	if res, err = c.HTTP.Do(req); err != nil || client.ReadResponse(res, &who) != nil || who.OrganizationID != boot.OrganizationID {
		t.Fatalf("a prepared whoami: %+v, %v", who, err)
	}
	req, _ = c.NewQueryRequest(ctx, "no_such_query", api.OrganizationRequest{OrganizationID: boot.OrganizationID})
	if res, err = c.HTTP.Do(req); err != nil {
		t.Fatal(err)
	}
	if err := client.ReadResponse(res, &who); !client.IsCode(err, apierr.NotFound) {
		t.Fatalf("an unknown query: %v, want NOT_FOUND", err)
	}
}

// The transport answers what the handler wrote, with the header as it was when the handler started writing, and
// turns a panic into an error.
func TestHandlerTransport(t *testing.T) {
	t.Parallel()
	h := http.NewServeMux()
	h.HandleFunc("GET /teapot", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-From", r.RemoteAddr+" "+r.Host+" "+r.RequestURI)
		w.WriteHeader(http.StatusTeapot)
		w.Header().Set("X-Late", "dropped")
		io.WriteString(w, "short and stout")
	})
	h.HandleFunc("GET /silent", func(w http.ResponseWriter, r *http.Request) {})
	h.HandleFunc("GET /panic", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	hc := &http.Client{Transport: client.HandlerTransport{Handler: h}}

	res, err := hc.Get("http://svc/teapot?x=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTeapot || res.Status != "418 I'm a teapot" || string(body) != "short and stout" ||
		res.Header.Get("X-From") != "127.0.0.1:0 svc /teapot?x=1" || res.Header.Get("X-Late") != "" || res.ContentLength != 15 {
		t.Fatalf("answer %s %v %q", res.Status, res.Header, body)
	}
	if res, err := hc.Get("http://svc/silent"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a handler that writes nothing: %v, %v", res, err)
	}
	if _, err := hc.Get("http://svc/panic"); err == nil || !strings.Contains(err.Error(), "panicked: boom") {
		t.Fatalf("a panicking handler: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://svc/silent", nil)
	req.RequestURI = ""
	if _, err := hc.Do(req); err == nil {
		t.Fatal("a canceled request was served")
	}
}
