package yield

// The wire shapes of the reference (Yield.xyz API 2.0): field names and enum values are the reference's.

type tokenDTO struct {
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals uint8  `json:"decimals"`
	Network  string `json:"network"`
	Address  string `json:"address,omitempty"`
	LogoURI  string `json:"logoURI,omitempty"`
}

type rewardDTO struct {
	Rate        float64  `json:"rate"`
	RateType    string   `json:"rateType"`
	Token       tokenDTO `json:"token"`
	YieldSource string   `json:"yieldSource"`
	Description string   `json:"description,omitempty"`
}

type rewardRateDTO struct {
	Total      float64     `json:"total"`
	RateType   string      `json:"rateType"`
	Components []rewardDTO `json:"components"`
}

type statusDTO struct {
	Enter bool `json:"enter"`
	Exit  bool `json:"exit"`
}

type feeMechanismsDTO struct {
	DepositFee       bool `json:"depositFee"`
	ManagementFee    bool `json:"managementFee"`
	PerformanceFee   bool `json:"performanceFee"`
	ValidatorRebates bool `json:"validatorRebates"`
}

type metadataDTO struct {
	Name               string   `json:"name"`
	LogoURI            string   `json:"logoURI"`
	Description        string   `json:"description"`
	Documentation      string   `json:"documentation"`
	UnderMaintenance   bool     `json:"underMaintenance"`
	Deprecated         bool     `json:"deprecated"`
	SupportedStandards []string `json:"supportedStandards"`
	// The seed lists the fee-taking mechanisms under metadata; the reference under mechanics. Both are set.
	PossibleFeeTakingMechanisms feeMechanismsDTO `json:"possibleFeeTakingMechanisms"`
}

type periodDTO struct {
	Seconds int64 `json:"seconds"`
}

// feeDTO gives the fees the user pays, as percentage strings ("10.00").
type feeDTO struct {
	Deposit     string `json:"deposit"`
	Withdrawal  string `json:"withdrawal"`
	Management  string `json:"management"`
	Performance string `json:"performance"`
}

type entryLimitsDTO struct {
	Minimum *string `json:"minimum"`
	Maximum *string `json:"maximum"`
}

type argumentFieldDTO struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Label       string  `json:"label"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required"`
	Minimum     *string `json:"minimum,omitempty"`
	Maximum     *string `json:"maximum,omitempty"`
	OptionsRef  string  `json:"optionsRef,omitempty"`
}

type argumentSchemaDTO struct {
	Fields []argumentFieldDTO `json:"fields"`
	Notes  string             `json:"notes,omitempty"`
}

type argumentsDTO struct {
	Enter  *argumentSchemaDTO            `json:"enter,omitempty"`
	Exit   *argumentSchemaDTO            `json:"exit,omitempty"`
	Manage map[string]*argumentSchemaDTO `json:"manage,omitempty"`
}

type mechanicsDTO struct {
	Type                        string           `json:"type"`
	RequiresValidatorSelection  bool             `json:"requiresValidatorSelection"`
	RewardSchedule              string           `json:"rewardSchedule"`
	RewardClaiming              string           `json:"rewardClaiming"`
	GasFeeToken                 tokenDTO         `json:"gasFeeToken"`
	CooldownPeriod              *periodDTO       `json:"cooldownPeriod,omitempty"`
	Fee                         feeDTO           `json:"fee"`
	EntryLimits                 entryLimitsDTO   `json:"entryLimits"`
	Arguments                   argumentsDTO     `json:"arguments"`
	PossibleFeeTakingMechanisms feeMechanismsDTO `json:"possibleFeeTakingMechanisms"`
	ExtraTransactionFormats     []string         `json:"extraTransactionFormatsSupported"`
}

type pricePerShareDTO struct {
	Price      float64  `json:"price"`
	ShareToken tokenDTO `json:"shareToken"`
	QuoteToken tokenDTO `json:"quoteToken"`
}

type stateDTO struct {
	PricePerShareState *pricePerShareDTO `json:"pricePerShareState,omitempty"`
}

type yieldDTO struct {
	ID          string        `json:"id"`
	Network     string        `json:"network"`
	ChainID     string        `json:"chainId"`
	InputTokens []tokenDTO    `json:"inputTokens"`
	OutputToken *tokenDTO     `json:"outputToken,omitempty"`
	Token       tokenDTO      `json:"token"`
	Tokens      []tokenDTO    `json:"tokens"`
	RewardRate  rewardRateDTO `json:"rewardRate"`
	Status      statusDTO     `json:"status"`
	Metadata    metadataDTO   `json:"metadata"`
	Mechanics   mechanicsDTO  `json:"mechanics"`
	ProviderID  string        `json:"providerId"`
	Tags        []string      `json:"tags"`
	State       stateDTO      `json:"state"`
}

type page[T any] struct {
	Items  []T `json:"items"`
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

type networkDTO struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
	LogoURI  string `json:"logoURI"`
	ChainID  string `json:"chainId"`
}

