package earn_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Earn and the coordinator that runs it link no dev-chain code: the dev chain's packages (its node, fixtures and
// bytecode) are for development, and a deployment on real networks must not carry them.
func TestNoDevChainCode(t *testing.T) {
	for _, pkg := range []string{"github.com/sigil/sigil/internal/earn", "github.com/sigil/sigil/internal/coordinator"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/sigil/sigil/internal/chain") || dep == "github.com/sigil/sigil/internal/contracts" {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}
