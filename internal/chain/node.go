package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // registers callTracer
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/contracts"
)

// Node is a running dev chain. All methods are safe for concurrent use.
type Node struct {
	cfg       Config
	log       *slog.Logger
	stack     *node.Node
	sealer    *sealer
	rpc       *rpc.Client
	client    *ethclient.Client
	dev       *Account
	addresses contracts.Addresses
	faucet    *Faucet
	simulator *Simulator
	keeper    *Keeper

	snapshotsMu sync.Mutex
	snapshots   []snapshot // evm_snapshot's, oldest first
	lastID      uint64

	faucetReady  chan struct{} // closed once the faucet and the simulator can serve
	faucetServer *http.Server  // the faucet's own listener, on a node attached by RPC URL
	faucetURL    string
	ctx          context.Context
	cancel       context.CancelFunc // stops the periodic tasks
	background   sync.WaitGroup
	closeOnce    sync.Once
	closeErr     error
}

// Start starts the dev chain and, at the first start on a data directory (or every start of an
// ephemeral chain), deploys the fixtures. It returns once JSON-RPC and the faucet are serving.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.RPCURL != "" {
		return attach(ctx, cfg)
	}
	cfg = cfg.withDefaults()
	host, port, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	key, err := loadOrCreateDevKey(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	// Checked before go-ethereum opens the database: it would otherwise adopt the new chain id.
	if rec != nil && rec.ChainID != cfg.ChainID {
		return nil, fmt.Errorf("chain: data directory %q holds chain %d, config asks for %d; use another directory or the same chain id", cfg.DataDir, rec.ChainID, cfg.ChainID)
	}
	n := newNode(cfg)
	if err := n.startStack(host, port, key); err != nil {
		return nil, err
	}
	if err := n.setUp(ctx, key, rec); err != nil {
		n.Close()
		return nil, err
	}
	n.startBackground()
	n.log.Info("dev chain started", "rpc", n.RPCURL(), "chainId", cfg.ChainID, "dataDir", cfg.DataDir,
		"devAccount", n.dev.Address())
	return n, nil
}

func newNode(cfg Config) *Node {
	ctx, cancel := context.WithCancel(context.Background())
	return &Node{cfg: cfg, log: cfg.Logger, faucetReady: make(chan struct{}), ctx: ctx, cancel: cancel}
}

func (n *Node) startStack(host string, port int, key *ecdsa.PrivateKey) error {
	devAddress := addressOf(key)
	vhosts := []string{"localhost"} // plus any IP address, which go-ethereum always accepts
	if n.cfg.AllowNonLoopback {
		vhosts = []string{"*"}
	}
	stack, err := node.New(&node.Config{
		Name:             "sigil-dev",
		DataDir:          n.cfg.DataDir,
		HTTPHost:         host,
		HTTPPort:         port,
		HTTPModules:      []string{"eth", "net", "web3", "txpool", "debug", "evm", "anvil", "sigil"},
		HTTPVirtualHosts: vhosts,
		HTTPCors:         n.cfg.CORSOrigins,
		HTTPTimeouts:     rpc.DefaultHTTPTimeouts,
		P2P:              p2p.Config{NoDiscovery: true, NoDial: true, MaxPeers: 0},
	})
	if err != nil {
		return fmt.Errorf("chain: create node (is another process using data directory %q?): %w", n.cfg.DataDir, err)
	}
	n.stack = stack

	genesis := core.DeveloperGenesisBlock(DefaultGasLimit, &devAddress)
	genesis.Config.ChainID = n.cfg.chainID()
	ethCfg := ethconfig.Defaults
	ethCfg.Genesis = genesis
	ethCfg.NetworkId = uint64(n.cfg.ChainID)
	ethCfg.SyncMode = ethconfig.FullSync
	ethCfg.Miner.PendingFeeRecipient = devAddress
	ethCfg.Miner.GasCeil = DefaultGasLimit
	// A dev chain is small: keep the caches small so the node starts and stops quickly.
	ethCfg.DatabaseCache, ethCfg.TrieCleanCache, ethCfg.TrieDirtyCache, ethCfg.SnapshotCache = 32, 16, 16, 16
	// The log index costs most of a restart (it reloads its head snapshot) and a dev chain is
	// small enough for eth_getLogs to scan block blooms instead.
	ethCfg.LogNoHistory = true
	// Hash-based state in archive mode writes every block's state to disk as it is sealed, so
	// killing the process loses nothing. The default (path-based) scheme keeps recent state in
	// memory until a clean shutdown and, after a kill, reopens on a state it cannot serve.
	ethCfg.StateScheme = rawdb.HashScheme
	ethCfg.NoPruning = true
	backend, err := eth.New(stack, &ethCfg)
	if err != nil {
		stack.Close()
		var mismatch *core.GenesisMismatchError
		if errors.As(err, &mismatch) {
			return fmt.Errorf("chain: data directory %q holds another chain (different chain id or dev account?); use a new directory or delete it: %w", n.cfg.DataDir, err)
		}
		return fmt.Errorf("chain: start the Ethereum service: %w", err)
	}
	filterSystem := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)}, {Namespace: "evm", Service: &evmAPI{n: n}},
		{Namespace: "anvil", Service: &anvilAPI{n: n}}, {Namespace: "sigil", Service: &sigilAPI{n: n}}})
	// debug_traceCall and debug_traceTransaction, with the native tracers (callTracer), as a developer's node offers
	// them: sending reads the chain of reverts of a failed call from them.
	stack.RegisterAPIs(tracers.APIs(backend.APIBackend))

	beacon, err := catalyst.NewSimulatedBeacon(0, devAddress, backend)
	if err != nil {
		stack.Close()
		return fmt.Errorf("chain: start the simulated beacon: %w", err)
	}
	stack.RegisterLifecycle(beacon)
	stack.RegisterHandler("Sigil dev faucet", FaucetPath, faucetHandler(n.log, n.readyFaucet))

	if err := stack.Start(); err != nil {
		stack.Close()
		return fmt.Errorf("chain: start node on %s: %w", n.cfg.ListenAddr, err)
	}
	var db ethdb.KeyValueSyncer
	if n.cfg.DataDir != "" {
		db = backend.ChainDb()
	}
	n.sealer = startSealer(beacon, backend.TxPool(), db, n.cfg.BlockPeriod)
	n.rpc = stack.Attach()
	n.client = ethclient.NewClient(n.rpc)
	return nil
}

