package main

import (
	"context"
	"os"
	"time"

	"sigil/internal/bench"
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
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *clients < 1 || *rounds < 1 || *duration <= 0 {
		return e.usageErrorf("--clients and --rounds must be at least 1, and --duration positive")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return bench.Run(ctx, bench.Config{Clients: *clients, Duration: *duration, DatabaseURL: *dbURL, Rounds: *rounds,
		CPUProfile: *cpuProfile, LoadCommand: []string{exe, "bench", "--load"}, Stdout: e.stdout, Stderr: e.stderr})
}
