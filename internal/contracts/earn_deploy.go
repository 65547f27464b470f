package contracts

import "math/big"

// EarnPlatformFeeBps is the platform's fee on the yield of every Earn wrapper the dev chain's factory deploys, as the
// reference takes by default (10% of the yield); the platform's wallet is the fixtures' fee recipient.
const EarnPlatformFeeBps = 1000

// earn deploys, after every other fixture so that they keep their addresses, what Earn needs on the dev chain: the
// wrapper factory with the platform's fee, the reward distributor (whose roots the dev account publishes: the
// simulator plays Merkl) and the reward token it pays, MORPHO, minted to it as rewards are published.
func (d *deployer) earn() {
	owner := d.s.Address()
	d.deploy(RewardToken, TestToken, "Morpho Token (Sigil dev)", "MORPHO", uint8(18), owner)
	d.deploy(EarnFactory, EarnWrapperFactory, d.cfg.FeeRecipient, big.NewInt(EarnPlatformFeeBps))
	d.deploy(EarnDistributor, EarnRewardDistributor, owner)
}
