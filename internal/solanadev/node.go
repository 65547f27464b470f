// Package solanadev is Sigil's Solana dev node: a single-validator ledger, in process, that speaks Solana's JSON-RPC
// protocol (the methods a wallet and @solana/web3.js use to fund an account, build, send and confirm a transaction),
// so that sends to Solana can be tried and tested with no cluster, as the EVM dev chain (package chain) does for EVM.
//
// It keeps a real ledger: lamport balances, slots advancing on a timer and with each transaction (one transaction a
// block), the blockhash queue (a blockhash is usable for MaxProcessingAge blocks), a fee of LamportsPerSignature per
// signature, Ed25519 signatures verified over legacy and version 0 messages (parsed by package solana, as the
// runtime's sanitizer would), duplicates refused, rent exemption enforced. Its only program is the System Program's
// Transfer and CreateAccount (Compute Budget instructions are accepted and do nothing): an instruction of any other
// program fails with UnsupportedProgramId, as the runtime answers a program it cannot run. Commitment is by slot
// depth: a transaction is processed in its slot, confirmed ConfirmedDepth slots later, finalized FinalizedDepth slots
// later; balances and account reads are always at the processed state. There is no WebSocket endpoint
// (signatureSubscribe): confirm by polling getSignatureStatuses. Blocks are read with getBlock, getBlocks and
// getBlocksWithLimit (see blocks.go for the skipped slots and the blocks kept).
package solanadev

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/sigil/sigil/internal/solana"
)

// DefaultListenAddr is where `sigil up` serves the dev node's JSON-RPC.
const DefaultListenAddr = "127.0.0.1:8899"

// faucetLamports is what the faucet holds at genesis: 500 million SOL.
const faucetLamports = 500_000_000 * 1_000_000_000

// Config configures a node.
type Config struct {
	ListenAddr string        // default DefaultListenAddr
	SlotPeriod time.Duration // how often a block is produced with no transaction (default 400 ms, mainnet's)
	// StateFile keeps the ledger (genesis, balances, transactions) across restarts; "" keeps it in memory, and each
	// start is a new genesis.
	StateFile string
	Logger    *slog.Logger
	Now       func() time.Time
}

// state is what the node persists.
type state struct {
	Seed     []byte                  `json:"seed"` // the genesis hash and the faucet's key derive from it
	Slot     uint64                  `json:"slot"`
	Accounts map[solana.Key]*Account `json:"accounts"`
	Txs      map[string]*TxRecord    `json:"transactions"` // by first signature, base58
	// Skipped are the slots without a block (see blocks.go); FirstBlock the oldest block the node still keeps.
	Skipped    []slotRange `json:"skipped,omitempty"`
	FirstBlock uint64      `json:"firstBlock,omitempty"`
	// Running is set while a node runs over the file: found set at a start, the last run ended without saving.
	Running bool  `json:"running,omitempty"`
	SavedAt int64 `json:"savedAt"` // unix milliseconds
}

// Node is a running dev node.
type Node struct {
	cfg     Config
	mu      sync.Mutex
	st      state
	genesis solana.Key
	faucet  ed25519.PrivateKey
	bySlot  map[uint64]string // the remembered transactions' signatures by slot
	srv     *http.Server
	url     string
	stop    context.CancelFunc
	done    chan struct{}
}

// Start opens (or creates) the ledger and serves its JSON-RPC until Close.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	cfg.SlotPeriod = cmp.Or(cfg.SlotPeriod, 400*time.Millisecond)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	n := &Node{cfg: cfg, done: make(chan struct{})}
	if err := n.load(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cmp.Or(cfg.ListenAddr, DefaultListenAddr))
	if err != nil {
		return nil, fmt.Errorf("solana dev node: %w", err)
	}
	n.url = "http://" + ln.Addr().String()
	n.srv = &http.Server{Handler: n.Handler(), ReadHeaderTimeout: 10 * time.Second}
	tickCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	n.stop = stop
	go func() { _ = n.srv.Serve(ln) }()
	go n.tick(tickCtx)
	return n, nil
}

