package coordinator_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/base58"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/cputime"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// BenchmarkSigningCPU measures the server's CPU per SIGN_TRANSACTION_V2 of each chain against its cryptography, as
// `sigil bench` does for Ethereum: a non-root user under one allow policy on the chain's transaction, on SQLite, eight
// clients at once. The requests are built and stamped before the measurement, so what the process spends during it is
// the server's and the clients' HTTP alone (which makes the ratio an upper bound). The crypto floor is one P-256
// stamp verification plus one signature with the chain's curve, each measured on one goroutine just before.
//
//	go test -run '^$' -bench SigningCPU -benchtime 3000x ./coordinator
func BenchmarkSigningCPU(b *testing.B) {
	for _, chain := range []string{"ethereum", "solana"} {
		b.Run(chain, func(b *testing.B) {
			s := newStack(b, testdb.SQLite(b))
			org := s.boot.OrganizationID
			key, params := newKey(b, stamp.CurveP256)
			res, _, err := s.root.CreateUsers(bg, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "agent", APIKeys: []api.APIKeyParamsV2{params},
				Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
			if err != nil {
				b.Fatal(err)
			}
			consensus := "approvers.any(u, u.id == '" + res.UserIDs[0] + "')"
			var tx func(i int) (string, string)
			var curve keys.Curve
			switch chain {
			case "ethereum":
				curve = keys.CurveSecp256k1
				address := s.ethWallet("w")
				s.policy("approve", api.EffectAllow, "eth.tx.to == '"+token.Hex()+"' && eth.tx.data[0..10] == '0x095ea7b3'", consensus)
				data := calldata(b, "approve", vault, big.NewInt(1))
				tx = func(i int) (string, string) { return address, unsigned1559(b, token, data, uint64(i)) }
			case "solana":
				curve = keys.CurveEd25519
				address, pub := s.solanaWallet("w")
				bob := bytes.Repeat([]byte{0xb0}, 32)
				s.policy("to bob", api.EffectAllow, "solana.tx.transfers.all(t, t.to == '"+base58.Encode(bob)+"') && solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')", consensus)
				tx = func(i int) (string, string) {
					return address, hex.EncodeToString(solanaTransfer(pub, bob, uint64(1000+i)))
				}
			}
			// Every request, stamped ahead.
			type request struct {
				body          []byte
				header, value string
			}
			requests := make([]request, b.N)
			now := time.Now()
			for i := range requests {
				signWith, unsigned := tx(i)
				body := envelope(api.SignTransactionV2.Type, org, api.SignTransactionIntentV2{SignWith: signWith, UnsignedTransaction: unsigned,
					Type: map[string]string{"ethereum": api.TransactionTypeEthereum, "solana": api.TransactionTypeSolana}[chain]}, now.Add(time.Duration(i)*time.Millisecond))
				h, v, err := key.Stamp(body)
				if err != nil {
					b.Fatal(err)
				}
				requests[i] = request{body, h, v}
			}
			floor := cryptoFloor(b, curve)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
			url := s.srv.URL + "/public/v1/submit/" + api.SignTransactionV2.Path
			var next sync.Mutex
			i := 0
			b.ResetTimer()
			meter := cputime.Start()
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						next.Lock()
						n := i
						i++
						next.Unlock()
						if n >= len(requests) {
							return
						}
						r := requests[n]
						req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(r.body))
						req.Header.Set(r.header, r.value)
						resp, err := client.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							b.Errorf("status %d", resp.StatusCode)
							return
						}
					}
				}()
			}
			wg.Wait()
			cpu := meter.PerOp(b.N)
			b.StopTimer()
			b.ReportMetric(cpu, cputime.Unit)
			b.ReportMetric(floor, "floor-µs")
			b.ReportMetric(cpu/floor, "×floor")
		})
	}
}

// cryptoFloor is the cryptography of one signing activity in µs: a P-256 stamp parsed and verified, and one signature
// with the curve, each timed on one goroutine.
func cryptoFloor(b *testing.B, curve keys.Curve) float64 {
	b.Helper()
	key, _ := newKey(b, stamp.CurveP256)
	body := []byte(`{"type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2","timestampMs":"1","organizationId":"o","parameters":{}}`)
	_, value, err := key.Stamp(body)
	if err != nil {
		b.Fatal(err)
	}
	const n = 2000
	t0 := time.Now()
	for range n {
		st, err := stamp.ParseAPIKeyStamp(value)
		if err == nil {
			err = st.Verify(body)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	verify := time.Since(t0) / n
	priv := bytes.Repeat([]byte{7}, 32)
	digest := bytes.Repeat([]byte{9}, 32)
	message := bytes.Repeat([]byte{9}, 215) // a one-transfer Solana message is about this size
	t0 = time.Now()
	for range n {
		var err error
		if curve == keys.CurveEd25519 {
			_, err = keys.Sign(curve, priv, message)
		} else {
			_, err = keys.Sign(curve, priv, digest)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	sign := time.Since(t0) / n
	return float64((verify + sign).Nanoseconds()) / 1000
}
