package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/stack"
)

// The welcome says where everything is and what to try; the dev-mode warning and the key-carrying link only in dev
// mode.
func TestWelcome(t *testing.T) {
	t.Parallel()
	s, err := stack.StartCoordinator(context.Background(), stack.CoordinatorConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var dev, prod bytes.Buffer
	printWelcome(&dev, s, "/data/sigil", true)
	printWelcome(&prod, s, "/data/sigil", false)
	for _, want := range []string{"WARNING: DEV MODE", "coordinator", "export SIGIL_DIR=/data/sigil", "sigil api whoami", "dev inbox"} {
		if !strings.Contains(dev.String(), want) {
			t.Errorf("dev welcome lacks %q:\n%s", want, dev.String())
		}
	}
	for _, unwanted := range []string{"DEV MODE", "dev inbox", "key="} {
		if strings.Contains(prod.String(), unwanted) {
			t.Errorf("welcome outside dev mode has %q:\n%s", unwanted, prod.String())
		}
	}
}

func TestParseNetwork(t *testing.T) {
	t.Parallel()
	n, err := parseNetwork("eip155:1=https://eth.example/rpc,confirmations=64")
	if err != nil || n.CAIP2 != "eip155:1" || n.RPCURL != "https://eth.example/rpc" || n.Confirmations != 64 {
		t.Fatalf("%+v %v", n, err)
	}
	if n, err := parseNetwork("eip155:8453=http://127.0.0.1:8545"); err != nil || n.Confirmations != 0 {
		t.Fatalf("without confirmations: %+v %v", n, err)
	}
	mainnet := "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
	if n, err := parseNetwork(mainnet + "=https://api.mainnet-beta.solana.com"); err != nil || n.CAIP2 != mainnet {
		t.Fatalf("a Solana cluster: %+v %v", n, err)
	}
	for _, bad := range []string{"solana:main-net=https://x", "solana:=https://x", mainnet + "=https://x,confirmations=3", mainnet + "x=https://x", "bip122:1=https://x", "eip155:one=https://x", "eip155:1=ftp://x", "eip155:1=https://x,depth=3", "eip155:1"} {
		if _, err := parseNetwork(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
