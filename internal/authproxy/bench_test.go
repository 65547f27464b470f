package authproxy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkOtpInit measures otp_init through the proxy against INIT_OTP_V2 sent straight to the coordinator, on
// loopback, one after the other in the same run; it reports the p50 and p99 latency of each. The proxy's share is the
// configuration look-up (cached for the default second, or read for every request), the key's decryption, the stamp
// and one more HTTP hop.
func BenchmarkOtpInit(b *testing.B) {
	for _, c := range []struct {
		name string
		ttl  time.Duration
	}{{"cached", time.Second}, {"uncached", -1}} {
		b.Run(c.name, func(b *testing.B) { benchmarkOtpInit(b, c.ttl) })
	}
}

func benchmarkOtpInit(b *testing.B, ttl time.Duration) {
	e := newEnv(b, testdb.SQLite(b), authproxy.Config{ConfigRate: -1, IPRate: -1, ConfigTTL: ttl})
	ten := e.tenant("Bench", api.UpdateAuthProxyConfigIntent{})
	ctx := context.Background()
	p := e.proxy(ten.configID, "")
	direct := client.New(e.coordSrv.URL, e.proxyKeyStamper(ten.configID))
	n := 0
	contact := func() string { n++; return fmt.Sprintf("user%d@bench.test", n) }
	sendDirect := func() error {
		_, _, err := direct.InitOtp(ctx, ten.orgID, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: contact(), AppName: "Bench",
			Alphanumeric: new(true), OtpLength: new(int32(6)), ExpirationSeconds: "300"})
		return err
	}
	sendProxy := func() error {
		var res api.ProxyInitOtpResponse
		return p.Call(ctx, "/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: contact()}, &res)
	}
	// Interleaved, so that both paths see the same machine load.
	var lat [2][]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, send := range []func() error{sendDirect, sendProxy} {
			start := time.Now()
			if err := send(); err != nil {
				b.Fatal(err)
			}
			lat[j] = append(lat[j], time.Since(start))
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for j, name := range []string{"direct", "proxy"} {
		slices.Sort(lat[j])
		b.ReportMetric(ms(lat[j][len(lat[j])/2]), name+"-p50-ms")
		b.ReportMetric(ms(lat[j][len(lat[j])*99/100]), name+"-p99-ms")
	}
	b.ReportMetric(0, "ns/op")
}
