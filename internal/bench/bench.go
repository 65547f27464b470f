// Package bench measures a coordinator on this machine: stamped activities and queries over loopback, the server's
// CPU per request against the raw cryptography of a signing activity, and the latency at half the peak rate
// (docs/BENCHMARKS.md). sigil bench runs it.
package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// Goals of the signing benchmark (issue 4).
const (
	goalCostRatio = 4                     // server CPU of a signing activity, in multiples of its raw cryptography
	goalHalfP99   = 10 * time.Millisecond // p99 latency at half the peak rate
)

// benchToken is the contract the bench's signer may approve on, by its one allow policy.
const benchToken = "0x5fbdb2315678afecb367f032d93f642f64180aa3"

// Config is one run of the benchmark. The zero value of each field but LoadCommand means its default.
type Config struct {
	Clients  int           // concurrent clients (default 8)
	Duration time.Duration // of each measurement (default 5 s)
	// DatabaseURL is a PostgreSQL server to measure instead of SQLite: the bench works in a new database there and
	// drops it.
	DatabaseURL string
	Rounds      int    // signing rounds (crypto floor, peak, half the peak) whose median is judged (default 3)
	CPUProfile  string // a file for a CPU profile of the server during the first peak signing measurement
	// LoadCommand runs the load process: a program, then its arguments, that calls Load with the plan on its stdin and
	// its stdout (sigil bench --load). Required.
	LoadCommand []string
	// Stdout receives the results; Stderr the load processes' errors.
	Stdout, Stderr io.Writer
	// Peer, when set, makes the run side by side (issue 23): Sigil's SIGN_RAW_PAYLOAD_V2 by the root user and the
	// peer's transit signing in interleaved rounds at each of ClientCounts (default 1, 8 and 32); Clients is unused.
	Peer         *Peer
	ClientCounts []int
}

// Run starts a coordinator on loopback over a fresh database and measures stamped CREATE_USERS_V3, whoami and
// SIGN_TRANSACTION_V2 against it. The load comes from a child process (cfg.LoadCommand), so that the CPU this process
// uses during a measurement is the server's alone: coordinator, HTTP and an embedded SQLite.
func Run(ctx context.Context, cfg Config) error {
	if len(cfg.LoadCommand) == 0 {
		return errors.New("bench: Config.LoadCommand is required")
	}
	clients, duration, rounds := cmp.Or(cfg.Clients, 8), cmp.Or(cfg.Duration, 5*time.Second), cmp.Or(cfg.Rounds, 3)
	if clients < 1 || rounds < 1 || duration < 0 {
		return fmt.Errorf("bench: clients and rounds must be at least 1, and the duration positive")
	}
	// The crypto floor is measured first, on one goroutine, while nothing else runs.
	floor := measureFloor(duration / 2)

	dir, err := os.MkdirTemp("", "sigil-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, _, stop, err := startServer(ctx, dir, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer stop()
	b := bench{load: cfg.LoadCommand, stdout: cfg.Stdout, stderr: cfg.Stderr, dir: dir}
	if b.stdout == nil {
		b.stdout = io.Discard
	}
	if b.stderr == nil {
		b.stderr = io.Discard
	}
	coord, url, w := s.Coordinator(), s.Services()[0].URL, b.stdout
	fmt.Fprintf(w, "machine: P-256 stamp verification %.0f/s, secp256k1 signature %.0f/s, each per second of one core's CPU time\n", floor.verifyRate, floor.signRate)
	flush50, flush90, err := flushTime(dir, 200)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "disk: a 4 KiB write made durable (fdatasync) in the bench's directory, p50 %.0f µs, p90 %.0f µs\n", micros(flush50), micros(flush90))
	if cfg.Peer == nil {
		fmt.Fprintf(w, "database: %s, %d clients, %s per measurement; load from a separate process\n", s.Backend(), clients, duration)
	} else {
		fmt.Fprintf(w, "database: %s, %s per measurement; load from a separate process\n", s.Backend(), duration)
	}
	if cfg.DatabaseURL != "" {
		fmt.Fprintln(w, "server CPU is this process's only: the PostgreSQL server's own CPU is not counted")
	}
	fmt.Fprintln(w)

	boot, err := coord.CreateRootOrganization(ctx, "bench", "root")
	if err != nil {
		return err
	}
	plan := loadPlan{URL: url, Org: boot.OrganizationID, Curve: boot.APIKey.Curve(), PrivateKey: boot.APIKey.PrivateKeyHex(),
		Clients: clients, Duration: duration}
	if cfg.Peer != nil {
		return b.runPeer(ctx, cfg, plan, rounds)
	}
	for _, m := range []struct{ name, op string }{{"CREATE_USERS_V3", "create_users"}, {"whoami", "whoami"}} {
		plan.Op = m.op
		r, err := b.measure(ctx, plan)
		if err != nil {
			return err
		}
		b.report(m.name, r, 0)
	}
	return b.signing(ctx, coord, plan, floor, rounds, cfg.CPUProfile)
}

