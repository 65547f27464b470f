package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"sigil/examples/yieldagent"
	"sigil/stamp"
)

func init() {
	commands["demo"] = command{"run a user journey against the running stack: demo yield [--dir DIR] | demo web", runDemo}
}

func runDemo(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "yield" {
		return demoYield(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "web" && demoWeb != nil {
		return demoWeb(ctx, args[1:])
	}
	return fmt.Errorf("usage: sigil demo yield [--dir DIR] [--amount USDC] | sigil demo web [--dir DIR]")
}

// demoWeb is set by the web demo's file when it is part of the build.
var demoWeb func(ctx context.Context, args []string) error

// demoYield runs the second specification's journey: a policy-restricted agent earns yield.
func demoYield(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo yield", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory of a running `sigil up`")
	amount := fs.String("amount", "100", "USDC to deposit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := readBootstrap(*dir)
	if err != nil {
		return err
	}
	if b.YieldURL == "" || b.ChainRPCURL == "" {
		return fmt.Errorf("bootstrap.json names no yield service or chain: start the whole stack with `sigil up`")
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, b.APIPrivateKey)
	if err != nil {
		return err
	}
	start := time.Now()
	sum, err := yieldagent.Run(ctx, yieldagent.Config{
		CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
		YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: b.ChainRPCURL, FaucetURL: b.FaucetURL,
		Network: b.Network, ChainID: b.ChainID, Amount: *amount,
	}, newProgress())
	if err != nil {
		return err
	}
	fmt.Printf("\nSummary (%s)\n  agent user   %s\n  wallet       %s\n  yield        %s\n  deposited    %s USDC\n  after enter  %s\n  after exit   %s\n  transactions %d\n  denied       %s\n",
		time.Since(start).Round(100*time.Millisecond), sum.AgentUserID, sum.WalletAddress, sum.YieldID, sum.Deposited,
		sum.BalanceAfterEnter, sum.BalanceAfterExit, len(sum.Hashes), sum.Denial)
	return nil
}

// progress shows each step: a spinner while it runs on a terminal, plain lines otherwise.
type progress struct {
	tty  bool
	mu   sync.Mutex
	step string
	stop chan struct{}
	done chan struct{}
}

func newProgress() *progress {
	fi, err := os.Stdout.Stat()
	return &progress{tty: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) Start(step string) {
	p.step = step
	if !p.tty {
		fmt.Printf("... %s\n", step)
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		frames := `⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏`
		for i := 0; ; i++ {
			r := []rune(frames)[i%10]
			fmt.Printf("\r%c %s", r, step)
			select {
			case <-p.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
}

func (p *progress) end(mark, detail string) {
	if p.tty {
		close(p.stop)
		<-p.done
		fmt.Printf("\r%s %s\n", mark, p.step)
		if detail != "" {
			fmt.Printf("    %s\n", detail)
		}
		return
	}
	fmt.Printf("%s %s: %s\n", mark, p.step, detail)
}

func (p *progress) Done(detail string) { p.end("✓", detail) }
func (p *progress) Fail(err error)     { p.end("✗", err.Error()) }
