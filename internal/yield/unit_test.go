package yield

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/units"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		in       string
		decimals uint8
		want     string // base units, or "" for an error
		errPart  string
	}{
		{"1", 6, "1000000", ""},
		{"0.5", 6, "500000", ""},
		{"1000.000001", 6, "1000000001", ""},
		{"007.10", 6, "7100000", ""},
		{"1", 0, "1", ""},
		{"0.000000000000000001", 18, "1", ""},
		{"123456789012345678901234567890", 18, "123456789012345678901234567890000000000000000000", ""},
		{"1.0000001", 6, "", "7 decimal places"},
		{"0", 6, "", "greater than zero"},
		{"0.000000", 6, "", "greater than zero"},
		{"-1", 6, "", "greater than zero"},
		{"+1", 6, "", "not a decimal"},
		{"1e6", 6, "", "not a decimal"},
		{" 1", 6, "", "not a decimal"},
		{"1.", 6, "", "not a decimal"},
		{".5", 6, "", "not a decimal"},
		{"1,5", 6, "", "not a decimal"},
		{"0x10", 6, "", "not a decimal"},
		{"", 6, "", "required"},
		{"1.5", 0, "", "decimal places"},
	} {
		got, err := parseAmount("arguments.amount", tc.in, tc.decimals, "TOK")
		if tc.want == "" {
			var ae *apiError
			if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.HasPrefix(ae.Message, "arguments.amount: ") || !strings.Contains(ae.Message, tc.errPart) {
				t.Errorf("%q: got %v, %v; want an error with %q", tc.in, got, err, tc.errPart)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%q with %d decimals: got %v, %v; want %s", tc.in, tc.decimals, got, err, tc.want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1", "0.5", "1.0000001", "-1", "1e5", "", "00.000", "9999999999999999999999.999999"} {
		f.Add(s, uint8(6))
	}
	f.Fuzz(func(t *testing.T, s string, decimals uint8) {
		decimals %= 40
		v, err := parseAmount("amount", s, decimals, "T")
		if err != nil {
			return
		}
		if v.Sign() <= 0 {
			t.Fatalf("%q parsed to %s", s, v)
		}
		// Formatting and parsing again gives the same base units.
		back, err := parseAmount("amount", units.Format(v, decimals), decimals, "T")
		if err != nil || back.Cmp(v) != 0 {
			t.Fatalf("%q: %s formats to %q which parses to %v, %v", s, v, units.Format(v, decimals), back, err)
		}
	})
}

func TestFormatUnits(t *testing.T) {
	for _, tc := range []struct {
		v        int64
		decimals uint8
		want     string
	}{{1, 6, "0.000001"}, {1_500_000, 6, "1.5"}, {1_000_000, 6, "1"}, {0, 6, "0"}, {-25, 1, "-2.5"}, {7, 0, "7"}} {
		if got := units.Format(big.NewInt(tc.v), tc.decimals); got != tc.want {
			t.Errorf("units.Format(%d, %d) = %q, want %q", tc.v, tc.decimals, got, tc.want)
		}
	}
}

func TestParseAddress(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"0x52908400098527886E0F7030069857D2E4169EE7", true}, // EIP-55 test vector
		{"0x52908400098527886e0f7030069857d2e4169ee7", true},
		{"0x52908400098527886E0F7030069857D2E4169EE7", true},
		{"0x52908400098527886E0F7030069857D2E4169Ee7", false}, // wrong checksum
		{"52908400098527886E0F7030069857D2E4169EE7", false},
		{"0x52908400098527886E0F7030069857D2E4169EE", false},
		{"0x52908400098527886E0F7030069857D2E4169EE7aa", false},
		{"0xZ2908400098527886E0F7030069857D2E4169EE7", false},
		{"", false},
	} {
		_, err := parseAddress("address", tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "address: ") {
			t.Errorf("%q: error %q does not name the field", tc.in, err)
		}
	}
}

func FuzzDecodePassthrough(f *testing.F) {
	f.Add(encodePassthrough(passthrough{YieldID: "y", Address: "0xab", Action: "WITHDRAW"}))
	f.Add("")
	f.Add("!!")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := decodePassthrough(s)
		if err != nil {
			return
		}
		if p.YieldID == "" {
			t.Fatal("a passthrough without a yield decoded")
		}
		if q, err := decodePassthrough(encodePassthrough(p)); err != nil || q != p {
			t.Fatalf("round trip of %+v: %+v, %v", p, q, err)
		}
	})
}