// deployTimeout bounds the first deployment (about a second normally), so a chain that does not
// mine makes Start fail instead of hang.
const deployTimeout = 2 * time.Minute

// setUp loads the deployment record, or deploys the fixtures when there is none.
func (n *Node) setUp(ctx context.Context, key *ecdsa.PrivateKey, rec *record) error {
	n.dev = NewAccount(n.client, key, n.cfg.chainID())
	addresses, err := n.loadOrDeploy(ctx, rec)
	if err != nil {
		return err
	}
	n.addresses = addresses
	faucet, err := NewFaucet(n.client, n.dev, addresses, n.cfg.Faucet)
	if err != nil {
		return err
	}
	if n.sealer != nil {
		faucet.settled = n.sealer.syncPool
	}
	n.faucet = faucet
	sim, err := NewSimulator(n.client, n.dev, addresses, n.cfg.Simulator)
	if err != nil {
		return err
	}
	n.simulator = sim
	n.keeper = NewKeeper(n.client, n.dev, addresses)
	close(n.faucetReady) // the faucet and the simulator are published to the RPC handlers
	return nil
}

// loadOrDeploy reuses the recorded deployment when it was made from the embedded artifacts and its
// contracts are on the chain. Otherwise (a data directory of an older Sigil, whose contracts lack
// functions this one calls, or a chain that lost them) it deploys the fixtures again at new
// addresses; balances held in the old contracts stay there.
func (n *Node) loadOrDeploy(ctx context.Context, rec *record) (contracts.Addresses, error) {
	fingerprint := contracts.Fingerprint()
	switch {
	case rec == nil:
	case rec.Artifacts != fingerprint:
		n.log.Warn("the fixtures were deployed from other contract artifacts (an older Sigil); deploying them again at new addresses",
			"recorded", rec.Artifacts, "embedded", fingerprint)
	default:
		err := contracts.Verify(ctx, n.client, rec.Contracts)
		if err == nil {
			return rec.Contracts, nil
		}
		n.log.Warn("deployment record does not match the chain; deploying the fixtures again", "err", err)
	}
	started := time.Now()
	ctx, cancel := context.WithTimeout(ctx, deployTimeout)
	defer cancel()
	addresses, err := contracts.Deploy(ctx, n.dev, n.client, n.cfg.Fixtures)
	if err != nil {
		return nil, fmt.Errorf("chain: deploy fixtures: %w", err)
	}
	// Before the record is written, so a deployment on record always has its rates.
	if err := publishRates(ctx, n.dev, addresses, n.cfg.Simulator); err != nil {
		return nil, fmt.Errorf("chain: publish the fixtures' rates: %w", err)
	}
	if err := writeRecord(n.cfg.DataDir, record{ChainID: n.cfg.ChainID, Deployer: n.dev.Address(), Artifacts: fingerprint,
		Contracts: addresses}); err != nil {
		return nil, err
	}
	n.log.Info("dev chain fixtures deployed", "contracts", len(addresses), "took", time.Since(started).Round(time.Millisecond))
	return addresses, nil
}

func (n *Node) startBackground() {
	if p := n.cfg.Simulator.Period; p > 0 {
		n.every(p, func(ctx context.Context) error {
			_, err := n.simulator.Step(ctx)
			return err
		})
	}
	if p := n.cfg.KeeperPeriod; p > 0 {
		n.every(p, func(ctx context.Context) error {
			_, err := n.keeper.Run(ctx)
			return err
		})
	}
}

// every runs f on a period until Close, which cancels the context f gets; errors are logged.
func (n *Node) every(period time.Duration, f func(context.Context) error) {
	n.background.Add(1)
	go func() {
		defer n.background.Done()
		ticker := time.NewTicker(period)
		defer ticker.Stop()
		for {
			select {
			case <-n.ctx.Done():
				return
			case <-ticker.C:
				if err := f(n.ctx); err != nil && n.ctx.Err() == nil {
					n.log.Warn("dev chain periodic task failed", "err", err)
				}
			}
		}
	}()
}