type revShareTierDTO struct {
	MinRevShare float64 `json:"minRevShare"`
	MaxRevShare float64 `json:"maxRevShare"`
}

type providerDTO struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	LogoURI     string  `json:"logoURI"`
	Description string  `json:"description"`
	Website     string  `json:"website"`
	TVLUsd      *string `json:"tvlUsd"`
	Type        string  `json:"type"`
	// Validator providers with a revenue share: the range the contract allows and what it pays the integrator now,
	// as fractions, and the integrator's share accrued on chain (per staking yield).
	RevShare *struct {
		Standard revShareTierDTO `json:"standard"`
	} `json:"revshare,omitempty"`
	RevenueShare       *float64                `json:"revenueShare,omitempty"`
	IntegratorFeesOwed []integratorFeesOwedDTO `json:"integratorFeesOwed,omitempty"`
}

type integratorFeesOwedDTO struct {
	YieldID    string   `json:"yieldId"`
	Integrator string   `json:"integrator"`
	Amount     string   `json:"amount"`
	AmountRaw  string   `json:"amountRaw"`
	Token      tokenDTO `json:"token"`
}

type transactionDTO struct {
	ID                  string  `json:"id"`
	Title               string  `json:"title"`
	Network             string  `json:"network"`
	Status              string  `json:"status"`
	Type                string  `json:"type"`
	Hash                *string `json:"hash"`
	CreatedAt           string  `json:"createdAt"`
	BroadcastedAt       *string `json:"broadcastedAt"`
	SignedTransaction   *string `json:"signedTransaction"`
	UnsignedTransaction string  `json:"unsignedTransaction"`
	StepIndex           int     `json:"stepIndex"`
	Description         string  `json:"description"`
	Error               *string `json:"error"`
	GasEstimate         string  `json:"gasEstimate"`
	ExplorerURL         *string `json:"explorerUrl"`
	IsMessage           bool    `json:"isMessage"`
}

type actionDTO struct {
	ID               string           `json:"id"`
	Intent           string           `json:"intent"`
	Type             string           `json:"type"`
	YieldID          string           `json:"yieldId"`
	Address          string           `json:"address"`
	Amount           *string          `json:"amount"`
	AmountRaw        *string          `json:"amountRaw"`
	AmountUsd        *string          `json:"amountUsd"`
	Transactions     []transactionDTO `json:"transactions"`
	ExecutionPattern string           `json:"executionPattern"`
	RawArguments     map[string]any   `json:"rawArguments"`
	CreatedAt        string           `json:"createdAt"`
	CompletedAt      *string          `json:"completedAt"`
	Status           string           `json:"status"`
	// The Borrow API's actions (borrow_actions.go) also name their integration and market, and preview their effect.
	IntegrationID *string            `json:"integrationId,omitempty"`
	MarketID      *string            `json:"marketId,omitempty"`
	Metadata      *borrowMetadataDTO `json:"metadata,omitempty"`
}

type pendingActionDTO struct {
	Intent      string             `json:"intent"`
	Type        string             `json:"type"`
	Passthrough string             `json:"passthrough"`
	Arguments   *argumentSchemaDTO `json:"arguments"`
	Amount      *string            `json:"amount"`
}

type balanceDTO struct {
	Address        string             `json:"address"`
	Type           string             `json:"type"`
	Amount         string             `json:"amount"`
	AmountRaw      string             `json:"amountRaw"`
	AmountUsd      *string            `json:"amountUsd"`
	Date           *string            `json:"date"`
	PendingActions []pendingActionDTO `json:"pendingActions"`
	Token          tokenDTO           `json:"token"`
	IsEarning      bool               `json:"isEarning"`
	ShareAmount    *string            `json:"shareAmount,omitempty"`
	ShareAmountRaw *string            `json:"shareAmountRaw,omitempty"`
	ShareToken     *tokenDTO          `json:"shareToken,omitempty"`
}

type yieldBalancesDTO struct {
	YieldID  string       `json:"yieldId"`
	Balances []balanceDTO `json:"balances"`
}

type balancesErrorDTO struct {
	YieldID string `json:"yieldId"`
	Error   string `json:"error"`
}

type multiBalancesDTO struct {
	Items  []yieldBalancesDTO `json:"items"`
	Errors []balancesErrorDTO `json:"errors"`
}

// unsignedTxDTO is the JSON inside unsignedTransaction: quantities as 0x hex strings, nonce, chainId and type as
// numbers, as an EVM wallet library parses it.
type unsignedTxDTO struct {
	From                 string `json:"from"`
	To                   string `json:"to"`
	Data                 string `json:"data"`
	Value                string `json:"value"`
	GasLimit             string `json:"gasLimit"`
	Nonce                uint64 `json:"nonce"`
	ChainID              int64  `json:"chainId"`
	MaxFeePerGas         string `json:"maxFeePerGas"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas"`
	Type                 int    `json:"type"`
}

type gasEstimateDTO struct {
	Amount   string   `json:"amount"`
	GasLimit string   `json:"gasLimit"`
	Token    tokenDTO `json:"token"`
}
