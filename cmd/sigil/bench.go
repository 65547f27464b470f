package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"sigil/api"
	"sigil/client"
	"sigil/coordinator"
	"sigil/stamp"
	"sigil/store"
)

// runBench starts a coordinator on loopback over a fresh database and measures stamped CREATE_USERS_V3 and whoami with
// concurrent clients, next to the raw P-256 stamp verifications per second of this machine.
func runBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	clients := fs.Int("clients", 8, "concurrent clients")
	duration := fs.Duration("duration", 5*time.Second, "how long to run each measurement")
	dbURL := fs.String("database-url", "", "PostgreSQL URL to measure instead of SQLite")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "sigil-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, *dbURL, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	coord := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: coord.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	boot, err := coord.CreateRootOrganization(ctx, "bench", "root")
	if err != nil {
		return err
	}
	c := client.New("http://"+ln.Addr().String(), boot.APIKey)
	c.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: *clients}

	verifyRate := p256VerifyRate(*duration / 2)
	fmt.Printf("machine: P-256 stamp verification %.0f/s on one core\n", verifyRate)
	fmt.Printf("database: %s, %d clients, %s per measurement\n\n", st.Backend(), *clients, *duration)
	report := func(name string, r result) {
		fmt.Printf("%-16s %8.0f req/s   p50 %-9s p99 %-9s  errors %d   CPU per request ≈ %.1f stamp verifications\n",
			name, r.rate, r.p50, r.p99, r.errors, verifyRate*2/r.rate)
	}
	n := 0
	var mu sync.Mutex
	report("CREATE_USERS_V3", measure(ctx, *clients, *duration, func() error {
		mu.Lock()
		n++
		name := fmt.Sprintf("user-%d", n)
		mu.Unlock()
		_, _, err := c.CreateUsersV3(ctx, boot.OrganizationID, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{
			UserName: name, APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}})
		return err
	}))
	report("whoami", measure(ctx, *clients, *duration, func() error {
		_, err := c.Whoami(ctx, boot.OrganizationID)
		return err
	}))
	fmt.Println("\n(CPU per request assumes both cores busy; compare with 1 stamp verification as the floor)")
	return nil
}

type result struct {
	rate     float64
	p50, p99 time.Duration
	errors   int
}

func measure(ctx context.Context, clients int, d time.Duration, op func() error) result {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t := time.Now()
				err := op()
				el := time.Since(t)
				mu.Lock()
				lat = append(lat, el)
				if err != nil {
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		return result{}
	}
	return result{rate: float64(len(lat)) / elapsed.Seconds(), p50: lat[len(lat)/2].Round(10 * time.Microsecond),
		p99: lat[len(lat)*99/100].Round(10 * time.Microsecond), errors: errs}
}

// p256VerifyRate measures parse-and-verify of one P-256 X-Stamp on one goroutine.
func p256VerifyRate(d time.Duration) float64 {
	key, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	body := []byte(`{"organizationId":"00000000-0000-0000-0000-000000000000"}`)
	_, value, _ := key.Stamp(body)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		s, err := stamp.ParseAPIKeyStamp(value)
		if err != nil || s.Verify(body) != nil {
			panic("bench: stamp does not verify")
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds()
}