func validCatalogue() Catalogue {
	addr := func(b byte) string { return "0x" + strings.Repeat(string("0123456789abcdef"[b%16]), 40) }
	usdc := Token{Symbol: "USDC", Name: "USD Coin", Decimals: 6, Address: addr(1)}
	share := func(sym string, a string) *Token { return &Token{Symbol: sym, Name: sym, Decimals: 6, Address: a} }
	return Catalogue{
		Networks: []Network{{ID: "base", Name: "Base", ChainID: 8453, RPCURL: "https://rpc.example", NativeToken: Token{Symbol: "ETH", Decimals: 18}}},
		Providers: []Provider{{ID: "morpho", Name: "Morpho", Type: "protocol"}, {ID: "aave", Name: "Aave", Type: "protocol"},
			{ID: "kiln", Name: "Kiln", Type: "validator_provider"}},
		Yields: []YieldConfig{
			{Kind: KindERC4626, Network: "base", Name: "gtUSDCf", ProviderID: "morpho", Token: usdc, OutputToken: share("gtUSDCf", addr(2)),
				Contracts: Contracts{Vault: addr(2)}},
			{Kind: KindAllocatorVault, Network: "base", Name: "OAV", ProviderID: "morpho", Token: usdc, OutputToken: share("oav", addr(3)),
				Contracts: Contracts{Vault: addr(3)}, Fees: Fees{PerformanceBps: 1000, ManagementBps: 100}, FeeSets: []int{10}},
			{Kind: KindLending, Network: "base", Name: "Aave USDC", ProviderID: "aave", Slug: "aave-v3", Token: usdc,
				OutputToken: share("aUSDC", addr(4)), Contracts: Contracts{Pool: addr(5)}},
			{Kind: KindNativeStaking, Network: "base", Name: "ETH staking", ProviderID: "kiln", Token: Token{Symbol: "ETH", Decimals: 18},
				Contracts: Contracts{Staking: addr(6), FeeWrapper: addr(7)}, Fees: Fees{DepositBps: 50}},
			{Kind: KindProviderStaking, Network: "base", Name: "Kiln ETH", ProviderID: "kiln", Token: Token{Symbol: "ETH", Decimals: 18},
				OutputToken: share("kETH", addr(8)), Contracts: Contracts{Staking: addr(9)}},
		},
	}
}

func TestCatalogueIDsInTheSeedsShapes(t *testing.T) {
	c := validCatalogue()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"base-usdc-gtusdcf-0x2222222222222222222222222222222222222222-4626-vault",
		"base-usdc-oav-0x3333333333333333333333333333333333333333-4626-vault",
		"base-usdc-aave-v3-lending",
		"base-eth-native-staking",
		"base-eth-kiln-staking",
	}
	for i, y := range c.Yields {
		if y.ID != want[i] {
			t.Errorf("yield %d: id %s, want %s", i, y.ID, want[i])
		}
	}
}

