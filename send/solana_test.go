package send

import (
	"os"
	"path/filepath"
	"testing"
)

// Solana clusters are named by CAIP-2 ids, canonical or aliased, and configured beside EVM networks.
func TestSolanaNetworks(t *testing.T) {
	for in, want := range map[string]string{
		"solana:mainnet": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
		"solana:devnet":  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
		"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
		"solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1":             "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
	} {
		if got, err := NormalizeSolanaCAIP2(in); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"solana:", "solana:1", "solana:testnet", "eip155:1", "solana:0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl"} {
		if got, err := NormalizeSolanaCAIP2(bad); err == nil {
			t.Errorf("%s accepted as %s", bad, got)
		}
	}
	path := filepath.Join(t.TempDir(), "networks.json")
	if err := os.WriteFile(path, []byte(`{"networks":[{"id":"base","name":"Base","chainId":8453,"rpcUrl":"https://base.example",
		"batchDelegate":"0x00000000000000000000000000000000000000d1","gasStation":"0x00000000000000000000000000000000000000d2","nativeTokenUsd":3000},
		{"id":"solana","name":"Solana","caip2":"solana:mainnet","rpcUrl":"https://api.mainnet-beta.solana.com","nativeTokenUsd":150}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := LoadNetworks(path)
	if err != nil {
		t.Fatal(err)
	}
	nws, err := NewNetworks(list)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := nws.Get("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")
	if err != nil || !nw.Solana() || nw.RPCURL != "https://api.mainnet-beta.solana.com" || nw.NativeUSD != 150 {
		t.Errorf("the Solana cluster: %+v %v", nw, err)
	}
	if nw, err := nws.Get("eip155:8453"); err != nil || nw.Solana() || nw.NativeUSD != 3000 ||
		nw.BatchDelegate.Hex() != "0x00000000000000000000000000000000000000D1" || nw.GasStation.Hex() != "0x00000000000000000000000000000000000000D2" {
		t.Errorf("the EVM network: %+v %v", nw, err)
	}
	if _, err := NewNetworks([]Network{{CAIP2: "solana:mainnet", RPCURL: "ws://x"}}); err == nil {
		t.Error("a Solana cluster with a ws URL was accepted")
	}
	if _, err := NewNetworks([]Network{{CAIP2: "solana:mainnet", RPCURL: "http://x"}, {CAIP2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", RPCURL: "http://y"}}); err == nil {
		t.Error("one cluster configured twice was accepted")
	}
}
