package api

// Earn: fee wrappers in front of curated Morpho vaults and Aave v3 reserves, deposits into them and withdrawals, the
// fees and rewards they pay, in @turnkey/http 6.6.0's shapes. Amounts are decimal strings in base units of their
// token; percentages are decimal fractions ("0.0812" is 8.12%); *Display fields are for display only.

// The providers of Earn's vaults.
const (
	EarnProviderMorpho = "EARN_PROVIDER_MORPHO"
	EarnProviderAave   = "EARN_PROVIDER_AAVE"
)

// The states of an Earn request (a deployment, deposit, withdrawal or claim): PENDING until its transaction is in a
// block, then COMPLETED, or FAILED with the reason.
const (
	EarnStatusPending   = "PENDING"
	EarnStatusCompleted = "COMPLETED"
	EarnStatusFailed    = "FAILED"
)

// EarnWithdrawMax is EarnWithdrawIntent.AmountValue for the whole position: the exact share balance is redeemed.
const EarnWithdrawMax = "MAX"

// EarnDeployWrapperIntent is ACTIVITY_TYPE_EARN_DEPLOY_WRAPPER: a vault of the catalogue enabled for the organization
// by deploying its fee wrapper, with the client's fee on the yield (at most 4,000 bps) paid to one of its wallets.
type EarnDeployWrapperIntent struct {
	VaultAddress    string `json:"vaultAddress"`
	ChainCaip2      string `json:"chainCaip2"`
	ClientFeeBps    string `json:"clientFeeBps"`
	ClientFeeWallet string `json:"clientFeeWallet"`
}

// EarnDeployWrapperResult names the wrapper and splitter (known before the deployment is mined) and the deployment.
type EarnDeployWrapperResult struct {
	WrapperAddress  string `json:"wrapperAddress"`
	SplitterAddress string `json:"splitterAddress"`
	DeployRequestID string `json:"deployRequestId"`
}

// EarnSetWrapperStateIntent is ACTIVITY_TYPE_EARN_SET_WRAPPER_STATE: deposits to a wrapper paused or resumed.
type EarnSetWrapperStateIntent struct {
	WrapperAddress   string `json:"wrapperAddress"`
	DepositsDisabled bool   `json:"depositsDisabled"`
}

// EarnSetWrapperStateResult is the wrapper's deposit state after the activity.
type EarnSetWrapperStateResult struct {
	WrapperAddress   string `json:"wrapperAddress"`
	DepositsDisabled bool   `json:"depositsDisabled"`
}

// EarnDepositIntent is ACTIVITY_TYPE_EARN_DEPOSIT: assets of a wallet deposited into one of the organization's
// wrappers, the approval and the deposit in one transaction.
type EarnDepositIntent struct {
	WrapperAddress string `json:"wrapperAddress"`
	SignWith       string `json:"signWith"`
	Assets         string `json:"assets"`
	ChainCaip2     string `json:"chainCaip2"`
	Sponsor        *bool  `json:"sponsor,omitempty"`
}

// EarnDepositResult names the deposit, polled with get_earn_deposit_status.
type EarnDepositResult struct {
	DepositRequestID string `json:"depositRequestId"`
}

// EarnWithdrawIntent is ACTIVITY_TYPE_EARN_WITHDRAW: an amount of the underlying asset (or MAX, the whole position)
// withdrawn from a wrapper to the wallet that holds the position.
type EarnWithdrawIntent struct {
	WrapperAddress string `json:"wrapperAddress"`
	SignWith       string `json:"signWith"`
	ChainCaip2     string `json:"chainCaip2"`
	Sponsor        *bool  `json:"sponsor,omitempty"`
	AmountValue    string `json:"amountValue"`
}

// EarnWithdrawResult names the withdrawal, polled with get_earn_withdraw_status.
type EarnWithdrawResult struct {
	WithdrawRequestID string `json:"withdrawRequestId"`
}

// EarnClaimRewardsIntent is ACTIVITY_TYPE_EARN_CLAIM_REWARDS: every reward claimable now by a wallet on a chain,
// claimed from the reward distributor with the wallet's proofs and paid to it.
type EarnClaimRewardsIntent struct {
	SignWith   string `json:"signWith"`
	ChainCaip2 string `json:"chainCaip2"`
	Sponsor    *bool  `json:"sponsor,omitempty"`
}

// EarnClaimRewardsResult names the claim, polled with get_earn_claim_rewards_status.
type EarnClaimRewardsResult struct {
	ClaimRequestID string `json:"claimRequestId"`
}

