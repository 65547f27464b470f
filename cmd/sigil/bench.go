package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/internal/bench"
)

// runBench is sigil bench (package bench), and its hidden load process, sigil bench --load.
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "--load" {
		return bench.Load(ctx, os.Stdin, e.stdout)
	}
	fs := e.flags()
	clients := fs.Int("clients", 8, "concurrent clients")
	duration := fs.Duration("duration", 5*time.Second, "how long to run each measurement")
	dbURL := fs.String("database-url", "", "PostgreSQL server to measure instead of SQLite (the bench works in a new database there and drops it)")
	rounds := fs.Int("rounds", 3, "signing rounds (crypto floor, peak, half the peak) whose median is judged against the goals")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the server during the first peak signing measurement to this file")
	peerURL := fs.String("peer-url", "", "OpenBao or Vault address: run side by side against its transit signing instead (docs/BENCHMARKS.md)")
	peerToken := fs.String("peer-token", "", "token of the peer, allowed to sign with --peer-key")
	peerKey := fs.String("peer-key", "bench", "transit key of the peer that signs (ecdsa-p256)")
	peerPID := fs.Int("peer-pid", 0, "process of the peer whose CPU is counted (default: the one listening on --peer-url's port)")
	clientCounts := fs.String("peer-clients", "1,8,32", "client counts of the side-by-side run")
	orgSizes := fs.String("org-size", "", "wallet accounts of the organizations to measure side by side, like 0,10000,100000,1000000: "+
		"what each operation costs by organization size instead (--rounds of them, default 7)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *orgSizes != "" {
		var sizes []int
		for _, f := range strings.Split(*orgSizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 {
				return e.usageErrorf("--org-size is a list of account counts of at least 0, like 0,10000,100000")
			}
			sizes = append(sizes, n)
		}
		orgRounds := 0 // the benchmark's default, unless --rounds is given
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "rounds" {
				orgRounds = *rounds
			}
		})
		if *rounds < 1 {
			return e.usageErrorf("--rounds must be at least 1")
		}
		return bench.OrgSizes(ctx, bench.OrgSizeConfig{Sizes: sizes, DatabaseURL: *dbURL, Rounds: orgRounds, Stdout: e.stdout,
			Logf: func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }})
	}
	var peer *bench.Peer
	var counts []int
	if *peerURL != "" {
		peer = &bench.Peer{URL: *peerURL, Token: *peerToken, Key: *peerKey, PID: *peerPID}
		for _, f := range strings.Split(*clientCounts, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return e.usageErrorf("--peer-clients is a list of client counts of at least 1, like 1,8,32")
			}
			counts = append(counts, n)
		}
	}
	if *clients < 1 || *rounds < 1 || *duration <= 0 {
		return e.usageErrorf("--clients and --rounds must be at least 1, and --duration positive")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return bench.Run(ctx, bench.Config{Clients: *clients, Duration: *duration, DatabaseURL: *dbURL, Rounds: *rounds,
		CPUProfile: *cpuProfile, Peer: peer, ClientCounts: counts, LoadCommand: []string{exe, "bench", "--load"}, Stdout: e.stdout, Stderr: e.stderr})
}
