package edge_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/edge"
)

// A body larger than net/http's buffer still goes out whole, with its length, not chunked.
func TestLargeBodyIsSentWithItsLength(t *testing.T) {
	t.Parallel()
	big := map[string]string{"data": strings.Repeat("x", 10_000)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := edge.WriteJSON(w, http.StatusCreated, big); err != nil {
			t.Error(err)
		}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if len(resp.TransferEncoding) != 0 || resp.ContentLength <= 10_000 {
		t.Fatalf("transfer encoding %v, content length %d: want the whole length declared", resp.TransferEncoding, resp.ContentLength)
	}
	var got map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got["data"] != big["data"] {
		t.Fatalf("body did not round-trip: %v", err)
	}
}

// A value that does not marshal is the caller's to answer: nothing has been written.
func TestUnmarshallableValueWritesNothing(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	if err := edge.WriteJSON(rec, http.StatusOK, math.Inf(1)); err == nil {
		t.Fatal("no error for a value JSON cannot hold")
	}
	if rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != "" {
		t.Fatalf("wrote %q with headers %v", rec.Body.String(), rec.Header())
	}
}

// A Content-Type the caller chose is kept.
func TestCallersContentTypeIsKept(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err := edge.WriteJSON(rec, http.StatusOK, []int{1}); err != nil {
		t.Fatal(err)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json; charset=utf-8" || rec.Body.String() != "[1]\n" {
		t.Fatalf("Content-Type %q, body %q", got, rec.Body.String())
	}
}
