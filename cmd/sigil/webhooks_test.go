package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"sigil/api"
	"sigil/client"
	"sigil/coordinator"
	"sigil/stack"
)

// syncBuffer is a bytes.Buffer a command writes to while the test reads it; wrote is signalled after each write.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitFor waits until the buffer holds want; it fails the test after a while.
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.wrote:
		case <-deadline:
			t.Fatalf("output lacks %q:\n%s", want, s.String())
		}
	}
}

// sigil webhooks listen registers itself, prints verified deliveries, and deletes its endpoint when stopped.
func TestWebhooksListen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, boot, url := coordinatorStack(t, stack.CoordinatorConfig{
		Webhooks: coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}})
	listenCtx, stop := context.WithCancel(ctx)
	out, errs := newSyncBuffer(), newSyncBuffer()
	code := make(chan int, 1)
	go func() { code <- run(listenCtx, []string{"webhooks", "listen", "--dir", dir}, out, errs, nil) }()
	out.waitFor(t, "registered endpoint")

	c := client.New(url, boot.APIKey)
	_, act, err := c.UpdateOrganizationName(ctx, boot.OrganizationID, api.UpdateOrganizationNameIntent{OrganizationName: "Renamed"})
	if err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, act.ID+" ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME ACTIVITY_STATUS_COMPLETED")
	if !strings.Contains(out.String(), "ACTIVITY_UPDATES "+act.ID+":ACTIVITY_STATUS_COMPLETED (verified, key sigil-webhook-") {
		t.Errorf("output:\n%s", out.String())
	}
	// A delivery that is not signed is refused and said so.
	line := out.String()[strings.Index(out.String(), "receiving on ")+len("receiving on "):]
	resp, err := http.Post(line[:strings.Index(line, ";")], "application/json", strings.NewReader(`{"id":"forged"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unsigned delivery: %s", resp.Status)
	}
	out.waitFor(t, "refused a delivery: missing_header")
	stop()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d\n%s%s", c, out.String(), errs.String())
	}
	if list, err := c.ListWebhookEndpoints(ctx, boot.OrganizationID); err != nil || len(list.WebhookEndpoints) != 0 {
		t.Fatalf("after listen stopped: %+v %v", list, err)
	}
}
