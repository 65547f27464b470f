package coordinator_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/testdb"
)

// An address whose send the node takes for now but never mines (a fee below what the node takes, sent again
// forever) is unstuck by the operator: send.Unstick (sigil sends unstick) fills its nonce with a transfer that
// outbids it, the stuck send is reported replaced, and the address's next send goes through.
func TestUnstickFillsAStuckNonce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		s := sendingStack(t, b, node)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "stuck", 1, 0)
		res, _, err := s.root.EthSendRawTransaction(bg, org, api.EthSendRawTransactionIntent{Caip2: caip2(node),
			SignedTransaction: s.signedBy(t, node, from, 0, 21000, big.NewInt(0), big.NewInt(1))})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the cheap transaction refused for now", func() bool {
			st, err := s.root.GetSendTransactionStatus(bg, org, res.TransactionHash)
			return err == nil && strings.Contains(st.TxError, "the node refused the transaction")
		})
		unstuck, err := send.Unstick(bg, s.store, caip2(node), common.HexToAddress(from).Hex(), coordinator.GasSponsorSecret)
		if err != nil || len(unstuck) != 1 || unstuck[0].Nonce != 0 {
			t.Fatalf("unstick: %+v %v", unstuck, err)
		}
		if again, err := send.Unstick(bg, s.store, caip2(node), from, coordinator.GasSponsorSecret); err != nil || len(again) != 0 {
			t.Errorf("unstick again, with the filler pending: %+v %v", again, err)
		}
		if _, err := s.root.WaitForSendTransaction(bg, org, res.TransactionHash, 30*time.Second); err == nil || !strings.Contains(err.Error(), "replaced") {
			t.Fatalf("the stuck send once its nonce is filled: %v", err)
		}
		if st, err := s.waitSend(mustSend(t, s, from, caip2(node), api.EthCallParams{To: "0x000000000000000000000000000000000000bEEF", Value: "1"})); err != nil || st.TxStatus != "INCLUDED" {
			t.Fatalf("the address's next send: %+v %v", st, err)
		}
	})
}