func TestCatalogueRefusesBadConfigurations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Catalogue)
		error string
	}{
		{"allocator below the 10% minimum", func(c *Catalogue) { c.Yields[1].Fees.PerformanceBps = 999 }, "below the 1000 bps (10%) minimum"},
		{"allocator without performance fee", func(c *Catalogue) { c.Yields[1].Fees = Fees{DepositBps: 50} }, "minimum performance fee"},
		{"allocator management fee too high", func(c *Catalogue) { c.Yields[1].Fees.ManagementBps = 600 }, "managementBps"},
		{"allocator with a wrapper", func(c *Catalogue) { c.Yields[1].Contracts.FeeWrapper = c.Yields[3].Contracts.FeeWrapper }, "feeWrapper"},
		{"performance fee on a plain vault", func(c *Catalogue) { c.Yields[0].Fees.PerformanceBps = 1000 }, "need an allocator vault"},
		{"deposit fee without a wrapper", func(c *Catalogue) { c.Yields[0].Fees.DepositBps = 10 }, "needs contracts.feeWrapper"},
		{"deposit fee on lending", func(c *Catalogue) { c.Yields[2].Fees.DepositBps = 10 }, "not on lending"},
		{"wrapper fee above its maximum", func(c *Catalogue) { c.Yields[3].Fees.DepositBps = 1001 }, "maximum"},
		{"negative fee", func(c *Catalogue) { c.Yields[0].Fees.DepositBps = -1 }, "negative"},
		{"unknown fee set", func(c *Catalogue) { c.Yields[0].FeeSets = []int{15} }, "fee set"},
		{"unknown network", func(c *Catalogue) { c.Yields[0].Network = "mars" }, "unknown network"},
		{"unknown provider", func(c *Catalogue) { c.Yields[0].ProviderID = "nobody" }, "unknown providerId"},
		{"unknown kind", func(c *Catalogue) { c.Yields[0].Kind = "farm" }, "kind"},
		{"vault without address", func(c *Catalogue) { c.Yields[0].Contracts.Vault = "" }, "contracts.vault"},
		{"share is not the vault", func(c *Catalogue) { c.Yields[0].OutputToken.Address = c.Yields[1].Contracts.Vault }, "must be the vault"},
		{"staking with a token address", func(c *Catalogue) { c.Yields[3].Token.Address = c.Yields[0].Token.Address }, "native token"},
		{"bad token address", func(c *Catalogue) { c.Yields[0].Token.Address = "0x12" }, "token.address"},
		{"duplicate id", func(c *Catalogue) { c.Yields[4].ID = "base-eth-native-staking" }, "appears twice"},
		{"bad entry limit", func(c *Catalogue) { c.Yields[0].EntryLimits = &EntryLimits{Minimum: "0.0000001"} }, "entryLimits.minimum"},
		{"network without RPC", func(c *Catalogue) { c.Networks[0].RPCURL = "ftp://x" }, "rpcUrl"},
		{"bad provider type", func(c *Catalogue) { c.Providers[0].Type = "bank" }, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCatalogue()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Fatalf("got %v, want an error with %q", err, tc.error)
			}
		})
	}
}

func TestComputeRate(t *testing.T) {
	const day = int64(24 * 3600)
	sample := func(t int64, assets string) store.YieldPriceSample {
		return store.YieldPriceSample{BlockTime: t, Shares: "1000000000000000000000000000", Assets: assets}
	}
	week := 7 * 24 * time.Hour
	for _, tc := range []struct {
		name       string
		samples    []store.YieldPriceSample
		rateType   string
		depositBps int64
		want       float64
		known      bool
	}{
		{"no samples", nil, "APY", 0, 0, false},
		{"one sample", []store.YieldPriceSample{sample(0, "1000000000000000000000000000")}, "APY", 0, 0, false},
		{"too close", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"), sample(59, "1000000000000000000000000001")}, "APY", 0, 0, false},
		// A short window is used as it is: 5% a year paid over ten minutes (the first minutes of a fresh service).
		{"ten minutes", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"),
			sample(600, "1000000951293759512937595129")}, "APY", 0, math.Pow(1+0.05*600/float64(365*day), float64(365*day)/600) - 1, true},
		// 0.01% a day compounds to 1.0001^365 − 1.
		{"daily growth", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"), sample(day, "1000100000000000000000000000")},
			"APY", 0, math.Pow(1.0001, 365) - 1, true},
		{"window takes the oldest sample inside it", []store.YieldPriceSample{
			sample(0, "500000000000000000000000000"), // 8 days before the last: outside the window
			sample(day, "1000000000000000000000000000"), sample(8*day, "1000700000000000000000000000")},
			"APY", 0, math.Pow(1.0007, 365.0/7) - 1, true},
		{"deposit fee deducted", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"), sample(day, "1000100000000000000000000000")},
			"APY", 50, math.Pow(1.0001, 365)*0.995 - 1, true},
		{"APR is linear", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"), sample(day, "1000100000000000000000000000")},
			"APR", 0, 0.0001 * 365, true},
		{"APR minus deposit fee", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"), sample(day, "1000100000000000000000000000")},
			"APR", 50, 0.0001*365 - 0.005, true},
		{"loss", []store.YieldPriceSample{sample(0, "1000000000000000000000000000"), sample(day, "999900000000000000000000000")},
			"APY", 0, math.Pow(0.9999, 365) - 1, true},
		{"corrupt sample", []store.YieldPriceSample{sample(0, "x"), sample(day, "1")}, "APY", 0, 0, false},
	} {
		got, span, known := computeRate(tc.samples, week, tc.rateType, tc.depositBps)
		if known != tc.known || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: got %v (%v), want %v (%v)", tc.name, got, known, tc.want, tc.known)
		}
		if wantSpan := time.Duration(0); known {
			n := len(tc.samples)
			wantSpan = time.Duration(tc.samples[n-1].BlockTime-tc.samples[0].BlockTime) * time.Second
			if tc.name == "window takes the oldest sample inside it" {
				wantSpan = 7 * 24 * time.Hour
			}
			if span != wantSpan {
				t.Errorf("%s: span %v, want %v", tc.name, span, wantSpan)
			}
		}
	}
	for d, want := range map[time.Duration]string{30 * time.Second: "30s", 10 * time.Minute: "10m", 2 * time.Hour: "2h",
		130 * time.Minute: "2h10m", 24 * time.Hour: "1 day", 36 * time.Hour: "1.5 days", 7 * 24 * time.Hour: "7 days"} {
		if got := spanText(d); got != want {
			t.Errorf("spanText(%v) = %q, want %q", d, got, want)
		}
	}
}

