package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/stack"
)

// runChain is sigil chain: the embedded dev chain alone, with its data in DIR/chain, until Ctrl-C.
func runChain(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	var cf chainFlags
	cf.register(fs)
	dir := fs.String("dir", ".sigil", "data directory (the chain lives in DIR/chain)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	cfg := chain.Config{ListenAddr: cf.listen, RPCURL: cf.rpc, BlockPeriod: cf.period, Logger: slog.New(slog.NewJSONHandler(e.stderr, nil)),
		Simulator: chain.SimulatorConfig{Period: cf.simulate, PriceWalkBps: cf.priceWalk}, KeeperPeriod: cf.keeper}
	if !cf.ephemeral {
		cfg.DataDir = filepath.Join(*dir, "chain")
	}
	node, err := chain.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer node.Close()
	out, _ := json.MarshalIndent(node.Bootstrap(), "", "  ")
	fmt.Fprintf(e.stdout, "dev chain is up\n%s\n", out)
	<-ctx.Done()
	return nil
}

// runFund is sigil chain fund: ETH and tokens from the dev chain's faucet.
func runFund(ctx context.Context, e *env, args []string) error {
	address, args := positional(args)
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of a running sigil up (its bootstrap.json names the faucet)")
	faucet := fs.String("faucet", "", "faucet URL (default: from bootstrap.json)")
	network := fs.String("network", "", "the dev chain to fund, by network id (sigil-dev-2 for the second; default: the first)")
	eth := fs.String("eth", "", "ETH to send, in ether (for example 1 or 0.5)")
	sol := fs.String("sol", "", "SOL to airdrop to a Solana ADDRESS from the Solana dev node's faucet (for example 1 or 0.5)")
	tokens := map[string]string{}
	fs.Func("token", "a token and an amount in its units, NAME=AMOUNT (repeatable)", func(v string) error {
		name, amount, ok := strings.Cut(v, "=")
		if !ok || name == "" || amount == "" {
			return fmt.Errorf("want NAME=AMOUNT, got %q", v)
		}
		tokens[name] = amount
		return nil
	})
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if address == "" {
		return e.usageErrorf("ADDRESS is required")
	}
	if *sol != "" {
		return fundSolana(ctx, e, *dir, address, *sol)
	}
	url := *faucet
	if url == "" {
		b, err := stack.ReadBootstrap(*dir)
		if err != nil {
			return err
		}
		if b.FaucetURL == "" {
			return fmt.Errorf("bootstrap.json names no faucet: is the dev chain part of this stack?")
		}
		url = b.FaucetURL
		if *network != "" {
			url = ""
			var ids []string
			for _, c := range b.Chains {
				ids = append(ids, c.NetworkID)
				if c.NetworkID == *network {
					url = c.FaucetURL
				}
			}
			if url == "" {
				return e.usageErrorf("no dev chain %q in bootstrap.json (it has %s)", *network, strings.Join(ids, ", "))
			}
		}
	}
	res, err := chain.RequestFunds(ctx, nil, url, chain.FundRequest{Address: address, ETH: *eth, Tokens: tokens})
	if err != nil {
		return err
	}
	for what, hash := range res.Transactions {
		fmt.Fprintf(e.stdout, "%-8s %s\n", what, hash)
	}
	return nil
}

// positional splits a leading argument that is not a flag (sigil api NAME, sigil chain fund ADDRESS) from the rest;
// it is "" when the arguments begin with a flag, which leaves -h and --help to the flag set.
func positional(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// fundSolana airdrops SOL from the Solana dev node's faucet, with its requestAirdrop.
func fundSolana(ctx context.Context, e *env, dir, address, amount string) error {
	sol, err := strconv.ParseFloat(amount, 64)
	if err != nil || sol <= 0 || sol > 1e9 {
		return e.usageErrorf("--sol must be an amount of SOL, got %q", amount)
	}
	b, err := stack.ReadBootstrap(dir)
	if err != nil {
		return err
	}
	if b.Solana == nil {
		return fmt.Errorf("bootstrap.json names no Solana dev node: is the dev chain part of this stack?")
	}
	sig, err := solanadev.RequestAirdrop(ctx, b.Solana.RPCURL, address, uint64(math.Round(sol*1e9)))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%-8s %s\n", "SOL", sig)
	return nil
}
