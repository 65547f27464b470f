package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sigil/sigil/examples/yieldagent"
	"github.com/sigil/sigil/internal/stack"
)

// runDemoYield is sigil demo yield, the second specification's journey: a policy-restricted agent earns yield.
func runDemoYield(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of a running sigil up")
	amount := fs.String("amount", "100", "USDC to deposit")
	cleanup := fs.Bool("cleanup", false, "delete the agent user and its policies at the end (the wallet stays)")
	protocol := fs.String("protocol", "live", "where the USDC goes: "+strings.Join(yieldagent.Protocols(), ", ")+
		" (the plain ERC-4626 vault, the vault over Morpho Blue, Aave v3's pool), or live: the first of them with a reward rate above 0")
	send := fs.Bool("send", false, "hand each transaction to the coordinator (ETH_SEND_TRANSACTION), which signs, broadcasts and watches it, instead of signing it and broadcasting it here")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	b, err := stack.ReadBootstrap(*dir)
	if err != nil {
		return err
	}
	if b.YieldURL == "" || b.ChainRPCURL == "" {
		return fmt.Errorf("bootstrap.json names no yield service or chain: start the whole stack with sigil up")
	}
	key, err := b.RootKey()
	if err != nil {
		return err
	}
	start := time.Now()
	sum, err := yieldagent.Run(ctx, yieldagent.Config{
		CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
		YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: b.ChainRPCURL, FaucetURL: b.FaucetURL,
		Network: b.Network, ChainID: b.ChainID, Amount: *amount, Cleanup: *cleanup, Protocol: *protocol, Send: *send,
	}, newProgress(e.stdout))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nSummary (%s)\n  agent user   %s\n  wallet       %s\n  yield        %s\n  deposited    %s USDC\n  after enter  %s\n  earned       %s\n  after exit   %s\n  transactions %d\n  denied       %s\n",
		time.Since(start).Round(100*time.Millisecond), sum.AgentUserID, sum.WalletAddress, sum.YieldID, sum.Deposited,
		sum.BalanceAfterEnter, cmp.Or(sum.Earned, "-"), sum.BalanceAfterExit, len(sum.Hashes), sum.Denial)
	return nil
}

// progress shows each step: a spinner while it runs on a terminal, plain lines otherwise.
type progress struct {
	w    io.Writer
	tty  bool
	step string
	stop chan struct{}
	done chan struct{}
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return &progress{w: w}
	}
	fi, err := f.Stat()
	return &progress{w: w, tty: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) Start(step string) {
	p.step = step
	if !p.tty {
		fmt.Fprintf(p.w, "... %s\n", step)
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		frames := []rune(`⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏`)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(p.w, "\r%c %s", frames[i%len(frames)], step)
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

func (p *progress) end(mark, detail string) {
	if p.tty {
		close(p.stop)
		<-p.done
		fmt.Fprintf(p.w, "\r%s %s\n", mark, p.step)
		if detail != "" {
			fmt.Fprintf(p.w, "    %s\n", detail)
		}
		return
	}
	fmt.Fprintf(p.w, "%s %s: %s\n", mark, p.step, detail)
}

func (p *progress) Done(detail string) { p.end("✓", detail) }
func (p *progress) Fail(err error)     { p.end("✗", err.Error()) }
