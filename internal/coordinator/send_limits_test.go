package coordinator_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// Two coordinator processes over one database, each with its send worker, sign sponsored sends of eight accounts
// submitted at once to both, under a limit about one and a half of them fit in: the check of the limits and the
// reservation of what a send may cost are one step under the billing organization's lock, so the sends the two sign
// together never take the spend past the limit.
func TestSponsoredGasLimitAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		s := sendingStack(t, b, node)
		st, err := store.Open(bg, b.URL, b.Dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		second := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.DiscardHandler), Keyring: s.ring, Networks: devNetworks(t, node)})
		runSends(t, second)
		srv := httptest.NewServer(second.Handler())
		t.Cleanup(srv.Close)
		other := client.New(srv.URL, s.boot.APIKey)
		other.PollInterval, other.Now = 10*time.Millisecond, s.stamps.Now
		org := s.boot.OrganizationID
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: "1", SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.root.GetGasUsage(bg, org); err != nil { // the sponsor, created and funded by the first process
			t.Fatal(err)
		}
		var accounts []string
		for i := range 9 {
			accounts = append(accounts, s.fundedWallet(node, fmt.Sprintf("two processes %d", i), 1, 0))
		}
		yes := true
		sponsored := func(c *client.Client, from string) (string, error) {
			res, _, err := c.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: caip2(node), Sponsor: &yes,
				Calls: []api.EthCallParams{{To: "0x000000000000000000000000000000000000d0d2", Value: "1"}}})
			if err != nil {
				return "", err
			}
			return res.SendTransactionStatusID, nil
		}
		first, err := sponsored(s.root, accounts[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.waitSend(first); err != nil {
			t.Fatal(err)
		}
		measured, err := s.root.GetGasUsage(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		one, _ := strconv.ParseFloat(measured.UsageUsd, 64)
		limit := 2.7 * one
		if _, _, err := s.root.UpsertGasUsageConfig(bg, org, api.UpsertGasUsageConfigIntent{OrgWindowLimitUsd: strconv.FormatFloat(limit, 'f', -1, 64),
			SubOrgWindowLimitUsd: "1", WindowDurationMinutes: "60"}); err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(accounts)-1)
		var wg sync.WaitGroup
		for i, from := range accounts[1:] {
			wg.Go(func() {
				c := s.root
				if i%2 == 1 {
					c = other
				}
				id, err := sponsored(c, from)
				if err != nil && !strings.Contains(err.Error(), "past its limit") {
					t.Errorf("submit: %v", err)
				}
				ids[i] = id
			})
		}
		wg.Wait()
		included, refused := 0, 0
		for _, id := range ids {
			if id == "" {
				refused++
				continue
			}
			st, err := s.waitSend(id)
			switch {
			case err == nil && st.TxStatus == "INCLUDED":
				included++
			case err != nil && strings.Contains(err.Error(), "past its limit"):
				refused++
			default:
				t.Errorf("send %s: %+v %v", id, st, err)
			}
		}
		usage, err := s.root.GetGasUsage(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		spent, _ := strconv.ParseFloat(usage.UsageUsd, 64)
		if included == 0 || refused == 0 || spent > limit {
			t.Fatalf("two processes: %d sponsored sends paid for, %d refused, %s USD spent under a limit of %v", included, refused, usage.UsageUsd, limit)
		}
	})
}