// bench is the running benchmark: the command that generates load, and where the results go.
type bench struct {
	load           []string
	stdout, stderr io.Writer
	dir            string // the store's directory, whose disk makes the commits durable
}

// signing measures SIGN_TRANSACTION_V2 sequentially, then in rounds: the crypto floor again, the peak, and
// paced at half that peak. The goals are judged on the rounds' medians, as one round on a shared machine can be
// disturbed by anything else running on it.
func (b bench) signing(ctx context.Context, coord *coordinator.Coordinator, base loadPlan, first cryptoFloor, rounds int, cpuProfile string) error {
	// Signing runs in an organization of its own, the size a real one has, not the one the user benchmark filled.
	boot, err := coord.CreateRootOrganization(ctx, "bench-signing", "root")
	if err != nil {
		return err
	}
	agent, signWith, err := signingSetup(ctx, client.New(base.URL, boot.APIKey), boot.OrganizationID)
	if err != nil {
		return err
	}
	plan := base
	plan.Org, plan.Curve, plan.PrivateKey = boot.OrganizationID, agent.Curve(), agent.PrivateKeyHex()
	plan.Op, plan.SignWith, plan.To = "sign", signWith, benchToken

	seq := plan
	seq.Clients = 1
	sequential, err := b.measure(ctx, seq)
	if err != nil {
		return err
	}
	b.report("SIGN_TX 1 client", sequential, first.perActivity)

	var ratios, halfRatios, halfP99s []float64
	var failed measurement // the first round with failed requests, if any: no goal is met then
	for r := range rounds {
		floor := first
		if r > 0 {
			floor = measureFloor(base.Duration / 5)
		}
		peak, half, err := b.signingRound(ctx, plan, r == 0, cpuProfile)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.stdout, "round %d: crypto floor %.0f µs\n", r+1, micros(floor.perActivity))
		b.report(fmt.Sprintf("SIGN_TX %d clients", plan.Clients), peak, floor.perActivity)
		b.report(fmt.Sprintf("SIGN_TX at %.0f/s", peak.rate()/2), half, floor.perActivity)
		ratios = append(ratios, peak.ratio(floor.perActivity))
		halfRatios = append(halfRatios, half.ratio(floor.perActivity))
		halfP99s = append(halfP99s, float64(half.P99))
		for _, m := range []measurement{peak, half} {
			if m.Errors > 0 && failed.Errors == 0 {
				failed = m
			}
		}
	}

	ratio, halfP99 := median(ratios), time.Duration(median(halfP99s))
	fmt.Fprintf(b.stdout, "\ncrypto floor of a signing activity: 1 P-256 stamp verification + 1 secp256k1 signature = %.0f µs\n", micros(first.perActivity))
	fmt.Fprintf(b.stdout, "ratio, server CPU per signing activity at peak / crypto floor, median of %d rounds: %.1f× (rounds: %s)\n",
		rounds, ratio, multiples(ratios))
	// Judged at peak, where the server is busiest; the lighter loads cost more per activity and are named beside it.
	fmt.Fprintf(b.stdout, "goal: activity under %d× its raw cryptography at peak: %.1f× — %s (%.1f× with 1 client, %.1f× at half the peak)\n",
		goalCostRatio, ratio, verdict(ratio < goalCostRatio, failed), sequential.ratio(first.perActivity), median(halfRatios))
	fmt.Fprintf(b.stdout, "goal: p99 under %s at half the peak load, median of %d rounds: %s — %s\n", goalHalfP99, rounds,
		halfP99.Round(10*time.Microsecond), verdict(halfP99 < goalHalfP99, failed))
	return nil
}

