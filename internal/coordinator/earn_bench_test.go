package coordinator_test

import (
	"context"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkEarnDeposit measures an Earn deposit of 1 USDC into a wrapper of the dev chain's Morpho vault, from the
// submit of EARN_DEPOSIT to get_earn_deposit_status reporting COMPLETED as a client polling every 5 ms sees it: the
// activity (its chain reads: the wallet's balance; its decision; its send recorded), the send worker's turn (every
// 20 ms here), the EIP-7702 batch of approve and deposit signed, broadcast and sealed, and its receipt read. One
// deposit at a time, paid by the wallet or sponsored; SQLite, durable commits; the dev chain seals a block as
// transactions arrive. Interleaved with each deposit, the same two calls as a plain ETH_SEND_TRANSACTION followed to
// INCLUDED: what Earn adds to the send path. Reported: the medians (p50-ms, send-p50-ms) and their ratio; ns/op is
// one round of both.
func BenchmarkEarnDeposit(b *testing.B) {
	node := earnChain(b)
	s := earnStack(b, testdb.SQLite(b), node)
	s.root.PollInterval = 5 * time.Millisecond
	org := s.boot.OrganizationID
	dep := s.deployWrapper(node, node.Contracts()[contracts.MorphoVaultUSDC], "1000", s.ethWallet("fees"))
	for _, sponsor := range []bool{false, true} {
		name := "self-paid"
		if sponsor {
			name = "sponsored"
		}
		user := s.fundedWallet(node, "bench "+name, 10, 1_000_000_000_000)
		calls := []api.EthCallParams{
			{To: node.Contracts()[contracts.USDC].Hex(), Data: hexCall(b, contracts.TestToken, "approve", common.HexToAddress(dep.WrapperAddress), big.NewInt(1_000_000))},
			{To: dep.WrapperAddress, Data: hexCall(b, contracts.EarnWrapper, "deposit", big.NewInt(1_000_000), common.HexToAddress(user))},
		}
		b.Run(name, func(b *testing.B) {
			var took, sent []time.Duration
			for b.Loop() {
				// Interleaved: the same two calls as a plain ETH_SEND_TRANSACTION, then as EARN_DEPOSIT.
				start := time.Now()
				res, _, err := s.root.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: user, Caip2: caip2(node), Sponsor: &sponsor, Calls: calls})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.root.WaitForSendTransaction(bg, org, res.SendTransactionStatusID, time.Minute); err != nil {
					b.Fatal(err)
				}
				sent = append(sent, time.Since(start))
				start = time.Now()
				dres, _, err := s.root.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user,
					Assets: "1000000", ChainCaip2: caip2(node), Sponsor: &sponsor})
				if err != nil {
					b.Fatal(err)
				}
				earnWait(b, s.root, func(ctx context.Context) (string, string, string, error) {
					st, err := s.root.GetEarnDepositStatus(ctx, org, dres.DepositRequestID)
					if err != nil {
						return "", "", "", err
					}
					return st.Status, st.DepositTxHash, st.Error, nil
				})
				took = append(took, time.Since(start))
			}
			earnP50, sendP50 := median(took), median(sent)
			b.ReportMetric(earnP50, "p50-ms")
			b.ReportMetric(sendP50, "send-p50-ms")
			b.ReportMetric(earnP50/sendP50, "earn/send")
		})
	}
}

func median(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
}

func hexCall(t testing.TB, artifact, method string, args ...any) string {
	t.Helper()
	data, err := contracts.MustLoad(artifact).Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return hexutil.Encode(data)
}
