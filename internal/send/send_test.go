package send

import (
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// Reverts decode as Solidity's Error(string) and Panic(uint256), a custom error an interface declares, a bare revert,
// or unknown data with its selector.
func TestDecodeRevert(t *testing.T) {
	ctx := context.Background()
	to := common.HexToAddress("0x00000000000000000000000000000000000000AA")
	errorData, _ := stringArgs.Pack("too late")
	panicData, _ := uintArgs.Pack(big.NewInt(0x11))
	custom := func(_ context.Context, orgID, address string, data []byte) (string, string, bool) {
		if orgID == "org" && address == "0x00000000000000000000000000000000000000aa" && data[0] == 0xde {
			return "Nope", `{"why":1}`, true
		}
		return "", "", false
	}
	for _, c := range []struct {
		name, errorType, display string
		data                     []byte
	}{
		{"Error(string)", "native", "execution reverted: too late", append(append([]byte{}, selectorError...), errorData...)},
		{"Panic(uint256)", "native", "panic 0x11: arithmetic overflow or underflow", append(append([]byte{}, selectorPanic...), panicData...)},
		{"bare", "native", "execution reverted", nil},
		{"custom", "custom", `reverted with Nope{"why":1}`, []byte{0xde, 0xad, 0xbe, 0xef}},
		{"unknown", "unknown", "reverted with data nothing here decodes", []byte{0x01, 0x02, 0x03, 0x04, 0x05}},
	} {
		e := decodeRevert(ctx, "org", to, c.data, custom)
		if e.ErrorType != c.errorType || e.DisplayMessage != c.display || e.Address != "0x00000000000000000000000000000000000000aa" {
			t.Errorf("%s: %+v", c.name, e)
		}
	}
	if e := decodeRevert(ctx, "org", to, append(append([]byte{}, selectorError...), errorData...), nil); e.Native.NativeType != "error_string" || e.Native.Message != "too late" {
		t.Errorf("Error(string) details: %+v", e.Native)
	}
	if e := decodeRevert(ctx, "org", to, append(append([]byte{}, selectorPanic...), panicData...), nil); e.Native.NativeType != "panic" || e.Native.PanicCode != "17" {
		t.Errorf("Panic details: %+v", e.Native)
	}
	if e := decodeRevert(ctx, "other", to, []byte{0xde, 0xad, 0xbe, 0xef}, custom); e.Unknown == nil || e.Unknown.Selector != "0xdeadbeef" || e.Unknown.Data != "0xdeadbeef" {
		t.Errorf("another organization's interface decoded it: %+v", e)
	}
}

// Networks are found by CAIP-2 id, an unknown one named with those configured; bad configurations are refused; a
// yield catalogue file configures them.
func TestNetworks(t *testing.T) {
	nws, err := NewNetworks([]Network{{CAIP2: "eip155:1337", RPCURL: "http://127.0.0.1:8545"}})
	if err != nil {
		t.Fatal(err)
	}
	if nw, err := nws.Get("eip155:1337"); err != nil || nw.ChainID != 1337 {
		t.Errorf("get: %+v %v", nw, err)
	}
	if _, err := nws.Get("eip155:1"); !errors.Is(err, ErrUnknownNetwork) || !strings.Contains(err.Error(), `unknown network "eip155:1": this server sends on eip155:1337`) {
		t.Errorf("unknown: %v", err)
	}
	for _, bad := range [][]Network{
		{{CAIP2: "solana:1", RPCURL: "http://x"}},
		{{CAIP2: "eip155:01", RPCURL: "http://x"}},
		{{CAIP2: "eip155:1", ChainID: 2, RPCURL: "http://x"}},
		{{CAIP2: "eip155:1", RPCURL: "ws://x"}},
		{{CAIP2: "eip155:1", RPCURL: "http://x"}, {CAIP2: "eip155:1", RPCURL: "http://y"}},
	} {
		if _, err := NewNetworks(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	path := filepath.Join(t.TempDir(), "catalogue.json")
	if err := os.WriteFile(path, []byte(`{"networks":[{"id":"base","name":"Base","chainId":8453,"rpcUrl":"https://base.example","explorerUrl":"https://basescan.org","nativeToken":{"symbol":"ETH"}}],"providers":[],"yields":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := LoadNetworks(path)
	if err != nil || len(list) != 1 || list[0].CAIP2 != "eip155:8453" || list[0].RPCURL != "https://base.example" || list[0].ExplorerURL != "https://basescan.org" {
		t.Errorf("loaded %+v %v", list, err)
	}
}
