package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/stamp"
)

// Goals of the side-by-side run (issue 23).
const (
	goalPeerRatio    = 1.0                    // Sigil's signing rate over the peer's, at every client count
	goalSingleP50    = 500 * time.Microsecond // Sigil's p50 with one client
	goalSideCostRate = 2                      // Sigil's server CPU per signing activity, in multiples of its raw cryptography
)

// Peer is an OpenBao or Vault server whose transit engine signs beside Sigil in a side-by-side run.
type Peer struct {
	URL   string // its address, http://127.0.0.1:8200
	Token string // a token allowed to sign with Key
	Key   string // the transit key (default "bench"), ecdsa-p256 to compare like with like
	PID   int    // its process, whose CPU is counted from /proc; 0 finds the process listening on URL's port
}

// sideBySide is one system of the run: how to load it, and how to read its server's CPU.
type sideBySide struct {
	name string
	plan loadPlan
	cpu  func() (time.Duration, error)
}

// runPeer runs interleaved rounds of Sigil's SIGN_RAW_PAYLOAD_V2 by the root user and the peer's transit/sign, with the
// same load generator, at each client count, and reports the table of issue 23.
func (b bench) runPeer(ctx context.Context, cfg Config, base loadPlan, rounds int) error {
	peer := *cfg.Peer
	if peer.Key == "" {
		peer.Key = "bench"
	}
	if runtime.GOOS != "linux" {
		return errors.New("bench: the side by side with a peer reads the peer's CPU time from Linux's /proc: run it on Linux")
	}
	pid, err := peerPID(peer)
	if err != nil {
		return err
	}
	sigil, err := sigilRawSigning(ctx, base)
	if err != nil {
		return err
	}
	other := sideBySide{name: "peer", cpu: func() (time.Duration, error) { return processCPU(pid) },
		plan: loadPlan{URL: peer.URL, Op: "transit_sign", Token: peer.Token, Key: peer.Key, Duration: base.Duration}}
	fmt.Fprintf(b.stdout, "side by side: Sigil SIGN_RAW_PAYLOAD_V2 by the root user, peer %s transit/sign/%s (pid %d); %d rounds of %v each\n\n",
		peer.URL, peer.Key, pid, rounds, base.Duration)

	counts := cfg.ClientCounts
	if len(counts) == 0 {
		counts = []int{1, 8, 32}
	}
	// A first short window each, unreported, warms connections, caches and the peer's token lookup.
	for _, s := range []sideBySide{sigil, other} {
		warm := s.plan
		warm.Clients, warm.Duration = counts[len(counts)-1], min(base.Duration, time.Second)
		if _, err := b.measureServer(ctx, warm, s.cpu); err != nil {
			return err
		}
	}
	results := make([]peerRow, len(counts))
	var latency []latencyFloor
	for r := range rounds {
		floor := measureFloor(base.Duration / 5)
		if slices.Contains(counts, 1) {
			lf, err := b.latencyFloor(ctx, base)
			if err != nil {
				return err
			}
			latency = append(latency, lf)
		}
		stopProfile := func() {}
		if r == 0 { // the peer's windows in between add no samples: Sigil is idle then
			if stopProfile, err = startCPUProfile(cfg.CPUProfile); err != nil {
				return err
			}
		}
		for i, clients := range counts {
			results[i].clients = clients
			results[i].floors = append(results[i].floors, floor.perActivity)
			// Who goes first alternates, so that neither always meets the machine warmer or busier.
			order := []*sideBySide{&sigil, &other}
			if (r+i)%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, s := range order {
				plan := s.plan
				plan.Clients = clients
				m, err := b.measureServer(ctx, plan, s.cpu)
				if err != nil {
					stopProfile()
					return err
				}
				b.report(fmt.Sprintf("r%d %s %d", r+1, s.name, clients), m, 0)
				if s == &sigil {
					results[i].sigil = append(results[i].sigil, m)
				} else {
					results[i].peer = append(results[i].peer, m)
				}
			}
		}
		stopProfile()
	}
	fmt.Fprintln(b.stdout)
	writePeerTable(b.stdout, results, latency)
	return nil
}

