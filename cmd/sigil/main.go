// Command sigil runs Sigil's services and talks to them.
//
//	sigil up [--dir DIR]                    run the whole stack with embedded defaults
//	sigil keys new [--curve CURVE]          make an API key pair
//	sigil api NAME --params JSON            submit an activity or run a query
//	sigil bench                             measure the coordinator on this machine
//	sigil backup --out FILE                 copy the database while the stack runs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"
)

// command is one subcommand: a few lines that parse flags and call into a package.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands = map[string]command{
	"up":        {"run the coordinator with embedded defaults (SQLite in --dir)", runUp},
	"authproxy": {"run the auth proxy alone in front of a running coordinator (--dir of sigil up)", runAuthProxy},
	"keys":      {"manage API keys: keys new [--curve p256|secp256k1|ed25519] [--out FILE]", runKeys},
	"api":       {"submit an activity or run a query: api NAME --params JSON [--key FILE --org ID | --dir DIR]", runAPI},
	"bench":     {"measure stamped activity and query throughput against a server on loopback", runBench},
	"backup":    {"copy the SQLite database of a running stack: backup --out FILE [--dir DIR]", runBackup},
	"yield":     {"run the yield service alone, or create its API keys: yield keys create --project P [--fee-set 10|20]", runYield},
}

func main() {
	// Sigil's services keep a small live heap and allocate briskly per request; at Go's default GOGC of 100 the
	// collector would run every few megabytes and cost a tenth of a signing activity's CPU. GOGC in the environment
	// still decides when it is set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "sigil: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := cmd.run(ctx, os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "sigil:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: sigil COMMAND [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-6s %s\n", n, commands[n].summary)
	}
}