// signingRound measures signing at peak, then paced at half the peak it reached.
func (b bench) signingRound(ctx context.Context, plan loadPlan, profile bool, cpuProfile string) (peak, half measurement, err error) {
	stopProfile := func() {}
	if profile {
		if stopProfile, err = startCPUProfile(cpuProfile); err != nil {
			return peak, half, err
		}
	}
	peak, err = b.measure(ctx, plan)
	stopProfile()
	if err != nil {
		return peak, half, err
	}
	if peak.Count == 0 {
		return peak, half, fmt.Errorf("bench: no signing request completed at peak")
	}
	plan.Rate = peak.rate() / 2
	half, err = b.measure(ctx, plan)
	return peak, half, err
}

// cryptoFloor is the raw cryptography of one signing activity on this machine: one P-256 stamp verification and one
// secp256k1 signature, each measured on one goroutine in CPU time.
type cryptoFloor struct {
	verifyRate, signRate float64 // per second
	perActivity          time.Duration
}

func measureFloor(d time.Duration) cryptoFloor {
	f := cryptoFloor{verifyRate: p256VerifyRate(d), signRate: secp256k1SignRate(d)}
	f.perActivity = time.Duration(float64(time.Second) * (1/f.verifyRate + 1/f.signRate))
	return f
}

func median(xs []float64) float64 {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	if n := len(sorted); n%2 == 0 {
		return (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return sorted[len(sorted)/2]
}

func multiples(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.1f×", x)
	}
	return strings.Join(parts, " ")
}

// startServer starts a coordinator alone on loopback over a fresh store in dir, or over a new database on the
// PostgreSQL server at serverURL (dbURL), dropped by stop.
func startServer(ctx context.Context, dir, serverURL string) (s *stack.Stack, dbURL string, stop func(), err error) {
	drop := func() error { return nil }
	if serverURL != "" {
		if dbURL, drop, err = store.ScratchPostgres(ctx, serverURL, "sigil_bench"); err != nil {
			return nil, "", nil, err
		}
	}
	s, err = stack.StartCoordinator(ctx, stack.CoordinatorConfig{Dir: dir, DatabaseURL: dbURL})
	if err != nil {
		drop()
		return nil, "", nil, err
	}
	return s, dbURL, func() { s.Close(); drop() }, nil
}

// signingSetup makes a non-root signer bound by one allow policy, as the agent of the second specification is, and
// returns its API key and the address it signs with.
func signingSetup(ctx context.Context, root *client.Client, org string) (*stamp.APIKey, string, error) {
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return nil, "", err
	}
	users, _, err := root.CreateUsers(ctx, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "agent",
		APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "agent", PublicKey: key.PublicKeyHex(), CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		return nil, "", err
	}
	w, _, err := root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "bench", Accounts: []api.WalletAccountParams{{
		Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		return nil, "", err
	}
	if _, _, err := root.CreatePolicy(ctx, org, api.CreatePolicyIntentV3{PolicyName: "bench", Effect: api.EffectAllow, Notes: "",
		Consensus: "approvers.any(user, user.id == '" + users.UserIDs[0] + "')",
		Condition: "eth.tx.to == '" + benchToken + "' && eth.tx.data[0..10] == '0x095ea7b3'"}); err != nil {
		return nil, "", err
	}
	return key, w.Addresses[0], nil
}

// measurement is one load phase: what the clients saw, and the CPU the server process spent meanwhile.
type measurement struct {
	loadResult
	serverCPU time.Duration
	machine   machineWindow // what the whole machine did during the window; zero if unknown
}

func (m measurement) rate() float64 { return float64(m.Count) / m.Elapsed.Seconds() }

func (m measurement) cpuPerRequest() time.Duration {
	if m.Count == 0 {
		return 0
	}
	return m.serverCPU / time.Duration(m.Count)
}

// machinePerRequest is the whole machine's busy CPU time per request: the server's, the load generator's and the
// kernel's.
func (m measurement) machinePerRequest() time.Duration {
	if m.Count == 0 {
		return 0
	}
	return m.machine.cpu / time.Duration(m.Count)
}

// ratio is the server CPU per request in multiples of the crypto floor.
func (m measurement) ratio(floor time.Duration) float64 {
	return float64(m.cpuPerRequest()) / float64(floor)
}

// measure runs one load phase in a child process and charges the CPU this process uses meanwhile to the server.
func (b bench) measure(ctx context.Context, p loadPlan) (measurement, error) {
	return b.measureServer(ctx, p, func() (time.Duration, error) { return cputime.Process(), nil })
}

// measureServer runs one load phase in a child process and charges to the server the CPU that serverCPU counts
// meanwhile.
func (b bench) measureServer(ctx context.Context, p loadPlan, serverCPU func() (time.Duration, error)) (measurement, error) {
	plan, err := json.Marshal(p)
	if err != nil {
		return measurement{}, err
	}
	cmd := exec.CommandContext(ctx, b.load[0], b.load[1:]...)
	cmd.Stdin, cmd.Stderr = bytes.NewReader(plan), b.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return measurement{}, err
	}
	if err := cmd.Start(); err != nil {
		return measurement{}, err
	}
	out := bufio.NewReader(stdout)
	var m measurement
	if line, _ := out.ReadString('\n'); strings.TrimSpace(line) != loadReady {
		cmd.Wait()
		return m, fmt.Errorf("bench: the load process did not start")
	}
	before, cpuErr := serverCPU()
	machine := machineUse()
	decodeErr := json.NewDecoder(out).Decode(&m.loadResult)
	m.machine = machine()
	after, cpuErr2 := serverCPU()
	m.serverCPU = after - before
	if err := cmd.Wait(); err != nil {
		return m, fmt.Errorf("bench: load process: %w", err)
	}
	return m, cmp.Or(decodeErr, cpuErr, cpuErr2)
}

