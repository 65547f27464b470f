package bench

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/cputime"
)

// fakeTransit answers POST /v1/transit/sign/bench as OpenBao's transit engine does, for token "t", and remembers the
// inputs it signed. It tests the load generator's side of the peer, not anyone's performance.
type fakeTransit struct {
	mu     sync.Mutex
	inputs map[string]bool
}

func (f *fakeTransit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Vault-Token") != "t" {
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"errors":["permission denied"]}`))
		return
	}
	var req transitSignRequest
	if r.Method != http.MethodPost || r.URL.Path != "/v1/transit/sign/bench" || json.NewDecoder(r.Body).Decode(&req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"errors":["bad request"]}`))
		return
	}
	input, err := base64.StdEncoding.DecodeString(req.Input)
	if err != nil || len(input) != 32 || !req.Prehashed || req.HashAlgorithm != "sha2-256" {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"errors":["bad input"]}`))
		return
	}
	f.mu.Lock()
	f.inputs[req.Input] = true
	f.mu.Unlock()
	w.Write([]byte(`{"data":{"signature":"vault:v1:MEUCIQ","key_version":1}}`))
}

func TestTransitSignLoad(t *testing.T) {
	fake := &fakeTransit{inputs: map[string]bool{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	plan := loadPlan{URL: srv.URL, Op: "transit_sign", Token: "t", Key: "bench", Clients: 3, Duration: 100 * time.Millisecond}
	op, err := newLoadOp(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	ahead, err := prepareAhead(plan, op)
	if err != nil {
		t.Fatal(err)
	}
	if len(ahead.reqs) != preparedPerSecond/10 {
		t.Fatalf("%d requests prepared for a window of %v, want %d", len(ahead.reqs), plan.Duration, preparedPerSecond/10)
	}
	res := runPlan(context.Background(), plan, ahead)
	if res.Count == 0 || res.Errors != 0 {
		t.Fatalf("count %d, errors %d: %s", res.Count, res.Errors, res.FirstError)
	}
	if res.PreparedLate != max(res.Count-len(ahead.reqs), 0) {
		t.Errorf("%d requests sent from %d prepared, %d counted as prepared late", res.Count, len(ahead.reqs), res.PreparedLate)
	}
	if len(fake.inputs) != res.Count {
		t.Errorf("%d requests signed %d distinct inputs: a request repeated an earlier one", res.Count, len(fake.inputs))
	}
	if res.P50 <= 0 || res.P99 < res.P50 || res.Max < res.P99 {
		t.Errorf("latencies out of order: p50 %v p99 %v max %v", res.P50, res.P99, res.Max)
	}

	// With none prepared ahead, every request is prepared during the window, and counted.
	sent := len(fake.inputs)
	res = runPlan(context.Background(), plan, &prepared{op: op})
	if res.Count == 0 || res.Errors != 0 || res.PreparedLate != res.Count {
		t.Errorf("none prepared ahead: count %d, errors %d, prepared late %d", res.Count, res.Errors, res.PreparedLate)
	}
	if len(fake.inputs) != sent+res.Count {
		t.Errorf("%d more requests signed %d more distinct inputs", res.Count, len(fake.inputs)-sent)
	}

	plan.Token = "wrong"
	if op, err = newLoadOp(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if ahead, err = prepareAhead(plan, op); err != nil {
		t.Fatal(err)
	}
	res = runPlan(context.Background(), plan, ahead)
	if res.Errors == 0 || res.Errors != res.Count || !strings.Contains(res.FirstError, "403") {
		t.Errorf("refused requests: count %d, errors %d, first %q", res.Count, res.Errors, res.FirstError)
	}
}

func TestToPrepare(t *testing.T) {
	for _, c := range []struct {
		plan loadPlan
		want int
	}{
		{loadPlan{Clients: 8, Duration: 4 * time.Second}, 4 * preparedPerSecond},
		{loadPlan{Clients: 8, Duration: 4 * time.Second, Rate: 1000}, 4008},
		{loadPlan{Clients: 8, Duration: time.Hour}, maxPrepared},
		{loadPlan{Clients: 8, Duration: time.Hour, Rate: 1000}, maxPrepared},
	} {
		if got := toPrepare(c.plan); got != c.want {
			t.Errorf("%+v: %d prepared, want %d", c.plan, got, c.want)
		}
	}
}

func TestListeningPIDAndCPU(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pid, err := peerPID(Peer{URL: "http://" + ln.Addr().String()})
	if err != nil || pid != os.Getpid() {
		t.Fatalf("listening pid %d, %v; want this process, %d", pid, err, os.Getpid())
	}
	if given, _ := peerPID(Peer{URL: "http://" + ln.Addr().String(), PID: 42}); given != 42 {
		t.Errorf("a given pid is not used: %d", given)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if _, err := listeningPID(port); err == nil {
		t.Errorf("a closed port has a listener")
	}

	// Work is counted: spinning until the process's CPU time has grown by 50 ms of this thread's own, however long that
	// takes on a busy machine, shows as at least that much of the process's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for start := cputime.Thread(); cputime.Thread()-start < 50*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatal("a minute of spinning counted less than 50 ms of this thread's CPU")
		}
	}
	after, _ := processCPU(os.Getpid())
	if after-before < 30*time.Millisecond { // /proc counts user and system time in ticks of 10 ms each
		t.Errorf("50 ms of this thread's CPU counted as %v of the process's", after-before)
	}
}

func TestPeerTable(t *testing.T) {
	m := func(count int, p50, p99, cpu time.Duration) measurement {
		return measurement{loadResult: loadResult{Count: count, Elapsed: time.Second, P50: p50, P99: p99}, serverCPU: cpu * time.Duration(count),
			machine: machineWindow{busy: float64(count) / 10000, cpu: time.Duration(count) * time.Millisecond}}
	}
	rows := []peerRow{
		{clients: 1, floors: []time.Duration{100 * time.Microsecond},
			sigil: []measurement{m(1000, 400*time.Microsecond, time.Millisecond, 150*time.Microsecond)},
			peer:  []measurement{m(2000, 300*time.Microsecond, time.Millisecond, 300*time.Microsecond)}},
		{clients: 8, floors: []time.Duration{100 * time.Microsecond, 120 * time.Microsecond, 80 * time.Microsecond},
			sigil: []measurement{m(6000, 0, 5*time.Millisecond, 190*time.Microsecond), m(5000, 0, 6*time.Millisecond, 200*time.Microsecond), m(7000, 0, 4*time.Millisecond, 210*time.Microsecond)},
			peer:  []measurement{m(5000, 0, 7*time.Millisecond, 0), m(5000, 0, 7*time.Millisecond, 0), m(5000, 0, 7*time.Millisecond, 0)}},
	}
	// Three rounds' floors: the medians are 0.30 and 0.28 ms, whichever rounds they come from.
	latency := []latencyFloor{{query: 300 * time.Microsecond, flush: 250 * time.Microsecond},
		{query: 280 * time.Microsecond, flush: 400 * time.Microsecond}, {query: 310 * time.Microsecond, flush: 280 * time.Microsecond}}
	var out bytes.Buffer
	writePeerTable(&out, rows, latency)
	for _, want := range []string{
		"| 1 | 1000 | 2000 | 0.50× | 0.40 ms / 1.00 ms | 0.30 ms / 1.00 ms | 150 / 300 µs | 1.5× (floor 100 µs) | 10 / 20 % | 1000 / 1000 µs |",
		"| 8 | 6000 | 5000 | 1.20× | 0.00 ms / 5.00 ms | 0.00 ms / 7.00 ms | 200 / 0 µs | 2.0× (floor 100 µs) | 60 / 50 % | 1000 / 1000 µs |",
		"at least 1.0× the peer's at every client count — not met (with 1 client the floor on this machine, 0.58 ms, is above the peer's whole p50, 0.30 ms)",
		"p50 with 1 client at most 0.50 ms: 0.40 ms — met (the floor on this machine: a stamped query's p50 0.30 ms and the disk's flush p50 0.28 ms, 0.58 ms together, above the goal)",
		"p99 with 8 clients at most the peer's: 5.00 ms / 7.00 ms — met",
		"at most 2× its raw cryptography at every client count — met",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	writePeerTable(&out, rows, latency[:1])
	if want := "(the floor on this machine: a stamped query's p50 0.30 ms and the disk's flush p50 0.25 ms, 0.55 ms together, above the goal)"; !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	writePeerTable(&out, rows, []latencyFloor{{query: 200 * time.Microsecond, flush: 100 * time.Microsecond}})
	if !strings.Contains(out.String(), "0.30 ms together)") || strings.Contains(out.String(), "the peer's whole p50") {
		t.Errorf("a floor under the goal and the peer's p50 is said to be above them:\n%s", out.String())
	}
	out.Reset()
	writePeerTable(&out, rows, nil)
	if strings.Contains(out.String(), "floor on this machine") {
		t.Errorf("a run without one client names a latency floor:\n%s", out.String())
	}

	rows[1].sigil[0].Errors = 1
	out.Reset()
	writePeerTable(&out, rows, latency)
	if !strings.Contains(out.String(), "1 requests failed") || strings.Contains(out.String(), "— met") {
		t.Errorf("a run with failures meets a goal:\n%s", out.String())
	}
}

// Every core spinning for a tenth of a second shows as a machine mostly busy, for about that time on each core.
func TestMachineUse(t *testing.T) {
	busy, all, cores, err := machineTicks()
	if err != nil || busy <= 0 || all < busy || cores < 1 {
		t.Fatalf("machine ticks: busy %d of %d on %d cores, %v", busy, all, cores, err)
	}
	window := machineUse()
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for deadline := time.Now().Add(100 * time.Millisecond); time.Now().Before(deadline); {
			}
		})
	}
	wg.Wait()
	got := window()
	if got.busy < 0.5 || got.busy > 1 {
		t.Errorf("every core spinning showed as %.0f %% busy", 100*got.busy)
	}
	if spun := time.Duration(runtime.NumCPU()) * 100 * time.Millisecond; got.cpu < spun/2 {
		t.Errorf("%v of spinning counted as %v of the machine's CPU", spun, got.cpu)
	}
}

// The flush probe measures real syncs in the directory it is given and leaves nothing behind there.
func TestFlushTime(t *testing.T) {
	dir := t.TempDir()
	p50, p90, err := flushTime(dir, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p50 <= 0 || p90 < p50 {
		t.Errorf("flush p50 %v, p90 %v", p50, p90)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %d files in its directory", len(left))
	}
	if _, _, err := flushTime(filepath.Join(dir, "missing"), 20); err == nil {
		t.Error("a probe in a missing directory succeeded")
	}
}
