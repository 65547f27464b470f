// Package contracts holds the Solidity fixtures of the Sigil dev chain: their compiled ABIs and
// bytecode (embedded, so building Sigil needs no Node.js), the names under which they are deployed,
// and the deployment itself. Nothing here assumes the embedded node: every function takes the
// go-ethereum interfaces any JSON-RPC client satisfies.
//
// The sources are in src/ and are compiled by build.sh; the artifacts in artifacts/ are committed
// and TestArtifactsMatchSources checks that they are what build.sh produces.
package contracts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// Names of the compiled contracts (artifacts).
const (
	TestToken           = "TestToken"
	WrappedEther        = "WrappedEther"
	SimpleVault         = "SimpleVault"
	AllocatorVault      = "AllocatorVault"
	ConstantProductPool = "ConstantProductPool"
	FeeWrapper          = "FeeWrapper"
	LendingPool         = "LendingPool"
	InterestToken       = "InterestToken"
	NativeStaking       = "NativeStaking"
	ProviderStaking     = "ProviderStaking"
	LiquidStakingToken  = "LiquidStakingToken"
	MorphoMarketVault   = "MorphoMarketVault"
	BatchDelegate       = "BatchDelegate"
	GasStation          = "GasStation"
)

// Names of Uniswap V3's artifacts, taken as @uniswap/v3-core and @uniswap/v3-periphery publish them (see build.sh),
// and of Sigil's own contracts over them.
const (
	UniswapV3Factory            = "UniswapV3Factory"
	UniswapV3Pool               = "UniswapV3Pool"
	UniswapV3SwapRouter         = "UniswapV3SwapRouter"
	UniswapV3QuoterV2           = "UniswapV3QuoterV2"
	UniswapV3PositionManager    = "UniswapV3NonfungiblePositionManager"
	UniswapV3PositionDescriptor = "UniswapV3PositionDescriptor"
	UniswapV3NFTDescriptor      = "UniswapV3NFTDescriptor"
	SwapFeeRouter               = "SwapFeeRouter"
	SigilBridge                 = "SigilBridge"
)

// Names of Morpho Blue's artifacts, compiled from @morpho-org/morpho-blue's sources (see build.sh).
const (
	MorphoBlue       = "MorphoBlue"
	MorphoIrmMock    = "MorphoIrmMock"
	MorphoOracleMock = "MorphoOracleMock"
)

// Names of Aave v3's own artifacts, taken as @aave/core-v3 publishes them (see build.sh).
const (
	AavePool                         = "AavePool"
	AavePoolConfigurator             = "AavePoolConfigurator"
	AavePoolAddressesProvider        = "AavePoolAddressesProvider"
	AaveACLManager                   = "AaveACLManager"
	AaveInterestRateStrategy         = "AaveDefaultReserveInterestRateStrategy"
	AaveAToken                       = "AaveAToken"
	AaveStableDebtToken              = "AaveStableDebtToken"
	AaveVariableDebtToken            = "AaveVariableDebtToken"
	AaveOracle                       = "AaveOracle"
	AaveProtocolDataProvider         = "AaveProtocolDataProvider"
	AaveMockAggregator               = "AaveMockAggregator"
	AaveSupplyLogic, AaveBorrowLogic = "AaveSupplyLogic", "AaveBorrowLogic"
	AaveLiquidationLogic             = "AaveLiquidationLogic"
	AaveEModeLogic, AaveBridgeLogic  = "AaveEModeLogic", "AaveBridgeLogic"
	AaveFlashLoanLogic               = "AaveFlashLoanLogic"
	AavePoolLogic                    = "AavePoolLogic"
	AaveConfiguratorLogic            = "AaveConfiguratorLogic"
)

// The bytecode of every artifact, and the ABIs package abis does not hold (see abiJSON).
//
//go:embed artifacts/*.abi artifacts/*.bin artifacts/*.links
var artifactFiles embed.FS

// Artifact is one compiled contract: its ABI and its creation bytecode.
type Artifact struct {
	Name     string
	ABI      abi.ABI
	Bytecode []byte
	// Links are the byte offsets in Bytecode where the address of each library (by artifact name) goes; the
	// bytecode cannot be deployed before Link has filled them.
	Links map[string][]int
}

var (
	loadOnce  sync.Once
	loaded    map[string]*Artifact
	loadError error
)