// A contract's published annual rate: Aave's per-second compounding for APYs, the rate itself for APRs, each net of
// the deposit fee for a year's holding.
func TestPublishedRate(t *testing.T) {
	const perSecond5 = 0.0512710963 // (1 + 0.05/31536000)^31536000 − 1, a hair below e^0.05 − 1
	for _, tc := range []struct {
		name       string
		apr        float64
		rateType   string
		depositBps int64
		want       float64
	}{
		{"zero", 0, "APY", 0, 0},
		{"compounded per second", 0.05, "APY", 0, perSecond5},
		{"deposit fee deducted", 0.05, "APY", 50, (1+perSecond5)*0.995 - 1},
		{"APR is the rate", 0.042, "APR", 0, 0.042},
		{"APR minus deposit fee", 0.042, "APR", 50, 0.037},
	} {
		got, known := publishedRate(tc.apr, tc.rateType, tc.depositBps)
		if !known || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: got %v (%v), want %v", tc.name, got, known, tc.want)
		}
	}
	if _, known := publishedRate(math.Inf(1), "APY", 0); known {
		t.Error("an infinite rate is known")
	}
}

func TestSharePrice(t *testing.T) {
	s := store.YieldPriceSample{Shares: "1000000000000000000000000000", Assets: "1050000000000000000000000000"}
	if got := sharePrice(s, 6, 6); math.Abs(got-1.05) > 1e-12 {
		t.Errorf("same decimals: %v", got)
	}
	// 10^27 shares of 18 decimals worth 1.05 × 10^27 base units of a 6-decimal token: 1.05e12 per share.
	if got := sharePrice(s, 18, 6); math.Abs(got-1.05e12) > 1 {
		t.Errorf("18/6 decimals: %v", got)
	}
}

func TestLimiterWindows(t *testing.T) {
	l := newLimiter(2, time.Minute)
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	if v := l.take("a", t0); !v.allowed || v.remaining != 1 || v.reset != t0.Truncate(time.Minute).Add(time.Minute) {
		t.Fatalf("first: %+v", v)
	}
	if v := l.take("a", t0.Add(time.Second)); !v.allowed || v.remaining != 0 {
		t.Fatalf("second: %+v", v)
	}
	if v := l.take("a", t0.Add(2*time.Second)); v.allowed || v.retryAfter != 48 {
		t.Fatalf("third: %+v", v)
	}
	if v := l.take("b", t0); !v.allowed {
		t.Fatalf("other key: %+v", v)
	}
	if v := l.take("a", t0.Add(50*time.Second)); !v.allowed || v.remaining != 1 {
		t.Fatalf("next window: %+v", v)
	}
}

func TestSpreadKeepsTheEndsAndAtMostMax(t *testing.T) {
	for _, c := range []struct {
		n, max int
		want   []int
	}{{0, 3, []int{}}, {2, 3, []int{0, 1}}, {10, 4, []int{0, 3, 6, 9}}, {5, 2, []int{0, 4}}} {
		if got := spread(c.n, c.max); !slices.Equal(got, c.want) {
			t.Errorf("spread(%d, %d) = %v, want %v", c.n, c.max, got, c.want)
		}
	}
}
