package api

// Unimplemented is the part of the reference's public API, as @turnkey/http 6.6.0 describes it, that Sigil does not
// serve, family by family. Each path answers UNIMPLEMENTED (HTTP 501) with its family's reason, whoever asks and
// whatever the body, so that a team moving to Sigil learns what is missing and why instead of meeting an unknown route
// or an unknown activity type. docs/ACTIVITIES.md lists them; a test keeps this list, the SDK's paths and the
// coordinator's operations in step (every path of the SDK is served or listed here, never both).
var Unimplemented = []UnimplementedFamily{
	{Name: "Turnkey Verifiable Cloud", Why: "it runs a customer's code in the reference's attested enclaves, which Sigil does not have " +
		"(docs/APP_PROOFS.md says what Sigil's own proofs show)",
		Submit: []string{"create_tvc_app", "create_tvc_deployment", "create_tvc_manifest_approvals", "create_tvc_operator",
			"create_tvc_quorum_key", "delete_tvc_app_and_deployments", "delete_tvc_deployment", "post_tvc_quorum_key_share",
			"re_encrypt_tvc_quorum_key_share", "restore_tvc_deployment", "set_tvc_app_live_deployment"},
		Query: []string{"get_app_status", "get_boot_proof", "get_latest_boot_proof", "get_tvc_app", "get_tvc_deployment",
			"get_tvc_deployment_debug_logs", "get_tvc_deployment_provisioning_details", "get_tvc_qos_versions",
			"list_tvc_app_deployments", "list_tvc_apps", "list_tvc_operators", "list_tvc_quorum_keys", "validate_tvc_image"}},
	{Name: "Fiat on-ramp", Why: "it needs an on-ramp provider, a third-party service Sigil does not integrate",
		Submit: []string{"create_fiat_on_ramp_credential", "delete_fiat_on_ramp_credential", "init_fiat_on_ramp",
			"update_fiat_on_ramp_credential"},
		Query: []string{"get_onramp_transaction_status", "list_fiat_on_ramp_credentials"}},
	{Name: "Spark", Why: "Sigil derives Spark addresses and signs BIP-340 payloads for them (docs/CHAINS.md), but does not " +
		"take part in the Spark protocol's transfers or its FROST threshold signing",
		Submit: []string{"spark_claim_transfer", "spark_prepare_lightning_receive", "spark_prepare_transfer", "spark_sign_frost"}},
}

// UnimplementedFamily is a family of the reference's endpoints that Sigil does not serve: its name, why, and its paths
// under /public/v1/submit/ and /public/v1/query/.
type UnimplementedFamily struct {
	Name, Why     string
	Submit, Query []string
}

// UnimplementedSubmit is the family of a path under /public/v1/submit/ that Sigil does not serve; nil for any other.
func UnimplementedSubmit(path string) *UnimplementedFamily { return unimplementedPaths["submit/"+path] }

// UnimplementedQuery is the family of a path under /public/v1/query/ that Sigil does not serve; nil for any other.
func UnimplementedQuery(path string) *UnimplementedFamily { return unimplementedPaths["query/"+path] }

// unimplementedPaths is Unimplemented by path ("submit/…", "query/…"), looked up on every submission.
var unimplementedPaths = func() map[string]*UnimplementedFamily {
	m := map[string]*UnimplementedFamily{}
	for i := range Unimplemented {
		f := &Unimplemented[i]
		for _, p := range f.Submit {
			m["submit/"+p] = f
		}
		for _, p := range f.Query {
			m["query/"+p] = f
		}
	}
	return m
}()
