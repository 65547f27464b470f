package coordinator_test

import (
	"fmt"
	"math/big"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/chain/devcatalogue"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/swap"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkSwapQuote measures, in interleaved rounds on two dev chains with the bridge's relayer between them, what a
// swap quote costs against its floor (one eth_call of Uniswap's QuoterV2 for the direct pool, over the same JSON-RPC):
// Sigil's pricing alone (swap.Venues.Quote: every route, the balance and the head block in one batch); an activity
// that reads no chain (SIGN_RAW_PAYLOAD_V2: the API's own cost); CREATE_SWAP_QUOTE_V2 through the API over HTTP for a
// direct pool, for two hops and across chains through the bridge; and EXECUTE_SWAP_V2 from its submit to COMPLETED as
// a client polling get_swap_status every 10 ms sees it. SQLite and PostgreSQL, each a stack of its own over the same
// chains. Run with -benchtime 1x: the rounds are the benchmark's own (SIGIL_BENCH_ROUNDS, default 5).
func BenchmarkSwapQuote(b *testing.B) {
	chains := swapChains(b)
	home, away := chains[0], chains[1]
	rounds := 5
	if n, err := fmt.Sscan(os.Getenv("SIGIL_BENCH_ROUNDS"), &rounds); n != 1 || err != nil {
		rounds = 5
	}
	const perRound = 20 // timed quotes of each kind per round
	for _, backend := range []struct {
		name string
		open func(testing.TB) testdb.Backend
	}{{"sqlite", testdb.SQLite}, {"postgres", testdb.Postgres}} {
		b.Run(backend.name, func(b *testing.B) {
			be := backend.open(b)
			s := swapStack(b, be, nil, home, away)
			s.root.PollInterval = 10 * time.Millisecond
			org := s.boot.OrganizationID
			from := s.ethWallet("bench trader")
			if _, err := home.Faucet().Fund(bg, common.HexToAddress(from), new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)),
				map[string]*big.Int{"USDC": big.NewInt(100_000_000_000), "DAI": new(big.Int).Mul(big.NewInt(100_000), big.NewInt(params.Ether))}); err != nil {
				b.Fatal(err)
			}
			venues, err := swap.NewVenues([]swap.Venue{devcatalogue.SwapVenue(home.Bootstrap(), 100*time.Millisecond), devcatalogue.SwapVenue(away.Bootstrap(), 100*time.Millisecond)})
			if err != nil {
				b.Fatal(err)
			}
			defer venues.Close()

			usdc, weth, dai, awayWETH := asset(home, contracts.USDC), asset(home, contracts.WETH), asset(home, contracts.DAI), asset(away, contracts.WETH)
			quote := func(in, out, amount string) func() error {
				return func() error {
					_, _, err := s.root.CreateSwapQuote(bg, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: in, OutputToken: out, InputAmount: amount})
					return err
				}
			}
			path := append(append(home.Contracts()[contracts.USDC].Bytes(), 0, 0x01, 0xf4), home.Contracts()[contracts.WETH].Bytes()...)
			in, _ := swap.ParseAsset(usdc)
			out, _ := swap.ParseAsset(weth)
			cases := []struct {
				name string
				run  func() error
			}{
				{"QuoterV2 eth_call, direct pool (floor)", func() error {
					_, err := contracts.MustLoad(contracts.UniswapV3QuoterV2).Call(bg, home.Client(), home.Contracts()[contracts.UniswapQuoter], "quoteExactInput", path, big.NewInt(1_000_000_000))
					return err
				}},
				{"swap.Venues.Quote, direct pool", func() error {
					_, err := venues.Quote(bg, swap.Request{From: common.HexToAddress(from), Recipient: common.HexToAddress(from), In: in, Out: out,
						AmountIn: big.NewInt(1_000_000_000), StableFeeBps: -1, SlippageBps: 50, Validity: 30 * time.Second})
					return err
				}},
				{"SIGN_RAW_PAYLOAD_V2 (an activity, no chain)", func() error {
					_, _, err := s.root.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: from, Payload: "00", Encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
						HashFunction: "HASH_FUNCTION_KECCAK256"})
					return err
				}},
				{"CREATE_SWAP_QUOTE_V2, direct pool (USDC→WETH)", quote(usdc, weth, "1000000000")},
				{"CREATE_SWAP_QUOTE_V2, two hops (DAI→WETH)", quote(dai, weth, "1000000000000000000000")},
				{"CREATE_SWAP_QUOTE_V2, cross-chain (USDC→WETH on 1338)", quote(usdc, awayWETH, "1000000000")},
			}
			samples := make([][]time.Duration, len(cases))
			var executions []time.Duration
			b.ResetTimer()
			for range rounds {
				for i, c := range cases {
					for range perRound {
						t0 := time.Now()
						if err := c.run(); err != nil {
							b.Fatalf("%s: %v", c.name, err)
						}
						samples[i] = append(samples[i], time.Since(t0))
					}
				}
				for range 3 {
					q := mustQuote(b, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: usdc, OutputToken: weth, InputAmount: "10000000", SlippageBps: "500"})
					t0 := time.Now()
					res, _, err := s.root.ExecuteQuote(bg, org, q, false)
					if err != nil {
						b.Fatal(err)
					}
					if st, err := s.root.WaitForSwap(bg, org, res.SwapRequestID, time.Minute); err != nil || st.Status != api.SwapCompleted {
						b.Fatalf("swap %s: %+v %v", res.SwapRequestID, st, err)
					}
					executions = append(executions, time.Since(t0))
				}
			}
			b.StopTimer()
			floor := p50(samples[0])
			for i, c := range cases {
				fmt.Fprintf(os.Stdout, "%s %s: p50 %.2f ms (%.2f× the floor), p90 %.2f ms, %d samples\n", be.Name, c.name,
					ms(p50(samples[i])), float64(p50(samples[i]))/float64(floor), ms(p90(samples[i])), len(samples[i]))
			}
			fmt.Fprintf(os.Stdout, "%s EXECUTE_SWAP_V2 submit → COMPLETED: p50 %.2f ms, %d swaps\n", be.Name, ms(p50(executions)), len(executions))
			b.ReportMetric(ms(p50(samples[3])), "quote-p50-ms")
			b.ReportMetric(ms(p50(executions)), "execute-to-completed-p50-ms")
		})
	}
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func p90(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*9/10]
}
