package swap

import (
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// CAIP-19 ids: a token (its address in any case, written back in lower case, as velocity controls match it) or the
// native coin; anything else is refused.
func TestParseAsset(t *testing.T) {
	const usdc = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
	for id, want := range map[string]string{
		"eip155:1/erc20:" + usdc:                  "eip155:1/erc20:" + strings.ToLower(usdc),
		"eip155:1/erc20:" + strings.ToLower(usdc): "eip155:1/erc20:" + strings.ToLower(usdc),
		"eip155:1337/slip44:60":                   "eip155:1337/slip44:60",
	} {
		a, err := ParseAsset(id)
		if err != nil || a.String() != want {
			t.Errorf("ParseAsset(%q) = %v, %v; want %s", id, a, err, want)
		}
		var back Asset
		if err := back.UnmarshalText([]byte(a.String())); err != nil || back != a {
			t.Errorf("%s does not read back: %v %v", a, back, err)
		}
	}
	for _, id := range []string{"", "USDC", usdc, "eip155:1", "eip155:1/erc20:", "eip155:1/erc20:A0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
		"eip155:1/erc20:0x0000000000000000000000000000000000000000", "eip155:1/erc20:0x1234", "eip155:1/slip44:501", "eip155:1/erc721:" + usdc,
		"eip155:0/slip44:60", "eip155:01/slip44:60", "eip155:-1/slip44:60", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501",
		"cosmos:cosmoshub-4/slip44:118"} {
		if a, err := ParseAsset(id); err == nil {
			t.Errorf("ParseAsset(%q) = %v, want a refusal", id, a)
		}
	}
}

// A path is Uniswap V3's packed encoding (abi.encodePacked(token, uint24 fee, token, ...)), as SwapRouter's
// exactInput and QuoterV2's quoteExactInput read it.
func TestPathEncoding(t *testing.T) {
	dai, usdc, weth := common.HexToAddress("0x6B175474E89094C44Da98b954EedeAC495271d0F"),
		common.HexToAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"), common.HexToAddress("0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2")
	p := path{{TokenIn: dai, TokenOut: usdc, Fee: 100}, {TokenIn: usdc, TokenOut: weth, Fee: 3000}}
	want := "6b175474e89094c44da98b954eedeac495271d0f" + "000064" + "a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48" + "000bb8" +
		"c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
	if got := hex.EncodeToString(p.encode()); got != want {
		t.Fatalf("path\n got %s\nwant %s", got, want)
	}
	if path(nil).encode() != nil {
		t.Fatal("an empty path encodes to something")
	}
}

// Fees and minimums round down: a fee never takes more than its share, a minimum never promises more than the
// slippage leaves.
func TestFeeSlippageAndImpactRounding(t *testing.T) {
	for _, c := range []struct {
		amount, bps int64
		fee, min    int64
	}{
		{1_000_000_000, 30, 3_000_000, 997_000_000},
		{997, 30, 2, 994},
		{1, 5_000, 0, 0},
		{999, 0, 0, 999},
		{10_000, 10_000, 10_000, 0},
	} {
		if got := bpsOf(big.NewInt(c.amount), c.bps); got.Int64() != c.fee {
			t.Errorf("bpsOf(%d, %d) = %s, want %d", c.amount, c.bps, got, c.fee)
		}
		if got := lessSlippage(big.NewInt(c.amount), c.bps); got.Int64() != c.min {
			t.Errorf("lessSlippage(%d, %d) = %s, want %d", c.amount, c.bps, got, c.min)
		}
	}
	for _, c := range []struct {
		ideal float64
		out   int64
		want  int64
	}{{1000, 990, 100}, {1000, 1000, 0}, {1000, 1010, 0}, {0, 5, 0}, {3000, 2999, 3}, {1_000_000, 999_949, 1}} {
		if got := impactBps(big.NewFloat(c.ideal), big.NewInt(c.out)); got != c.want {
			t.Errorf("impactBps(%v, %d) = %d, want %d", c.ideal, c.out, got, c.want)
		}
	}
}