// latencyFloor is what no answer to a single client that is durable before it is sent can beat on this machine,
// however little the server does besides: a stamped query's round trip (HTTP over loopback on both sides, the load
// generator, the stamp's verification and a read) and the disk's flush. Both are p50s.
type latencyFloor struct{ query, flush time.Duration }

func (f latencyFloor) total() time.Duration { return f.query + f.flush }

// latencyFloor measures the floor under a single client's p50: whoami from one client, then the disk's flush.
func (b bench) latencyFloor(ctx context.Context, base loadPlan) (latencyFloor, error) {
	plan := base
	plan.Op, plan.Clients, plan.Duration = "whoami", 1, base.Duration/5
	m, err := b.measure(ctx, plan)
	if err != nil {
		return latencyFloor{}, err
	}
	if m.Errors > 0 {
		return latencyFloor{}, fmt.Errorf("bench: %d whoami requests failed", m.Errors)
	}
	flush, _, err := flushTime(b.dir, 200)
	return latencyFloor{query: m.P50, flush: flush}, err
}

// sigilRawSigning prepares Sigil's side: a wallet of the root user, who signs raw payloads with it.
func sigilRawSigning(ctx context.Context, base loadPlan) (sideBySide, error) {
	key, err := stamp.ParseAPIKey(base.Curve, base.PrivateKey)
	if err != nil {
		return sideBySide{}, err
	}
	w, _, err := client.New(base.URL, key).CreateWallet(ctx, base.Org, api.CreateWalletIntent{WalletName: "side-by-side",
		Accounts: []api.WalletAccountParams{{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32",
			Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		return sideBySide{}, err
	}
	plan := base
	plan.Op, plan.SignWith = "sign_raw", w.Addresses[0]
	return sideBySide{name: "sigil", plan: plan, cpu: func() (time.Duration, error) { return cputime.Process(), nil }}, nil
}

// peerPID is the peer's process: given, or the one listening on its address's port.
func peerPID(p Peer) (int, error) {
	if p.PID > 0 {
		return p.PID, nil
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return 0, fmt.Errorf("bench: peer URL: %w", err)
	}
	_, portText, err := net.SplitHostPort(u.Host)
	if err != nil {
		return 0, fmt.Errorf("bench: peer URL %q has no port: give the peer's pid", p.URL)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return 0, fmt.Errorf("bench: peer URL port: %w", err)
	}
	return listeningPID(port)
}

// peerRow is what the rounds measured at one client count.
type peerRow struct {
	clients     int
	sigil, peer []measurement
	floors      []time.Duration // the crypto floor, measured before each round
}

// summary is the median over rounds of one system's measurements at one client count.
type summary struct {
	rate     float64
	p50, p99 time.Duration
	cpu      time.Duration // server CPU per request
	busy     float64       // the share of the machine's CPU that was busy
	machine  time.Duration // the machine's busy CPU per request
	errors   int
}

func summarize(ms []measurement) summary {
	var rates, p50s, p99s, cpus, busy, machine []float64
	s := summary{}
	for _, m := range ms {
		rates = append(rates, m.rate())
		p50s = append(p50s, float64(m.P50))
		p99s = append(p99s, float64(m.P99))
		cpus = append(cpus, float64(m.cpuPerRequest()))
		busy = append(busy, m.machine.busy)
		machine = append(machine, float64(m.machinePerRequest()))
		s.errors += m.Errors
	}
	s.rate, s.p50, s.p99, s.cpu = median(rates), time.Duration(median(p50s)), time.Duration(median(p99s)), time.Duration(median(cpus))
	s.busy, s.machine = median(busy), time.Duration(median(machine))
	return s
}

// writePeerTable writes the medians of the rounds as the table of issue 23, the ratios, and the goals.
func writePeerTable(w io.Writer, rows []peerRow, latency []latencyFloor) {
	fmt.Fprintln(w, "median of the rounds:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| clients | Sigil req/s | peer req/s | ratio | Sigil p50 / p99 | peer p50 / p99 | server CPU per request, Sigil / peer | Sigil CPU / crypto floor | machine busy, Sigil / peer | machine CPU per request, Sigil / peer |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	var failed int
	goalRate, goalCost := true, true
	var single, at8 [2]summary
	for _, row := range rows {
		s, p := summarize(row.sigil), summarize(row.peer)
		failed += s.errors + p.errors
		floor := time.Duration(median(durations(row.floors)))
		ratio, cost := s.rate/p.rate, float64(s.cpu)/float64(floor)
		goalRate = goalRate && ratio >= goalPeerRatio
		goalCost = goalCost && cost <= goalSideCostRate
		switch row.clients {
		case 1:
			single = [2]summary{s, p}
		case 8:
			at8 = [2]summary{s, p}
		}
		fmt.Fprintf(w, "| %d | %.0f | %.0f | %.2f× | %s / %s | %s / %s | %.0f / %.0f µs | %.1f× (floor %.0f µs) | %.0f / %.0f %% | %.0f / %.0f µs |\n",
			row.clients, s.rate, p.rate, ratio, ms(s.p50), ms(s.p99), ms(p.p50), ms(p.p99),
			micros(s.cpu), micros(p.cpu), cost, micros(floor), 100*s.busy, 100*p.busy, micros(s.machine), micros(p.machine))
	}
	fmt.Fprintln(w)
	if failed > 0 {
		fmt.Fprintf(w, "%d requests failed: no goal is met\n", failed)
	}
	met := func(ok bool) string {
		if ok && failed == 0 {
			return "met"
		}
		return "not met"
	}
	rateNote, p50Note := floorNotes(latency, single[0], single[1])
	fmt.Fprintf(w, "goal: Sigil's rate at least %.1f× the peer's at every client count — %s%s\n", goalPeerRatio, met(goalRate), rateNote)
	if single[0].rate > 0 {
		fmt.Fprintf(w, "goal: Sigil's p50 with 1 client at most %s: %s — %s%s\n", ms(goalSingleP50), ms(single[0].p50),
			met(single[0].p50 <= goalSingleP50), p50Note)
	}
	if at8[0].rate > 0 {
		fmt.Fprintf(w, "goal: Sigil's p99 with 8 clients at most the peer's: %s / %s — %s\n", ms(at8[0].p99), ms(at8[1].p99), met(at8[0].p99 <= at8[1].p99))
	}
	fmt.Fprintf(w, "goal: Sigil's server CPU per signing activity at most %d× its raw cryptography at every client count — %s\n", goalSideCostRate, met(goalCost))
}

// floorNotes are what the lines of the rate and p50 goals say of the latency floor, the median of the rounds' (each
// part on its own): nothing unless it was measured and Sigil ran with one client. sigil and peer are what they did
// with one client.
func floorNotes(latency []latencyFloor, sigil, peer summary) (rate, p50 string) {
	if len(latency) == 0 || sigil.rate == 0 {
		return "", ""
	}
	var queries, flushes []time.Duration
	for _, f := range latency {
		queries, flushes = append(queries, f.query), append(flushes, f.flush)
	}
	floor := latencyFloor{query: time.Duration(median(durations(queries))), flush: time.Duration(median(durations(flushes)))}
	if floor.total() > peer.p50 {
		// With one client the rate is the inverse of the latency: a floor above the peer's latency is a rate below it.
		rate = fmt.Sprintf(" (with 1 client the floor on this machine, %s, is above the peer's whole p50, %s)", ms(floor.total()), ms(peer.p50))
	}
	p50 = fmt.Sprintf(" (the floor on this machine: a stamped query's p50 %s and the disk's flush p50 %s, %s together",
		ms(floor.query), ms(floor.flush), ms(floor.total()))
	if floor.total() > goalSingleP50 {
		p50 += ", above the goal"
	}
	return rate, p50 + ")"
}

func durations(ds []time.Duration) []float64 {
	fs := make([]float64, len(ds))
	for i, d := range ds {
		fs[i] = float64(d)
	}
	return fs
}

// ms writes a latency in milliseconds, as the table of the issue does.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
}