// ClaimEarnFeesIntent is ACTIVITY_TYPE_CLAIM_EARN_FEES: the client's fees of a wrapper released from its splitter to
// the client's fee wallet, in the underlying asset.
type ClaimEarnFeesIntent struct {
	WrapperAddress string `json:"wrapperAddress"`
}

// ClaimEarnFeesResult names the claim, polled with get_claim_earn_fees_status.
type ClaimEarnFeesResult struct {
	ClaimRequestID string `json:"claimRequestId"`
}

// The status queries: each names its request by the id its activity returned.
type (
	GetEarnDeployStatusRequest struct {
		OrganizationID  string `json:"organizationId"`
		DeployRequestID string `json:"deployRequestId"`
	}
	GetEarnDeployStatusResponse struct {
		Status       string `json:"status"`
		DeployTxHash string `json:"deployTxHash,omitempty"`
		Error        string `json:"error,omitempty"`
	}
	GetEarnDepositStatusRequest struct {
		OrganizationID   string `json:"organizationId"`
		DepositRequestID string `json:"depositRequestId"`
	}
	GetEarnDepositStatusResponse struct {
		Status        string `json:"status"`
		DepositTxHash string `json:"depositTxHash,omitempty"`
		Error         string `json:"error,omitempty"`
	}
	GetEarnWithdrawStatusRequest struct {
		OrganizationID    string `json:"organizationId"`
		WithdrawRequestID string `json:"withdrawRequestId"`
	}
	GetEarnWithdrawStatusResponse struct {
		Status         string `json:"status"`
		WithdrawTxHash string `json:"withdrawTxHash,omitempty"`
		Error          string `json:"error,omitempty"`
	}
	GetEarnClaimRewardsStatusRequest struct {
		OrganizationID string `json:"organizationId"`
		ClaimRequestID string `json:"claimRequestId"`
	}
	GetEarnClaimRewardsStatusResponse struct {
		Status      string `json:"status"`
		ClaimTxHash string `json:"claimTxHash,omitempty"`
		Error       string `json:"error,omitempty"`
	}
	GetClaimEarnFeesStatusRequest struct {
		OrganizationID string `json:"organizationId"`
		ClaimRequestID string `json:"claimRequestId"`
	}
	GetClaimEarnFeesStatusResponse struct {
		Status      string `json:"status"`
		ClaimTxHash string `json:"claimTxHash,omitempty"`
		Error       string `json:"error,omitempty"`
	}
)

// EarnValueDisplay is an amount in USD and in the asset's own units, for display only.
type EarnValueDisplay struct {
	USD    string `json:"usd,omitempty"`
	Crypto string `json:"crypto,omitempty"`
}