// report prints one measurement; with a crypto floor it also prints the server CPU as a multiple of it.
func (b bench) report(name string, m measurement, floor time.Duration) {
	w := b.stdout
	fmt.Fprintf(w, "%-20s %7.0f req/s   p50 %-8s p99 %-8s errors %-3d server CPU %5.0f µs/request",
		name, m.rate(), m.P50.Round(10*time.Microsecond), m.P99.Round(10*time.Microsecond), m.Errors, micros(m.cpuPerRequest()))
	if floor > 0 {
		fmt.Fprintf(w, " = %.1f× floor", m.ratio(floor))
	}
	if m.machine.busy > 0 {
		fmt.Fprintf(w, "   machine: %.0f %% busy, %.0f µs/request", 100*m.machine.busy, micros(m.machinePerRequest()))
	}
	fmt.Fprintln(w)
	if m.PreparedLate > 0 {
		fmt.Fprintf(w, "%20s %d requests were prepared during the window, on the server's cores: the prepared ones ran out\n",
			"", m.PreparedLate)
	}
	if m.FirstError != "" {
		fmt.Fprintf(w, "%20s first error: %s\n", "", m.FirstError)
	}
}

// verdict says whether a goal is met; a run with failed requests meets none, as failures are cheap and fast.
func verdict(ok bool, m measurement) string {
	switch {
	case m.Errors > 0:
		return fmt.Sprintf("not met (%d requests failed)", m.Errors)
	case ok:
		return "met"
	}
	return "not met"
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// secp256k1SignRate measures raw secp256k1 signatures (RFC 6979, recoverable) on one goroutine.
func secp256k1SignRate(d time.Duration) float64 {
	priv := make([]byte, 32)
	priv[31] = 7
	digest := make([]byte, 32)
	return ratePerCPUSecond(d, func(n int) {
		digest[0] = byte(n)
		if _, err := keys.SignSecp256k1(priv, digest); err != nil {
			panic(err)
		}
	})
}

// p256VerifyRate measures parse-and-verify of one P-256 X-Stamp on one goroutine.
func p256VerifyRate(d time.Duration) float64 {
	key, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	body := []byte(`{"organizationId":"00000000-0000-0000-0000-000000000000"}`)
	_, value, _ := key.Stamp(body)
	return ratePerCPUSecond(d, func(int) {
		s, err := stamp.ParseAPIKeyStamp(value)
		if err != nil || s.Verify(body) != nil {
			panic("bench: stamp does not verify")
		}
	})
}

// ratePerCPUSecond runs op for about d on one thread and returns how many it ran per second of that thread's CPU
// time: like the server's CPU per request, it does not count the time the thread waited for a core, which on a busy
// machine is most of the wall time.
func ratePerCPUSecond(d time.Duration, op func(n int)) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n, start, cpu := 0, time.Now(), cputime.Thread()
	for time.Since(start) < d {
		op(n)
		n++
	}
	return float64(n) / (cputime.Thread() - cpu).Seconds()
}

// startCPUProfile profiles this process (the server) into path until the returned function is called; "" profiles
// nothing.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
