package coordinator

import (
	"fmt"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/policy"
)

// activities is every activity type the coordinator executes: the one list. Adding an activity type is declaring it
// beside its steps (with activity, prepared or signing) and one line here; docs/ACTIVITIES.md is generated from this
// list (go test ./internal/coordinator -run TestActivitiesDoc -update).
func activities() []operation {
	return []operation{
		// users, their tags and credentials (users.go)
		createUsersV3, createUsersV4, createAPIOnlyUsers, deleteUsers, updateUser, updateUserName, updateUserEmail, updateUserPhoneNumber,
		createUserTag, updateUserTag, deleteUserTags, createPrivateKeyTag, updatePrivateKeyTag, deletePrivateKeyTags,
		createAPIKeysV2, deleteAPIKeys, createAuthenticatorsV2, deleteAuthenticators,
		// organizations (orgs.go)
		createSubOrganizationV7, createSubOrganizationV8, deleteSubOrganization, updateRootQuorum, updateOrganizationName,
		setOrganizationFeature, removeOrganizationFeature, createInvitations, deleteInvitation,
		// policies and votes (policies.go, votes.go)
		createPolicyV3, createPolicies, updatePolicyV2, deletePolicy, deletePolicies,
		approveActivity, rejectActivity,
		// smart contract interfaces and velocity controls for policies (interfaces.go, controls.go)
		createSmartContractInterface, deleteSmartContractInterface, createVelocityControl, deleteVelocityControl,
		// wallets, private keys, export and import (wallets.go, exports.go)
		createWallet, createWalletAccounts, updateWallet, deleteWallets, deleteWalletAccounts, createPrivateKeysV2, deletePrivateKeys,
		exportWallet, exportWalletAccount, exportPrivateKey, initImportWallet, importWallet, initImportPrivateKey, importPrivateKey,
		// signing (signing.go)
		signTransactionV2, signRawPayloadV2, signRawPayloads,
		// sending: signed, broadcast and watched by the send worker (send.go, send_raw.go, send_undelegate.go, gas.go)
		ethSendTransactionV2, ethSendRawTransaction, ethUndelegate7702, upsertGasUsageConfig,
		solSendTransactionV2, solSendTransaction, // send_solana.go
		// OTP and logins (otp.go, login.go, oauth.go, oauth2.go)
		initOtp, initOtpV2, initOtpV3, verifyOtp, verifyOtpV2, otpLogin, otpLoginV2, stampLogin,
		createReadWriteSessionV2, createReadOnlySession, createSessionProfile,
		// MFA policies (mfa.go)
		createMfaPolicy, updateMfaPolicy, deleteMfaPolicy,
		createOauthProvidersV2, deleteOauthProviders, oauthLogin,
		createOauth2Credential, updateOauth2Credential, deleteOauth2Credential, oauth2Authenticate,
		// the legacy logins and e-mail recovery (legacy_login.go)
		emailAuth, emailAuthV2, emailAuthV3, initOtpAuth, initOtpAuthV2, initOtpAuthV3, otpAuth, oauthAuth,
		initUserEmailRecovery, initUserEmailRecoveryV2, recoverUser,
		// the auth proxy's configuration (authproxy.go)
		enableAuthProxy, updateAuthProxyConfig, rotateAuthProxyKey, disableAuthProxy,
		// webhook endpoints (webhooks.go)
		createWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint, replayWebhookDeliveries,
		// swaps: quotes from Uniswap V3's pools, their execution as sends, the client fee and its claim (swaps.go,
		// swap_execute.go, swap_fees.go)
		createSwapQuote, createSwapQuoteV2, executeSwapV2, executeSwapV3, upsertSwapConfig, claimSwapFees,
		// Earn: fee wrappers, deposits, withdrawals, rewards and fees, sent through the send path (earn.go)
		earnDeployWrapper, earnSetWrapperState, earnDeposit, earnWithdraw, earnClaimRewards, claimEarnFees,

		// secrets (secrets.go) and IP allowlists (allowlists.go)
		initImportSecrets, importSecrets, exportSecrets, deleteSecrets,
		setIPAllowlist, removeIPAllowlist,
	}
}

