package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/sigil/sigil/"

// platforms are the GOOS/GOARCH pairs Sigil builds for (scripts/test.sh cross-builds them).
var platforms = []string{"linux/amd64", "linux/arm64", "darwin/arm64", "darwin/amd64", "windows/amd64"}

// forbidden are import path prefixes, each with why a package of the list below must not link it. A prefix ending in
// "/" covers the packages under it; any other matches that package and those under it.
var forbidden = []struct{ prefix, why string }{
	{module + "internal/coordinator", "a server"},
	{module + "internal/stack", "a server"},
	{module + "internal/authproxy", "a server"},
	{module + "internal/dashboard", "a server"},
	{module + "internal/yield", "a server"},
	{module + "internal/edge", "a server's HTTP edge"},
	{module + "internal/send", "a server's send worker"},
	{module + "internal/webhook", "a server's deliveries"},
	{module + "internal/notify", "a server's mail and SMS"},
	{module + "internal/token", "the server's tokens"},
	{module + "internal/oidc", "the server's OIDC verification"},
	{module + "internal/bench", "the benchmark"},
	{module + "cmd/", "a command"},
	{"net/http/pprof", "a server's profiler"},
	{module + "internal/store", "a database"},
	{module + "internal/testdb", "a database"},
	{"modernc.org/sqlite", "a database"},
	{"github.com/jackc/pgx", "a database"},
	{module + "internal/metrics", "metrics"},
	{"github.com/prometheus/", "metrics"},
	{module + "internal/tracing", "tracing"},
	{"go.opentelemetry.io/", "tracing"},
	{module + "internal/chain", "the dev chain"},
	{module + "internal/contracts", "the dev chain"},
	{module + "internal/solanadev", "the Solana dev node"},
	{"github.com/ethereum/go-ethereum/node", "the dev chain (go-ethereum's node)"},
	{"github.com/ethereum/go-ethereum/eth", "the dev chain (go-ethereum's eth)"}, // eth and eth/...; not ethclient
	{"github.com/ethereum/go-ethereum/miner", "the dev chain (go-ethereum's miner)"},
	{"github.com/ethereum/go-ethereum/core/vm", "the dev chain (an EVM)"},
	{"github.com/ethereum/go-ethereum/core/state", "the dev chain (an EVM's state)"},
	{"github.com/ethereum/go-ethereum/ethdb", "the dev chain (a chain database)"},
	{"github.com/ethereum/go-ethereum/p2p", "the dev chain (peer-to-peer networking)"},
}

// The packages checked. The SDK's own may not link any of the server's packages at all, pure or not: everything under
// internal/ is the server's.
var checked = []struct {
	pkg      string
	internal bool // may link pure packages under internal/
}{
	{"client", false},
	{"api", false},
	{"apierr", false},
	{"stamp", false},
	{"stamp/clientsig", false},
	{"stamp/softauthn", false},
	{"internal/policy", true},
	{"internal/keys", true},
}

func TestPackagesLinkNoServer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, platform := range platforms {
		goos, goarch, _ := strings.Cut(platform, "/")
		for _, c := range checked {
			t.Run(platform+"/"+c.pkg, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", module+c.pkg)
				cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("go list: %v", err)
				}
				for _, dep := range strings.Fields(string(out)) {
					if why := bad(dep, c.internal); why != "" {
						t.Errorf("%s links %s, %s", c.pkg, dep, why)
					}
				}
			})
		}
	}
}

// bad says why a package must not be linked, "" when it may.
func bad(dep string, internalAllowed bool) string {
	for _, f := range forbidden {
		if dep == f.prefix || strings.HasPrefix(dep, strings.TrimSuffix(f.prefix, "/")+"/") {
			return f.why
		}
	}
	if !internalAllowed && strings.HasPrefix(dep, module+"internal/") {
		return "a package of the server's (under internal/)"
	}
	return ""
}

// The check itself catches what it is meant to: the server and what it links are refused, the SDK's own allowed.
func TestBad(t *testing.T) {
	for dep, want := range map[string]bool{
		module + "internal/store":                        true,
		module + "internal/coordinator":                  true,
		module + "internal/chain/devcatalogue":           true,
		"github.com/prometheus/client_golang/prometheus": true,
		"go.opentelemetry.io/otel":                       true,
		"github.com/ethereum/go-ethereum/eth/catalyst":   true,
		"github.com/ethereum/go-ethereum/node":           true,
		"database/sql":                                   false, // the interfaces uint256 and uuid implement; the drivers are refused
		module + "internal/jsonstrict":                   true,  // allowed under internal/ only
		"github.com/ethereum/go-ethereum/ethclient":      false,
		"github.com/ethereum/go-ethereum/rlp":            false,
		module + "stamp":                                 false,
		"net/http":                                       false,
	} {
		if got := bad(dep, false) != ""; got != want {
			t.Errorf("bad(%s) = %v, want %v", dep, got, want)
		}
	}
	if bad(module+"internal/jsonstrict", true) != "" {
		t.Error("a pure internal package is refused where internal packages are allowed")
	}
}