// URL is the JSON-RPC endpoint.
func (n *Node) URL() string { return n.url }

// GenesisHash is the ledger's genesis hash, base58.
func (n *Node) GenesisHash() string { return n.genesis.String() }

// CAIP2 is the network's CAIP-2 id: solana: and the first 32 characters of the genesis hash.
func (n *Node) CAIP2() string { return "solana:" + n.GenesisHash()[:32] }

// Faucet is the address requestAirdrop pays from.
func (n *Node) Faucet() string { return solana.Key(n.faucet.Public().(ed25519.PublicKey)).String() }

// Close stops serving and saves the ledger.
func (n *Node) Close() error {
	n.stop()
	<-n.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := n.srv.Shutdown(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.st.Running = false
	return errors.Join(err, n.save())
}

// tick produces a block each SlotPeriod.
func (n *Node) tick(ctx context.Context) {
	defer close(n.done)
	t := time.NewTicker(n.cfg.SlotPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n.mu.Lock()
			n.st.Slot++
			n.mu.Unlock()
		}
	}
}

// load reads the state file, or makes a genesis: a random seed, the faucet funded.
func (n *Node) load() error {
	n.st = state{Accounts: map[solana.Key]*Account{}, Txs: map[string]*TxRecord{}}
	if n.cfg.StateFile != "" {
		b, err := os.ReadFile(n.cfg.StateFile)
		switch {
		case err == nil:
			if err := json.Unmarshal(b, &n.st); err != nil {
				return fmt.Errorf("solana dev node: %s: %w", n.cfg.StateFile, err)
			}
		case !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("solana dev node: %w", err)
		}
	}
	fresh := len(n.st.Seed) == 0
	if fresh {
		n.st.Seed = make([]byte, 32)
		rand.Read(n.st.Seed)
	}
	n.genesis = sha256.Sum256(append([]byte("sigil-solana-dev genesis"), n.st.Seed...))
	faucetSeed := sha256.Sum256(append([]byte("sigil-solana-dev faucet"), n.st.Seed...))
	n.faucet = ed25519.NewKeyFromSeed(faucetSeed[:])
	n.indexBlocks()
	if fresh {
		n.st.Accounts[solana.Key(n.faucet.Public().(ed25519.PublicKey))] = &Account{Lamports: faucetLamports}
	} else {
		n.skip(n.downSlots())
	}
	n.st.Running = true
	return n.save()
}

// downSlots are the slots a start skips: the one the node was down for, and after a run that ended without saving
// (killed), as many more as that run may have produced since its last save — slots come each SlotPeriod, and it can
// have run no later than now, at this run's period — so that no slot a client saw is produced again.
func (n *Node) downSlots() uint64 {
	if !n.st.Running {
		return 1
	}
	since := n.cfg.Now().Sub(time.UnixMilli(n.st.SavedAt))
	return 1 + uint64(max(since, 0)/n.cfg.SlotPeriod) + 1
}

// save writes the ledger to its state file (none: nothing), replacing it whole. The caller holds mu.
func (n *Node) save() error {
	if n.cfg.StateFile == "" {
		return nil
	}
	n.st.SavedAt = n.cfg.Now().UnixMilli()
	b, err := json.Marshal(&n.st)
	if err != nil {
		return err
	}
	tmp := n.cfg.StateFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, n.cfg.StateFile)
}

// Bootstrap is what `sigil up` records of the node in bootstrap.json.
type Bootstrap struct {
	RPCURL      string `json:"rpcUrl"`
	CAIP2       string `json:"caip2"`
	GenesisHash string `json:"genesisHash"`
	// Faucet is the account requestAirdrop pays from.
	Faucet string `json:"faucet"`
}

// Bootstrap describes the running node.
func (n *Node) Bootstrap() Bootstrap {
	return Bootstrap{RPCURL: n.URL(), CAIP2: n.CAIP2(), GenesisHash: n.GenesisHash(), Faucet: n.Faucet()}
}
