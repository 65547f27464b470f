#!/usr/bin/env bash
# Compiles the Solidity sources in src/ with the solc pinned in package-lock.json and writes the
# ABI (.abi) and creation bytecode (.bin) of every deployable contract to artifacts/, or to the
# directory given as the first argument (the Go test uses that to check the committed artifacts).
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
  GasStation
  BatchDelegate
)

if [ ! -x node_modules/.bin/solcjs ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT

node_modules/.bin/solcjs --bin --abi --optimize \
  --base-path . --include-path node_modules \
  -o "$build" src/*.sol

for name in "${contracts[@]}"; do
  cp "$build/src_${name}_sol_${name}.abi" "$out/$name.abi"
  cp "$build/src_${name}_sol_${name}.bin" "$out/$name.bin"
done