// Load returns the artifact named name (one of the constants above).
func Load(name string) (*Artifact, error) {
	loadOnce.Do(func() { loaded, loadError = loadAll() })
	if loadError != nil {
		return nil, loadError
	}
	a, ok := loaded[name]
	if !ok {
		return nil, fmt.Errorf("contracts: no artifact named %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return a, nil
}

// MustLoad is Load for names known at compile time; it panics on an unknown name.
func MustLoad(name string) *Artifact {
	a, err := Load(name)
	if err != nil {
		panic(err)
	}
	return a
}

// Names lists the embedded artifacts, sorted.
func Names() []string {
	entries, _ := artifactFiles.ReadDir("artifacts")
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".bin"); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// abiJSON is the ABI of the artifact named name: in package abis when the services call that contract on any network,
// beside its bytecode otherwise.
func abiJSON(name string) ([]byte, error) {
	if data, ok := abis.JSON(name); ok {
		return data, nil
	}
	return artifactFiles.ReadFile("artifacts/" + name + ".abi")
}

// Fingerprint is a digest of every embedded artifact (ABI and bytecode). The dev chain records it with a deployment
// and deploys the fixtures again when it changes, since contracts deployed from other artifacts may lack functions
// the rest of Sigil calls.
func Fingerprint() string {
	fingerprintOnce.Do(func() {
		h := sha256.New()
		for _, name := range Names() {
			abiData, _ := abiJSON(name)
			binData, _ := artifactFiles.ReadFile("artifacts/" + name + ".bin")
			linksData, _ := artifactFiles.ReadFile("artifacts/" + name + ".links")
			for _, f := range []struct {
				ext  string
				data []byte
			}{{".abi", abiData}, {".bin", binData}, {".links", linksData}} {
				fmt.Fprintf(h, "%s%s %d\n", name, f.ext, len(f.data))
				h.Write(f.data)
			}
		}
		fingerprint = hex.EncodeToString(h.Sum(nil))
	})
	return fingerprint
}

var (
	fingerprintOnce sync.Once
	fingerprint     string
)

func loadAll() (map[string]*Artifact, error) {
	all := make(map[string]*Artifact)
	for _, name := range Names() {
		abiData, err := abiJSON(name)
		if err != nil {
			return nil, err
		}
		parsed, err := abi.JSON(bytes.NewReader(abiData))
		if err != nil {
			return nil, fmt.Errorf("contracts: parse ABI of %s: %w", name, err)
		}
		binHex, err := artifactFiles.ReadFile("artifacts/" + name + ".bin")
		if err != nil {
			return nil, err
		}
		code, err := hex.DecodeString(strings.TrimSpace(string(binHex)))
		if err != nil {
			return nil, fmt.Errorf("contracts: decode bytecode of %s: %w", name, err)
		}
		a := &Artifact{Name: name, ABI: parsed, Bytecode: code}
		if links, err := artifactFiles.ReadFile("artifacts/" + name + ".links"); err == nil {
			if err := json.Unmarshal(links, &a.Links); err != nil {
				return nil, fmt.Errorf("contracts: parse library links of %s: %w", name, err)
			}
		}
		all[name] = a
	}
	return all, nil
}

// Link returns a copy of the artifact with every library's address written where its bytecode calls it.
func (a *Artifact) Link(libraries map[string]common.Address) (*Artifact, error) {
	linked := *a
	linked.Bytecode = bytes.Clone(a.Bytecode)
	linked.Links = nil
	for lib, offsets := range a.Links {
		addr, ok := libraries[lib]
		if !ok {
			return nil, fmt.Errorf("contracts: %s needs library %s, which was not given", a.Name, lib)
		}
		for _, at := range offsets {
			copy(linked.Bytecode[at:at+common.AddressLength], addr.Bytes())
		}
	}
	return &linked, nil
}

// Pack builds the calldata of a call to method.
func (a *Artifact) Pack(method string, args ...any) ([]byte, error) {
	data, err := a.ABI.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("contracts: pack %s.%s: %w", a.Name, method, err)
	}
	return data, nil
}

// DeployData is the data of a contract-creation transaction: bytecode then constructor arguments.
func (a *Artifact) DeployData(args ...any) ([]byte, error) {
	if len(a.Links) > 0 {
		return nil, fmt.Errorf("contracts: %s calls libraries; Link it to their addresses before deploying", a.Name)
	}
	ctorArgs, err := a.ABI.Pack("", args...)
	if err != nil {
		return nil, fmt.Errorf("contracts: pack constructor of %s: %w", a.Name, err)
	}
	return append(append([]byte{}, a.Bytecode...), ctorArgs...), nil
}

// Call runs a read-only call (eth_call at the latest block) and returns the decoded outputs.
func (a *Artifact) Call(ctx context.Context, caller bind.ContractCaller, to common.Address, method string, args ...any) ([]any, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	out, err := caller.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return nil, fmt.Errorf("contracts: call %s.%s at %s: %w", a.Name, method, to, err)
	}
	values, err := a.ABI.Unpack(method, out)
	if err != nil {
		return nil, fmt.Errorf("contracts: decode %s.%s from %s: %w", a.Name, method, to, err)
	}
	return values, nil
}

// Bind returns a go-ethereum bound contract at address for calls, transactions and logs.
func (a *Artifact) Bind(address common.Address, backend bind.ContractBackend) *bind.BoundContract {
	return bind.NewBoundContract(address, a.ABI, backend, backend, backend)
}