// ListEarnVaultsRequest asks for the catalogue of vaults of one asset (a CAIP-19 id; the chain is the id's).
type ListEarnVaultsRequest struct {
	OrganizationID    string      `json:"organizationId"`
	Provider          string      `json:"provider,omitempty"`
	Caip19            string      `json:"caip19"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
}

// ListEarnVaultsResponse is the catalogue, by TVL in USD, largest first.
type ListEarnVaultsResponse struct {
	Vaults   []EarnVault `json:"vaults"`
	PageInfo *PageInfo   `json:"pageInfo,omitempty"`
}

// EarnVault is one vault of the catalogue, with what it publishes on chain now.
type EarnVault struct {
	VaultAddress                       string            `json:"vaultAddress"`
	Provider                           string            `json:"provider"`
	Caip19                             string            `json:"caip19"`
	TVL                                string            `json:"tvl"`
	APYPct                             string            `json:"apyPct"`
	Enabled                            bool              `json:"enabled"`
	Display                            *EarnValueDisplay `json:"display,omitempty"`
	Name                               string            `json:"name,omitempty"`
	Curator                            string            `json:"curator,omitempty"`
	Liquidity                          string            `json:"liquidity,omitempty"`
	LiquidityDisplay                   *EarnValueDisplay `json:"liquidityDisplay,omitempty"`
	ForceDeallocatableLiquidity        string            `json:"forceDeallocatableLiquidity,omitempty"`
	ForceDeallocatableLiquidityDisplay *EarnValueDisplay `json:"forceDeallocatableLiquidityDisplay,omitempty"`
}

// ListEarnEnabledVaultsRequest asks for the organization's wrappers, of a provider or an asset if given.
type ListEarnEnabledVaultsRequest struct {
	OrganizationID  string `json:"organizationId"`
	Provider        string `json:"provider,omitempty"`
	Caip19          string `json:"caip19,omitempty"`
	IncludeExposure *bool  `json:"includeExposure,omitempty"`
}

// ListEarnEnabledVaultsResponse is the organization's wrappers.
type ListEarnEnabledVaultsResponse struct {
	EnabledVaults []EarnEnabledVault `json:"enabledVaults"`
}

// EarnEnabledVault is one wrapper of the organization: its vault, fees, deposits through it, and its deployment.
type EarnEnabledVault struct {
	VaultAddress                       string              `json:"vaultAddress"`
	WrapperAddress                     string              `json:"wrapperAddress"`
	Provider                           string              `json:"provider"`
	Caip19                             string              `json:"caip19"`
	APYPct                             string              `json:"apyPct"`
	TotalDeposited                     string              `json:"totalDeposited"`
	Display                            *EarnValueDisplay   `json:"display,omitempty"`
	NetAPYPct                          string              `json:"netApyPct"`
	ClientFeeBps                       string              `json:"clientFeeBps"`
	DepositsDisabled                   bool                `json:"depositsDisabled"`
	Name                               string              `json:"name,omitempty"`
	Curator                            string              `json:"curator,omitempty"`
	ClaimableClientFee                 string              `json:"claimableClientFee,omitempty"`
	ClaimableClientFeeDisplay          *EarnValueDisplay   `json:"claimableClientFeeDisplay,omitempty"`
	ClientFeeWallet                    string              `json:"clientFeeWallet,omitempty"`
	Liquidity                          string              `json:"liquidity,omitempty"`
	LiquidityDisplay                   *EarnValueDisplay   `json:"liquidityDisplay,omitempty"`
	Exposures                          []EarnVaultExposure `json:"exposures,omitempty"`
	ForceDeallocatableLiquidity        string              `json:"forceDeallocatableLiquidity,omitempty"`
	ForceDeallocatableLiquidityDisplay *EarnValueDisplay   `json:"forceDeallocatableLiquidityDisplay,omitempty"`
	DeployStatus                       string              `json:"deployStatus,omitempty"`
	DeployRequestID                    string              `json:"deployRequestId,omitempty"`
	DeployError                        string              `json:"deployError,omitempty"`
}

// EarnVaultExposure is one Morpho Blue market a vault supplies to.
type EarnVaultExposure struct {
	MarketID         string            `json:"marketId"`
	CollateralSymbol string            `json:"collateralSymbol,omitempty"`
	CollateralCaip19 string            `json:"collateralCaip19,omitempty"`
	LLTVPct          string            `json:"lltvPct"`
	Supplied         string            `json:"supplied"`
	Display          *EarnValueDisplay `json:"display,omitempty"`
	SharePct         string            `json:"sharePct"`
}

// ListEarnPositionsRequest asks for a wallet's positions.
type ListEarnPositionsRequest struct {
	OrganizationID string `json:"organizationId"`
	WalletAddress  string `json:"walletAddress"`
}

// ListEarnPositionsResponse is the wallet's positions, one per wrapper it holds shares of.
type ListEarnPositionsResponse struct {
	Positions []EarnPosition `json:"positions"`
}

// EarnPosition is a wallet's position in one wrapper: what it is worth now (net of the wrapper's fees), and what was
// deposited and withdrawn since it was opened (or since the last MAX withdrawal).
type EarnPosition struct {
	VaultAddress     string               `json:"vaultAddress"`
	WrapperAddress   string               `json:"wrapperAddress"`
	Provider         string               `json:"provider"`
	Caip19           string               `json:"caip19"`
	CurrentValue     string               `json:"currentValue"`
	TotalDeposited   string               `json:"totalDeposited"`
	TotalWithdrawn   string               `json:"totalWithdrawn"`
	Display          *EarnPositionDisplay `json:"display,omitempty"`
	DepositsDisabled bool                 `json:"depositsDisabled"`
}

// EarnPositionDisplay is a position's amounts in USD and in the asset's units, for display only.
type EarnPositionDisplay struct {
	CurrentValueUSD      string `json:"currentValueUsd,omitempty"`
	TotalDepositedUSD    string `json:"totalDepositedUsd,omitempty"`
	TotalWithdrawnUSD    string `json:"totalWithdrawnUsd,omitempty"`
	CurrentValueCrypto   string `json:"currentValueCrypto,omitempty"`
	TotalDepositedCrypto string `json:"totalDepositedCrypto,omitempty"`
	TotalWithdrawnCrypto string `json:"totalWithdrawnCrypto,omitempty"`
}

// ListEarnRewardsRequest asks for a wallet's rewards, on one chain or on every chain the organization has wrappers on.
type ListEarnRewardsRequest struct {
	OrganizationID string `json:"organizationId"`
	WalletAddress  string `json:"walletAddress"`
	Caip2          string `json:"caip2,omitempty"`
}

// ListEarnRewardsResponse is the wallet's rewards, one per chain and token, sorted by chain then token; all-zero
// entries are left out.
type ListEarnRewardsResponse struct {
	Rewards []EarnReward `json:"rewards"`
}

// EarnReward is a wallet's reward in one token on one chain.
type EarnReward struct {
	Caip2     string             `json:"caip2"`
	Caip19    string             `json:"caip19"`
	Symbol    string             `json:"symbol,omitempty"`
	Decimals  int                `json:"decimals"`
	Claimable string             `json:"claimable"`
	Claimed   string             `json:"claimed"`
	Pending   string             `json:"pending"`
	Display   *EarnRewardDisplay `json:"display,omitempty"`
}

// EarnRewardDisplay is a reward's amounts in USD (empty when the token is unpriced) and in its units.
type EarnRewardDisplay struct {
	ClaimableUSD    string `json:"claimableUsd,omitempty"`
	ClaimableCrypto string `json:"claimableCrypto,omitempty"`
	ClaimedUSD      string `json:"claimedUsd,omitempty"`
	ClaimedCrypto   string `json:"claimedCrypto,omitempty"`
	PendingUSD      string `json:"pendingUsd,omitempty"`
	PendingCrypto   string `json:"pendingCrypto,omitempty"`
}

// The activity types and queries of Earn.
var (
	EarnDeployWrapper   = activity[EarnDeployWrapperIntent, EarnDeployWrapperResult]("EARN_DEPLOY_WRAPPER", "earn_deploy_wrapper", "earnDeployWrapperIntent", "earnDeployWrapperResult")
	EarnSetWrapperState = activity[EarnSetWrapperStateIntent, EarnSetWrapperStateResult]("EARN_SET_WRAPPER_STATE", "earn_set_wrapper_state", "earnSetWrapperStateIntent", "earnSetWrapperStateResult")
	EarnDeposit         = activity[EarnDepositIntent, EarnDepositResult]("EARN_DEPOSIT", "earn_deposit", "earnDepositIntent", "earnDepositResult")
	EarnWithdraw        = activity[EarnWithdrawIntent, EarnWithdrawResult]("EARN_WITHDRAW", "earn_withdraw", "earnWithdrawIntent", "earnWithdrawResult")
	EarnClaimRewards    = activity[EarnClaimRewardsIntent, EarnClaimRewardsResult]("EARN_CLAIM_REWARDS", "earn_claim_rewards", "earnClaimRewardsIntent", "earnClaimRewardsResult")
	ClaimEarnFees       = activity[ClaimEarnFeesIntent, ClaimEarnFeesResult]("CLAIM_EARN_FEES", "claim_earn_fees", "claimEarnFeesIntent", "claimEarnFeesResult")

	GetEarnDeployStatus       = query[GetEarnDeployStatusRequest, GetEarnDeployStatusResponse]("get_earn_deploy_status")
	GetEarnDepositStatus      = query[GetEarnDepositStatusRequest, GetEarnDepositStatusResponse]("get_earn_deposit_status")
	GetEarnWithdrawStatus     = query[GetEarnWithdrawStatusRequest, GetEarnWithdrawStatusResponse]("get_earn_withdraw_status")
	GetEarnClaimRewardsStatus = query[GetEarnClaimRewardsStatusRequest, GetEarnClaimRewardsStatusResponse]("get_earn_claim_rewards_status")
	GetClaimEarnFeesStatus    = query[GetClaimEarnFeesStatusRequest, GetClaimEarnFeesStatusResponse]("get_claim_earn_fees_status")
	ListEarnVaults            = query[ListEarnVaultsRequest, ListEarnVaultsResponse]("list_earn_vaults")
	ListEarnEnabledVaults     = query[ListEarnEnabledVaultsRequest, ListEarnEnabledVaultsResponse]("list_earn_enabled_vaults")
	ListEarnPositions         = query[ListEarnPositionsRequest, ListEarnPositionsResponse]("list_earn_positions")
	ListEarnRewards           = query[ListEarnRewardsRequest, ListEarnRewardsResponse]("list_earn_rewards")
)
