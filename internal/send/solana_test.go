package send

import (
	"encoding/json"
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

// A cluster's refusal fails a send only when it says the transaction is refused for good.
func TestSolanaRefusal(t *testing.T) {
	for _, c := range []struct {
		name             string
		err              SolanaRPCError
		fails, lookAgain bool
	}{
		{"an overdraft", SolanaRPCError{Code: -32002, Message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
			Data: json.RawMessage(`{"err":{"InstructionError":[0,{"Custom":1}]},"logs":["Transfer: insufficient lamports 1, need 2"]}`)}, true, false},
		{"a bad signature", SolanaRPCError{Code: -32003, Message: "Transaction signature verification failure"}, true, false},
		{"already processed", SolanaRPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed",
			Data: json.RawMessage(`{"err":"AlreadyProcessed"}`)}, false, true},
		{"an unknown blockhash", SolanaRPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found",
			Data: json.RawMessage(`{"err":"BlockhashNotFound"}`)}, false, true},
		{"a node behind", SolanaRPCError{Code: -32005, Message: "Node is behind by 42 slots"}, false, false},
		{"an internal error", SolanaRPCError{Code: -32603, Message: "Internal error"}, false, false},
	} {
		refusal, lookAgain := solanaRefusal(&c.err)
		if (refusal != nil) != c.fails || lookAgain != c.lookAgain {
			t.Errorf("%s: refusal %+v, look again %v", c.name, refusal, lookAgain)
		}
		if refusal != nil && (refusal.Solana.Source != "preflight" || refusal.Solana.RPCCode != int32(c.err.Code)) {
			t.Errorf("%s: details %+v", c.name, refusal.Solana)
		}
	}
	overdraft, _ := solanaRefusal(&SolanaRPCError{Code: -32002, Message: "m", Data: json.RawMessage(`{"err":{"InstructionError":[0,{"Custom":1}]},"logs":["a"]}`)})
	if overdraft.Solana.TransactionErrorJSON != `{"InstructionError":[0,{"Custom":1}]}` || len(overdraft.Solana.Logs) != 1 {
		t.Errorf("overdraft details %+v", overdraft.Solana)
	}
}
