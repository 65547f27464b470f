#!/usr/bin/env bash
# Compiles the Solidity sources in src/ with the solc pinned in package-lock.json and writes the
# ABI (.abi) and creation bytecode (.bin) of every deployable contract to artifacts/, or to the
# directory given as the first argument (the Go test uses that to check the committed artifacts).
# Written to artifacts/, the ABIs of the contracts the services call on any network go to
# ../abis/ instead (the ones already there), so that the services link no bytecode.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/artifacts}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"

contracts=(
  TestToken
  WrappedEther
  SimpleVault
  AllocatorVault
  ConstantProductPool
  FeeWrapper
  LendingPool
  InterestToken
  NativeStaking
  ProviderStaking
  LiquidStakingToken
  MorphoMarketVault
  GasStation
  BatchDelegate
  # Sigil's swap entry and cross-chain bridge, over Uniswap V3 (below)
  SwapFeeRouter
  SigilBridge
)

# solc's own solcjs, by path: the 0.8.19 compiler installed beside it for Morpho Blue has a solcjs command too.
solcjs=node_modules/solc/solc.js
if [ ! -f "$solcjs" ] || [ ! -d node_modules/solc-0.8.19 ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT

node "$solcjs" --bin --abi --optimize \
  --base-path . --include-path node_modules \
  -o "$build" src/*.sol

# Morpho Blue from @morpho-org/morpho-blue's sources, with the compiler and settings its own build uses (solc 0.8.19,
# via-IR, 999,999 optimizer runs), and the package's interest rate model and oracle mocks.
node - "$out" <<'JS'
const fs = require("fs");
const solc = require("solc-0.8.19");
const out = process.argv[2];
const root = "node_modules/@morpho-org/morpho-blue/";
const units = { MorphoBlue: ["src/Morpho.sol", "Morpho"], MorphoIrmMock: ["src/mocks/IrmMock.sol", "IrmMock"],
  MorphoOracleMock: ["src/mocks/OracleMock.sol", "OracleMock"] };
const sources = {};
for (const [path] of Object.values(units)) sources[path] = { content: fs.readFileSync(root + path, "utf8") };
const input = { language: "Solidity", sources, settings: { viaIR: true, optimizer: { enabled: true, runs: 999999 },
  evmVersion: "paris", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } } };
const result = JSON.parse(solc.compile(JSON.stringify(input), { import: (p) => ({ contents: fs.readFileSync(root + p, "utf8") }) }));
const errors = (result.errors || []).filter((e) => e.severity === "error");
if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
for (const [name, [path, contract]] of Object.entries(units)) {
  const c = result.contracts[path][contract];
  fs.writeFileSync(`${out}/${name}.abi`, JSON.stringify(c.abi));
  fs.writeFileSync(`${out}/${name}.bin`, c.evm.bytecode.object);
}
JS

for name in "${contracts[@]}"; do
  cp "$build/src_${name}_sol_${name}.abi" "$out/$name.abi"
  cp "$build/src_${name}_sol_${name}.bin" "$out/$name.bin"
done

# Aave v3's own compiled contracts, as @aave/core-v3 publishes them (not rebuilt: the point is their exact
# bytecode). Each is written as Aave<Name>.abi and .bin, the library placeholders in the bytecode zeroed, and, for
# a contract that links libraries, Aave<Name>.links: the byte offsets where each library's address goes.
node - "$out" <<'JS'
const fs = require("fs");
const out = process.argv[2];
const root = "node_modules/@aave/core-v3/artifacts/contracts/";
const aave = {
  Pool: "protocol/pool/Pool.sol", PoolConfigurator: "protocol/pool/PoolConfigurator.sol",
  PoolAddressesProvider: "protocol/configuration/PoolAddressesProvider.sol", ACLManager: "protocol/configuration/ACLManager.sol",
  DefaultReserveInterestRateStrategy: "protocol/pool/DefaultReserveInterestRateStrategy.sol",
  AToken: "protocol/tokenization/AToken.sol", StableDebtToken: "protocol/tokenization/StableDebtToken.sol",
  VariableDebtToken: "protocol/tokenization/VariableDebtToken.sol",
  AaveOracle: "misc/AaveOracle.sol", AaveProtocolDataProvider: "misc/AaveProtocolDataProvider.sol",
  MockAggregator: "mocks/oracle/CLAggregators/MockAggregator.sol",
  SupplyLogic: "protocol/libraries/logic/SupplyLogic.sol", BorrowLogic: "protocol/libraries/logic/BorrowLogic.sol",
  LiquidationLogic: "protocol/libraries/logic/LiquidationLogic.sol", EModeLogic: "protocol/libraries/logic/EModeLogic.sol",
  BridgeLogic: "protocol/libraries/logic/BridgeLogic.sol", FlashLoanLogic: "protocol/libraries/logic/FlashLoanLogic.sol",
  PoolLogic: "protocol/libraries/logic/PoolLogic.sol", ConfiguratorLogic: "protocol/libraries/logic/ConfiguratorLogic.sol",
};
const artifactName = (name) => (name.startsWith("Aave") ? name : "Aave" + name);
for (const [name, dir] of Object.entries(aave)) {
  const a = JSON.parse(fs.readFileSync(`${root}${dir}/${name}.json`, "utf8"));
  let code = a.bytecode.replace(/^0x/, "");
  const links = {};
  for (const libs of Object.values(a.linkReferences)) {
    for (const [lib, refs] of Object.entries(libs)) {
      if (!(lib in aave)) throw new Error(`${name} links ${lib}, which is not extracted`);
      links[artifactName(lib)] = refs.map((r) => r.start);
      for (const r of refs) code = code.slice(0, 2 * r.start) + "0".repeat(2 * r.length) + code.slice(2 * (r.start + r.length));
    }
  }
  const base = `${out}/${artifactName(name)}`;
  fs.writeFileSync(`${base}.abi`, JSON.stringify(a.abi));
  fs.writeFileSync(`${base}.bin`, code);
  if (Object.keys(links).length) fs.writeFileSync(`${base}.links`, JSON.stringify(links) + "\n");
}
JS

# Uniswap V3's own compiled contracts, as @uniswap/v3-core 1.0.1 and @uniswap/v3-periphery 1.4.4 publish them (not
# rebuilt: the point is their audited bytecode), written as UniswapV3<Name>.abi and .bin like Aave's above. The pool's
# bytecode is the factory's to deploy; it is kept so that a test checks it hashes to the periphery's POOL_INIT_CODE_HASH.
node - "$out" <<'JS'
const fs = require("fs");
const out = process.argv[2];
const core = "node_modules/@uniswap/v3-core/artifacts/contracts/";
const periphery = "node_modules/@uniswap/v3-periphery/artifacts/contracts/";
const uniswap = {
  UniswapV3Factory: core + "UniswapV3Factory.sol/UniswapV3Factory.json",
  UniswapV3Pool: core + "UniswapV3Pool.sol/UniswapV3Pool.json",
  UniswapV3SwapRouter: periphery + "SwapRouter.sol/SwapRouter.json",
  UniswapV3QuoterV2: periphery + "lens/QuoterV2.sol/QuoterV2.json",
  UniswapV3NonfungiblePositionManager: periphery + "NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  UniswapV3PositionDescriptor: periphery + "NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json",
  UniswapV3NFTDescriptor: periphery + "libraries/NFTDescriptor.sol/NFTDescriptor.json",
};
const libraryArtifact = { NFTDescriptor: "UniswapV3NFTDescriptor" };
for (const [name, path] of Object.entries(uniswap)) {
  const a = JSON.parse(fs.readFileSync(path, "utf8"));
  let code = a.bytecode.replace(/^0x/, "");
  const links = {};
  for (const libs of Object.values(a.linkReferences)) {
    for (const [lib, refs] of Object.entries(libs)) {
      if (!(lib in libraryArtifact)) throw new Error(`${name} links ${lib}, which is not extracted`);
      links[libraryArtifact[lib]] = refs.map((r) => r.start);
      for (const r of refs) code = code.slice(0, 2 * r.start) + "0".repeat(2 * r.length) + code.slice(2 * (r.start + r.length));
    }
  }
  fs.writeFileSync(`${out}/${name}.abi`, JSON.stringify(a.abi));
  fs.writeFileSync(`${out}/${name}.bin`, code);
  if (Object.keys(links).length) fs.writeFileSync(`${out}/${name}.links`, JSON.stringify(links) + "\n");
}
JS

if [ "$out" = "$here/artifacts" ]; then
  for f in ../abis/*.abi; do
    mv "$out/$(basename "$f")" "$f"
  done
fi
