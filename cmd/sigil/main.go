// Command sigil runs Sigil's services and talks to them. `sigil help` lists its commands, `sigil help COMMAND` (or
// `sigil COMMAND --help`) describes one and its flags.
//
// Each command parses its flags and calls a package: stack starts and stops the services, client talks to the
// coordinator.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// commands is the command tree: every command of sigil, in the order `sigil help` lists them.
func commands() *command {
	return &command{name: "sigil", args: "COMMAND [flags]", summary: "Sigil: self-hosted wallet infrastructure in one binary.", subs: []*command{
		{name: "up", args: "[flags]", run: runUp,
			summary: "run the whole stack with embedded defaults: coordinator, dev chain, yield service, auth proxy, dashboard",
			doc: "Everything lives in --dir (SQLite database, master key, dev chain, dev mail outbox). The first start creates\n" +
				"a root organization with a root user and a P-256 API key and writes it, with every service's URL, to\n" +
				"DIR/bootstrap.json (mode 0600); later starts reuse it. Every service answers /healthz, /readyz and\n" +
				"/metrics (Prometheus). Ctrl-C stops the stack gracefully."},
		{name: "api", args: "NAME [flags]", run: runAPI,
			summary: "submit an activity or run a query, stamped with the bootstrap root key or --key",
			doc: "NAME is an activity type, with or without its ACTIVITY_TYPE_ prefix (create_wallet, ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2),\n" +
				"or the name of a query (whoami, list_wallets). The response is printed as JSON."},
		{name: "keys", summary: "make API key pairs, rotate the master key, open a production stack's root key", subs: []*command{
			{name: "new", args: "[flags]", run: runKeysNew, summary: "make an API key pair and write it to a file (mode 0600)"},
			{name: "add", args: "[flags]", run: runKeysAdd,
				summary: "make an API key pair, write it to a file, and register it on a user of the organization"},
			{name: "new-master", args: "[flags]", run: runKeysNewMaster,
				summary: "write a new master key file (mode 0600) for a deployment to keep apart from its database"},
			{name: "rotate-master", args: "[flags]", run: runRotateMaster,
				summary: "add a master key version, make it active, and rewrap every sealed secret under it"},
			{name: "root", args: "--out FILE [flags]", run: runKeysRoot,
				summary: "write the root user's API key, which sigil up --prod keeps sealed in bootstrap.json, to a key file (mode 0600)",
				doc: "Opens the sealed key with the stack's master key (--master-key-file, SIGIL_MASTER_KEY or --master-key-command);\n" +
					"sigil api --key FILE then stamps with it. Keep the file as you keep the master key, or delete it after use."},
		}},
		{name: "demo", summary: "run a user journey against the running stack", subs: []*command{
			{name: "yield", args: "[flags]", run: runDemoYield, summary: "a policy-restricted agent earns yield, end to end"},
			{name: "borrow", args: "[flags]", run: runDemoBorrow, summary: "the agent borrows against its vault position, within its policies' limit"},
			{name: "web", args: "[flags]", run: runDemoWeb,
				summary: "serve the browser example: a user signs up and logs in through the auth proxy"},
		}},
		{name: "chain", args: "[flags]", run: runChain, summary: "run the dev chain alone, or fund an address from its faucet", subs: []*command{
			{name: "fund", args: "ADDRESS [flags]", run: runFund, summary: "send ETH and tokens to an address from the dev chain's faucet"},
		}},
		{name: "yield", args: "[flags]", run: runYield, summary: "run the yield service alone, or create its API keys", subs: []*command{
			{name: "keys", summary: "manage the yield service's API keys", subs: []*command{
				{name: "create", args: "[flags]", run: runYieldKeysCreate, summary: "create an API key of a project; it is printed only once"},
			}},
			{name: "webhooks", summary: "manage a project's webhook endpoints", subs: []*command{
				{name: "create", args: "[flags]", run: runYieldWebhooksCreate,
					summary: "register an endpoint of a project: URL, secret and event types; prints it, never the secret"},
				{name: "list", args: "[flags]", run: runYieldWebhooksList, summary: "list a project's endpoints"},
				{name: "delete", args: "ID [flags]", run: runYieldWebhooksDelete,
					summary: "delete an endpoint of a project; its deliveries not made yet are abandoned"},
			}},
		}},
		{name: "mcp", args: "--key FILE [flags]", run: runMCP,
			summary: "serve an agent MCP tools over stdio or HTTP: yield discovery, policy checks, signing and sending as one user",
			doc: "The server acts as the user whose API key --key (or SIGIL_MCP_API_KEY) gives: every request it makes is stamped\n" +
				"with that key, so the organization's policies decide everything. It serves stdio by default (an agent host\n" +
				"starts it), or MCP's Streamable HTTP at --http ADDR, which needs a bearer token (--http-token-file). See docs/MCP.md."},
		{name: "webhooks", summary: "receive the coordinator's webhooks locally, see their deliveries, replay dead letters", subs: []*command{
			{name: "listen", args: "[flags]", run: runWebhooksListen,
				summary: "register a local endpoint, verify and print every delivery, and delete the endpoint on exit",
				doc: "For development against a dev stack (sigil up without --exposed), which allows http endpoints on loopback.\n" +
					"Each delivery's Ed25519 signature is checked against the coordinator's webhook JWKS, as a production\n" +
					"receiver must; a delivery that does not verify is answered 401 and printed as refused."},
			{name: "deliveries", args: "--endpoint ID [flags]", run: runWebhooksDeliveries,
				summary: "list an endpoint's latest deliveries: state, attempts, last error"},
			{name: "replay", args: "--endpoint ID [--delivery ID]... [flags]", run: runWebhooksReplay,
				summary: "queue an endpoint's dead deliveries again under the same event ids (all, or those named)",
				doc: "Submits REPLAY_WEBHOOK_DELIVERIES, a Sigil activity that the organization's policies decide\n" +
					"(resource WEBHOOK_ENDPOINT, action UPDATE). The endpoint must be active."},
		}},
		{name: "authproxy", args: "[flags]", run: runAuthProxy,
			summary: "run the auth proxy alone in front of a running coordinator (the --dir of sigil up)"},
		{name: "allowlist", summary: "recover an organization its IP allowlists lock out", subs: []*command{
			{name: "clear", args: "[flags]", run: runAllowlistClear,
				summary: "remove an organization's IP allowlists, its API keys' too, in the database (on the server)",
				doc: "For when no root user can reach the coordinator from an address the lists allow. It needs the database,\n" +
					"not a stamp: run it where sigil up runs (--dir, or --database-url for PostgreSQL)."},
		}},
		{name: "backup", args: "[flags]", run: runBackup, summary: "copy the SQLite database of a running stack"},
		{name: "sends", summary: "look after the coordinator's sends", subs: []*command{
			{name: "unstick", args: "--network CAIP2 --address ADDRESS [flags]", run: runSendsUnstick,
				summary: "fill the nonces an address's stuck sends hold, so that its later transactions are mined",
				doc: "For each send of the address signed and not mined (BROADCASTING) on the network, records a filler: a zero-value\n" +
					"transfer of the address to itself at that nonce, with fees an eighth above the stuck transaction's. A running\n" +
					"coordinator's send worker signs and broadcasts it; whichever of the two is mined, the other is reported failed\n" +
					"(replaced). ADDRESS may be an organization's gas sponsor (get_gas_usage's sponsorAddress). Sends a node\n" +
					"refuses for good need no operator: the worker fails them and releases or fills their nonces itself."},
		}},
		{name: "bench", args: "[flags]", run: runBench,
			summary: "measure stamped activities and queries against a coordinator on loopback"},
		{name: "config", summary: "show the settings sigil up would run with", subs: []*command{
			{name: "print", args: "[up flags]", run: runConfigPrint,
				summary: "print sigil up's effective settings and where each came from (flag, SIGIL_ variable, --config file, default)",
				doc:     "The output is the --config file format; a password in --database-url is masked."},
		}},
		{name: "completion", args: "SHELL", run: runCompletion,
			summary: "print a completion script for bash, zsh or fish",
			doc: "bash: source <(sigil completion bash); zsh: sigil completion zsh > \"${fpath[1]}/_sigil\";\n" +
				"fish: sigil completion fish > ~/.config/fish/completions/sigil.fish"},
		{name: "__complete", args: "WORDS...", run: runComplete, hidden: true, summary: "the completion scripts' helper"},
		{name: "version", args: "", run: runVersion, summary: "print the version and VCS revision of this build"},
		{name: "help", args: "[COMMAND...]", run: runHelp, summary: "print the usage of sigil or of a command"},
	}}
}

func main() {
	// Sigil's services keep a small live heap and allocate briskly per request; at Go's default GOGC of 100 the
	// collector would run every few megabytes and cost a tenth of a signing activity's CPU. GOGC in the environment
	// still decides when it is set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// run runs the command that args name, writing to stdout and stderr, and returns the exit status: 0 on success and
// for help, 2 for a wrong command line, 1 when the command failed. lookupEnv reads the SIGIL_ settings.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	e := &env{stdout: stdout, stderr: stderr, root: commands(), lookupEnv: lookupEnv}
	return e.exit(e.dispatch(ctx, e.root, nil, args))
}
