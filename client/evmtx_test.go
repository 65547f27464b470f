package client_test

import (
	"strings"
	"testing"

	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/evm"
)

func TestUnsignedTransaction(t *testing.T) {
	const from = "0x00000000000000000000000000000000000000aa"
	cases := []struct {
		name, json, wantType string
	}{
		{"eip-1559", `{"from":"` + from + `","to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","data":"0x095ea7b3","value":"0x0","gasLimit":"0x186a0","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","nonce":7,"chainId":1337,"type":2}`, "TYPE_2"},
		{"legacy", `{"to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","value":"0x1","gasLimit":"0x5208","gasPrice":"0x3b9aca00","nonce":0,"chainId":1337}`, "LEGACY"},
	}
	for _, c := range cases {
		hexTx, err := client.UnsignedTransaction(c.json)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tx, err := evm.DecodeUnsignedTransaction(hexTx)
		if err != nil {
			t.Fatalf("%s: does not decode: %v", c.name, err)
		}
		v := tx.View(from)
		if v.Type != c.wantType || v.To != strings.ToLower("0x5FbDB2315678afecb367f032d93F642f64180aa3") || v.ChainID.Int64() != 1337 {
			t.Fatalf("%s: %+v", c.name, v)
		}
	}
	for _, bad := range []string{`{`, `{"to":"nope","nonce":0,"chainId":1}`, `{"to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","nonce":0,"chainId":1,"value":"12"}`} {
		if _, err := client.UnsignedTransaction(bad); err == nil {
			t.Fatalf("%s: accepted", bad)
		}
	}
}
