package chain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// attach sets the dev chain up on an existing node (Config.RPCURL) instead of an embedded one: the same fixtures,
// faucet and simulator, sent from the dev account, with the faucet on its own listener.
func attach(ctx context.Context, cfg Config) (*Node, error) {
	want := cfg.ChainID // the node says which chain it is; a configured id is only checked against it
	cfg = cfg.withDefaults()
	cfg.ChainID = want
	client, err := rpc.DialContext(ctx, cfg.RPCURL)
	if err != nil {
		return nil, fmt.Errorf("chain: dial %s: %w", cfg.RPCURL, err)
	}
	n := newNode(cfg)
	n.rpc, n.client = client, ethclient.NewClient(client)
	if err := n.attach(ctx); err != nil {
		n.Close()
		return nil, err
	}
	n.startBackground()
	n.log.Info("dev chain attached", "rpc", n.RPCURL(), "chainId", n.cfg.ChainID, "faucet", n.FaucetURL(), "devAccount", n.dev.Address())
	return n, nil
}

func (n *Node) attach(ctx context.Context) error {
	idCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	id, err := n.client.ChainID(idCtx)
	cancel()
	if err != nil {
		return fmt.Errorf("chain: %s does not answer eth_chainId: %w", n.cfg.RPCURL, err)
	}
	if n.cfg.ChainID != 0 && n.cfg.ChainID != id.Int64() {
		return fmt.Errorf("chain: %s is chain %d, the configuration asks for %d", n.cfg.RPCURL, id, n.cfg.ChainID)
	}
	n.cfg.ChainID = id.Int64()
	host, port, err := n.cfg.validate()
	if err != nil {
		return err
	}
	key, err := loadOrCreateDevKey(n.cfg.DataDir)
	if err != nil {
		return err
	}
	rec, err := readRecord(n.cfg.DataDir)
	if err != nil {
		return err
	}
	if rec != nil && rec.ChainID != n.cfg.ChainID {
		return fmt.Errorf("chain: data directory %q holds a deployment on chain %d, %s is chain %d; use another directory", n.cfg.DataDir, rec.ChainID, n.cfg.RPCURL, n.cfg.ChainID)
	}
	if err := n.serveFaucet(host, port); err != nil {
		return err
	}
	if balance, err := n.client.BalanceAt(ctx, addressOf(key), nil); err == nil && balance.Sign() == 0 {
		return fmt.Errorf("chain: the dev account %s holds no ether on %s; fund it (Anvil and Hardhat do by default)", addressOf(key).Hex(), n.cfg.RPCURL)
	}
	return n.setUp(ctx, key, rec)
}

// serveFaucet serves the faucet alone on the configured listen address.
func (n *Node) serveFaucet(host string, port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("chain: faucet listen on %s: %w", n.cfg.ListenAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(FaucetPath, faucetHandler(n.log, n.readyFaucet))
	mux.Handle(RewardsPath, rewardsHandler(n.cfg.ChainID, n.readySimulator))
	n.faucetServer = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	n.faucetURL = "http://" + ln.Addr().String() + FaucetPath
	go func() {
		if err := n.faucetServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Warn("dev chain faucet stopped", "err", err)
		}
	}()
	return nil
}

// advanceRemote moves an attached node's clock as Hardhat and Anvil scripts do: evm_increaseTime, then evm_mine.
func (n *Node) advanceRemote(d time.Duration) error {
	ctx, cancel := context.WithTimeout(n.ctx, 30*time.Second)
	defer cancel()
	if err := n.rpc.CallContext(ctx, nil, "evm_increaseTime", uint64(d/time.Second)); err != nil {
		return fmt.Errorf("chain: evm_increaseTime on %s: %w", n.cfg.RPCURL, err)
	}
	if err := n.rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		return fmt.Errorf("chain: evm_mine on %s: %w", n.cfg.RPCURL, err)
	}
	return nil
}