// Close stops the chain and releases the data directory. State is flushed to disk.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		n.cancel()
		n.background.Wait()
		if n.rpc != nil {
			n.rpc.Close()
		}
		if n.sealer != nil {
			n.sealer.close()
		}
		if n.stack != nil {
			n.closeErr = n.stack.Close()
		}
		if n.faucetServer != nil {
			n.closeErr = n.faucetServer.Close()
		}
	})
	return n.closeErr
}

// RPCURL is the JSON-RPC endpoint, e.g. "http://127.0.0.1:8545/".
func (n *Node) RPCURL() string {
	if n.stack == nil {
		return n.cfg.RPCURL
	}
	return n.stack.HTTPEndpoint() + "/"
}

// FaucetURL is the faucet's endpoint, e.g. "http://127.0.0.1:8545/faucet".
func (n *Node) FaucetURL() string {
	if n.stack == nil {
		return n.faucetURL
	}
	return n.stack.HTTPEndpoint() + FaucetPath
}

// ChainID is the chain id (EIP-155).
func (n *Node) ChainID() *big.Int { return n.cfg.chainID() }

// Contracts returns a copy of the deployed fixtures' addresses, keyed by fixture name.
func (n *Node) Contracts() contracts.Addresses {
	out := make(contracts.Addresses, len(n.addresses))
	for k, v := range n.addresses {
		out[k] = v
	}
	return out
}

// DevAccount is the genesis-funded account that owns the fixtures and funds the faucet.
func (n *Node) DevAccount() common.Address { return n.dev.Address() }

// Client is an in-process JSON-RPC client of the chain (no HTTP hop).
func (n *Node) Client() *ethclient.Client { return n.client }

// Faucet is the dev chain's faucet.
func (n *Node) Faucet() *Faucet { return n.faucet }

// Simulator is the yield simulator; Step drives it one step at a time.
func (n *Node) Simulator() *Simulator { return n.simulator }

// Keeper is the dev liquidator; Run makes one pass.
func (n *Node) Keeper() *Keeper { return n.keeper }

// AdvanceTime mines any pending transactions, then seals an empty block whose timestamp is d
// later than the latest block's; later blocks keep counting from there.
func (n *Node) AdvanceTime(d time.Duration) error {
	if d < time.Second {
		return errors.New("chain: advance time by at least one second")
	}
	if n.sealer == nil {
		return n.advanceRemote(d)
	}
	return n.sealer.advanceTime(d)
}

// snapshot is a head recorded by evm_snapshot.
type snapshot struct {
	id   uint64
	head common.Hash
}

func (n *Node) snapshot(ctx context.Context) (hexutil.Uint64, error) {
	if err := n.sealer.syncPool(ctx); err != nil { // every block sealed so far is the head's
		return 0, err
	}
	head, err := n.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, err
	}
	n.snapshotsMu.Lock()
	defer n.snapshotsMu.Unlock()
	n.lastID++
	n.snapshots = append(n.snapshots, snapshot{id: n.lastID, head: head.Hash()})
	return hexutil.Uint64(n.lastID), nil
}

// revert rewinds to snapshot id. Pending transactions are dropped, and the dev account re-reads its nonce, since the
// transactions it sent after the snapshot are gone.
func (n *Node) revert(ctx context.Context, id uint64) (bool, error) {
	n.snapshotsMu.Lock()
	defer n.snapshotsMu.Unlock()
	i := slices.IndexFunc(n.snapshots, func(s snapshot) bool { return s.id == id })
	if i < 0 {
		return false, nil
	}
	if err := n.sealer.rewind(n.snapshots[i].head); err != nil {
		return false, err
	}
	n.snapshots = n.snapshots[:i]
	n.dev.forgetNonce()
	return true, nil
}

// Bootstrap is what bootstrap.json says about the dev chain.
type Bootstrap struct {
	NetworkID string            `json:"networkId"`
	Name      string            `json:"name,omitempty"`
	ChainID   int64             `json:"chainId"`
	RPCURL    string            `json:"rpcUrl"`
	FaucetURL string            `json:"faucetUrl"`
	Contracts map[string]string `json:"contracts"`
}

// Bootstrap returns the chain's entry for bootstrap.json (addresses checksummed).
func (n *Node) Bootstrap() Bootstrap {
	b := Bootstrap{NetworkID: n.cfg.NetworkID, Name: n.cfg.Name, ChainID: n.cfg.ChainID, RPCURL: n.RPCURL(), FaucetURL: n.FaucetURL(),
		Contracts: make(map[string]string, len(n.addresses))}
	for name, addr := range n.addresses {
		b.Contracts[name] = addr.Hex()
	}
	return b
}

// readyFaucet is the faucet once it can serve, nil before.
func (n *Node) readyFaucet() *Faucet {
	select {
	case <-n.faucetReady:
		return n.faucet
	default:
		return nil
	}
}
