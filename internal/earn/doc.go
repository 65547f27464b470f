// Package earn is what the coordinator's Earn activities need to speak to the Earn contracts on any network: the
// catalogue of curated vaults and each network's Earn deployment (its wrapper factory, reward distributor and rewards
// API), what the vaults publish on chain (TVL, APY, liquidity, exposures), the calls that deploy wrappers and move
// funds through them, and the reward trees Merkl publishes (and the dev chain's simulator, which plays Merkl). It
// links no dev-chain code: the dev chain's catalogue is made beside the dev chain (internal/chain/devearn).
package earn