// queries is every query the coordinator answers: the one list of them.
func queries() []queryOp {
	return []queryOp{
		whoami, getActivity, listActivities, listActivityClients, getPolicyEvaluations, evaluateActivity, listAppProofs,
		getUser, listUsers, getAPIKeys, getAuthenticators, listUserTags,
		getOrganization, getOrganizationConfigs, listSubOrgs, listVerifiedSubOrgs, getAPIKey, getAuthenticator,
		getSessionProfile, getSessionProfiles, listEmailEvents, getMfaPolicy, getMfaPolicies, getMfaStatus,
		getPolicy, listPolicies, getActivePolicies, getSmartContractInterface, getSmartContractInterfaces,
		getVelocityControl, listVelocityControls,
		listPrivateKeyTags, listWallets, getWallet, listWalletAccounts, getWalletAccount, listPrivateKeys, getPrivateKey,
		getOauthProviders, getOauth2Credential, listOauth2Credentials,
		getAuthProxyConfig, resolveAuthProxyConfig,
		listWebhookEndpoints, listWebhookDeliveries,
		getSendTransactionStatus, getNonces, getGasUsage,
		getSwapStatus, // swap_status.go
		// Earn (earn_queries.go)
		getEarnDeployStatus, getEarnDepositStatus, getEarnWithdrawStatus, getEarnClaimRewardsStatus, getClaimEarnFeesStatus,
		listEarnVaults, listEarnEnabledVaults, listEarnPositions, listEarnRewards,

		// secrets (secrets.go), IP allowlists (allowlists.go) and chain data (chaindata.go)
		listSecrets, getIPAllowlist,
		getWalletAddressBalances, listSupportedAssets, listEthTransactionHistory, listSolTransactionHistory,
	}
}

// aliases are other spellings of activity types that an official SDK sends: @turnkey/sdk-server's ethUndelegate7702
// sends ACTIVITY_TYPE_ETH_UNDELEGATE7702 where @turnkey/http's types name ACTIVITY_TYPE_ETH_UNDELEGATE_7702. An alias is
// executed and recorded as its type.
var aliases = map[string]string{"ACTIVITY_TYPE_ETH_UNDELEGATE7702": "ACTIVITY_TYPE_ETH_UNDELEGATE_7702"}

// registry finds the operations of the lists by wire name.
type registry struct {
	list       []operation          // in the order of the list
	activities map[string]operation // by type
	queries    map[string]queryOp   // by path
}

func newRegistry() *registry {
	r := &registry{activities: map[string]operation{}, queries: map[string]queryOp{}}
	known := map[string]bool{}
	for _, p := range policy.Params {
		known[p.Name] = true
	}
	for _, op := range activities() {
		info := op.info()
		if _, dup := r.activities[info.Type]; dup {
			panic(fmt.Sprintf("coordinator: activity type %s is listed twice", info.Type))
		}
		for _, p := range info.Params {
			if !known[p.Name] {
				panic(fmt.Sprintf("coordinator: %s exposes activity.params.%s, which the policy language does not know", info.Type, p.Name))
			}
		}
		r.activities[info.Type] = op
		r.list = append(r.list, op)
	}
	for _, q := range queries() {
		if _, dup := r.queries[q.path()]; dup {
			panic(fmt.Sprintf("coordinator: query %s is listed twice", q.path()))
		}
		r.queries[q.path()] = q
	}
	return r
}

// activity is the operation of a type, or of the type an alias spells.
func (r *registry) activity(typ string) (operation, bool) {
	if canonical, ok := aliases[typ]; ok {
		typ = canonical
	}
	op, ok := r.activities[typ]
	return op, ok
}

// info describes an activity type. A type no longer listed (whose records a database may still hold) is described as
// root-only, so that no policy can allow it, with generic intent and result keys, so that its records still render.
func (r *registry) info(typ string) *activityInfo {
	if op, ok := r.activities[typ]; ok {
		return op.info()
	}
	return &activityInfo{ActivitySpec: api.ActivitySpec{Type: typ, IntentKey: "intent", ResultKey: "result"}, RootOnly: true}
}

// Operation describes one activity type or query, for tools that list them (the CLI's api command) and for the docs.
type Operation struct {
	api.ActivitySpec        // for a query, only Path
	Query            bool   // a query, under /public/v1/query/
	Resource, Action string // activity.resource and activity.action
	Kind             string // activity.kind
	Params           []policy.Param
	RootOnly         bool
	ByParent         bool
	Signs            bool
	// NewParams returns a new value of the activity's parameter type, or of the query's request type.
	NewParams func() any
}

// Operations lists every activity type, then every query, in the order of the lists.
func Operations() []Operation {
	var out []Operation
	for _, op := range activities() {
		i := op.info()
		out = append(out, Operation{ActivitySpec: i.ActivitySpec, Resource: i.Resource, Action: i.Action, Kind: i.Kind(),
			Params: i.Params, RootOnly: i.RootOnly, ByParent: i.ByParent, Signs: i.Signs, NewParams: op.newParams})
	}
	for _, q := range queries() {
		out = append(out, Operation{ActivitySpec: api.ActivitySpec{Path: q.path()}, Query: true, NewParams: q.newRequest})
	}
	return out
}
