// Package chain runs the Sigil dev chain: an embedded go-ethereum node in dev mode (the simulated
// beacon of `geth --dev`: real EVM, real JSON-RPC over HTTP on loopback, a block as soon as a
// transaction arrives), with the fixtures of package contracts deployed at its first start, a
// faucet and a yield simulator. It is for development only; pointed at a real network, Sigil uses
// an RPC URL instead and none of this runs.
package chain

import (
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"time"

	"github.com/sigil/sigil/internal/contracts"
)

// NetworkID and NetworkName are the network id and the name a dev chain announces in bootstrap.json unless configured
// otherwise.
const (
	NetworkID   = "sigil-dev"
	NetworkName = "Sigil dev chain"
)

// Defaults.
const (
	DefaultListenAddr = "127.0.0.1:8545"
	DefaultChainID    = 1337
	DefaultGasLimit   = 60_000_000
	// DefaultFaucetMaxETH and DefaultFaucetMaxToken cap one faucet request, in whole units.
	DefaultFaucetMaxETH   = "100"
	DefaultFaucetMaxToken = "1000000"
)

// Config configures the dev chain. The zero value is a usable ephemeral chain on
// DefaultListenAddr.
type Config struct {
	// DataDir keeps the chain (state, blocks, dev key, deployment record). Empty: in memory only,
	// everything is lost on Close.
	DataDir string
	// ListenAddr is the host:port of JSON-RPC (at "/") and of the faucet (at "/faucet"). Port 0
	// picks a free port. Only loopback hosts are accepted unless AllowNonLoopback is set.
	ListenAddr       string
	AllowNonLoopback bool // also accepts any Host header on JSON-RPC
	// CORSOrigins lists the browser origins allowed to call JSON-RPC (none by default).
	CORSOrigins []string
	// ChainID defaults to 1337. It cannot change for an existing DataDir.
	ChainID int64
	// NetworkID names the chain to the yield service (default NetworkID), Name to people (default NetworkName); a
	// second dev chain needs its own.
	NetworkID, Name string
	// RPCURL, when set, is an existing node's JSON-RPC endpoint (Anvil, Hardhat, a geth --dev) used instead of an
	// embedded one: the fixtures are deployed there from the dev account (Anvil's account 0, which such nodes fund),
	// the faucet and the simulator send there, and only the faucet listens on ListenAddr. ChainID is the node's.
	RPCURL string
	// BlockPeriod, if positive, also seals a block every period, so block numbers and timestamps
	// move without transactions. Blocks are always sealed as soon as transactions arrive.
	BlockPeriod time.Duration
	// Faucet caps what one request may ask for.
	Faucet FaucetConfig
	// Fixtures parameterises the contracts deployed at the first start.
	Fixtures contracts.Config
	// Simulator makes yield accrue on a period.
	Simulator SimulatorConfig
	// KeeperPeriod, if positive, runs the dev liquidator (Keeper) on this period.
	KeeperPeriod time.Duration
	// Logger receives the dev chain's own log lines (go-ethereum's logs are not forwarded).
	// Defaults to slog.Default().
	Logger *slog.Logger
}

// FaucetConfig caps one faucet request; amounts are decimal strings in whole units.
type FaucetConfig struct {
	MaxETH string // default DefaultFaucetMaxETH
	// MaxTokens caps per token (fixture name, e.g. "USDC"); tokens not listed are capped at
	// DefaultFaucetMaxToken.
	MaxTokens map[string]string
}

func (c Config) withDefaults() Config {
	if c.ListenAddr == "" {
		c.ListenAddr = DefaultListenAddr
	}
	if c.ChainID == 0 {
		c.ChainID = DefaultChainID
	}
	if c.NetworkID == "" {
		c.NetworkID = NetworkID
	}
	if c.Name == "" {
		c.Name = NetworkName
	}
	if c.Faucet.MaxETH == "" {
		c.Faucet.MaxETH = DefaultFaucetMaxETH
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.Simulator = c.Simulator.withDefaults()
	return c
}

func (c Config) validate() (host string, port int, err error) {
	host, portText, err := net.SplitHostPort(c.ListenAddr)
	if err != nil {
		return "", 0, fmt.Errorf("chain: listen address %q is not host:port: %w", c.ListenAddr, err)
	}
	port, err = strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("chain: listen address %q has no valid port", c.ListenAddr)
	}
	if !c.AllowNonLoopback && !isLoopback(host) {
		return "", 0, fmt.Errorf("chain: listen address %q is not loopback; the dev chain's faucet and dev API must not be reachable from other machines (set AllowNonLoopback to override)", c.ListenAddr)
	}
	if c.ChainID < 0 {
		return "", 0, fmt.Errorf("chain: chain id %d is negative", c.ChainID)
	}
	if c.BlockPeriod < 0 || c.Simulator.Period < 0 || c.KeeperPeriod < 0 {
		return "", 0, fmt.Errorf("chain: block, simulator and keeper periods must not be negative")
	}
	if w := c.Simulator.PriceWalkBps; w < 0 || w > 5_000 {
		return "", 0, fmt.Errorf("chain: the price walk is %d bps a step; it must be from 0 (off) to 5000 (50%%)", w)
	}
	return host, port, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c Config) chainID() *big.Int { return big.NewInt(c.ChainID) }
