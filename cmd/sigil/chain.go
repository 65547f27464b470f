package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigil/chain"
)

func init() {
	commands["chain"] = command{"run the dev chain alone, or fund an address: chain [--dir DIR] | chain fund ADDRESS --eth 1 --token USDC=1000", runChain}
}

// chainFlags are the dev chain's settings, shared by `sigil up` and `sigil chain`.
type chainFlags struct {
	listen    string
	period    time.Duration
	simulate  time.Duration
	ephemeral bool
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "chain-listen", chain.DefaultListenAddr, "dev chain JSON-RPC and faucet listen address")
	fs.DurationVar(&c.period, "chain-block-period", 0, "also seal a block on this period when no transaction arrives (0: only on transactions)")
	fs.DurationVar(&c.simulate, "chain-simulate", 30*time.Second, "accrue yield on the dev chain on this period (0: off)")
	fs.BoolVar(&c.ephemeral, "chain-ephemeral", false, "keep the dev chain in memory only")
}

// startChain starts the embedded dev chain with its data in DIR/chain.
func (c *chainFlags) start(ctx context.Context, dir string, logger *slog.Logger) (*chain.Node, error) {
	cfg := chain.Config{ListenAddr: c.listen, BlockPeriod: c.period, Logger: logger,
		Simulator: chain.SimulatorConfig{Period: c.simulate}}
	if !c.ephemeral {
		cfg.DataDir = filepath.Join(dir, "chain")
	}
	return chain.Start(ctx, cfg)
}

// setChain records the dev chain in bootstrap.json.
func setChain(dir string, b chain.Bootstrap) error {
	f, err := readBootstrap(dir)
	if err != nil {
		return err
	}
	f.ChainRPCURL, f.ChainID, f.FaucetURL, f.Network, f.Contracts = b.RPCURL, b.ChainID, b.FaucetURL, b.NetworkID, b.Contracts
	return writeBootstrap(dir, f)
}

func runChain(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "fund" {
		return runFund(ctx, args[1:])
	}
	fs := flag.NewFlagSet("chain", flag.ContinueOnError)
	var cf chainFlags
	cf.register(fs)
	dir := fs.String("dir", ".sigil", "data directory (the chain lives in DIR/chain)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	node, err := cf.start(ctx, *dir, logger)
	if err != nil {
		return err
	}
	defer node.Close()
	out, _ := json.MarshalIndent(node.Bootstrap(), "", "  ")
	fmt.Printf("dev chain is up\n%s\n", out)
	<-ctx.Done()
	return nil
}

// runFund asks the dev chain's faucet for ETH and tokens.
func runFund(ctx context.Context, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("usage: sigil chain fund ADDRESS [--eth AMOUNT] [--token NAME=AMOUNT ...] [--dir DIR | --faucet URL]")
	}
	address := args[0]
	fs := flag.NewFlagSet("chain fund", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory of a running `sigil up` (its bootstrap.json names the faucet)")
	faucet := fs.String("faucet", "", "faucet URL (default: from bootstrap.json)")
	eth := fs.String("eth", "", "ETH to send, in ether (for example 1 or 0.5)")
	tokens := map[string]string{}
	fs.Func("token", "a token and an amount in its units, NAME=AMOUNT (repeatable)", func(v string) error {
		name, amount, ok := strings.Cut(v, "=")
		if !ok || name == "" || amount == "" {
			return fmt.Errorf("want NAME=AMOUNT, got %q", v)
		}
		tokens[name] = amount
		return nil
	})
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	url := *faucet
	if url == "" {
		b, err := readBootstrap(*dir)
		if err != nil {
			return err
		}
		if b.FaucetURL == "" {
			return fmt.Errorf("bootstrap.json names no faucet: is the dev chain part of this stack?")
		}
		url = b.FaucetURL
	}
	res, err := chain.RequestFunds(ctx, nil, url, chain.FundRequest{Address: address, ETH: *eth, Tokens: tokens})
	if err != nil {
		return err
	}
	for what, hash := range res.Transactions {
		fmt.Printf("%-8s %s\n", what, hash)
	}
	return nil
}
