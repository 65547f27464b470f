package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/stamp"
)

// loadPlan is what the bench hands its load-generating child process on stdin.
type loadPlan struct {
	URL        string      `json:"url"`
	Org        string      `json:"organizationId"`
	Curve      stamp.Curve `json:"curve"`
	PrivateKey string      `json:"privateKey"`
	Op         string      `json:"op"` // "sign", "sign_raw", "whoami", "create_users" or "transit_sign"
	SignWith   string      `json:"signWith,omitempty"`
	// Token and Key are a transit_sign plan's: the OpenBao or Vault token, and the transit key that signs.
	Token    string        `json:"token,omitempty"`
	Key      string        `json:"key,omitempty"`
	To       string        `json:"to,omitempty"`
	Clients  int           `json:"clients"`
	Duration time.Duration `json:"duration"`
	Rate     float64       `json:"rate"` // requests per second over all clients; 0 is as fast as possible
}

// loadResult is what the child writes back on stdout. Latencies count from the scheduled start when a paced client
// fell behind its schedule, so time spent queueing behind a slow server is counted, not omitted.
type loadResult struct {
	Count      int           `json:"count"`
	Errors     int           `json:"errors"`
	FirstError string        `json:"firstError,omitempty"`
	Elapsed    time.Duration `json:"elapsed"`
	P50        time.Duration `json:"p50"`
	P99        time.Duration `json:"p99"`
	Max        time.Duration `json:"max"`
	// PreparedLate counts the requests prepared during the window, once those prepared before it had run out.
	PreparedLate int `json:"preparedLate,omitempty"`
}

// preparedPerSecond is how many requests for each second of an unpaced window the load process prepares before the
// window starts: more than either system serves on the benchmark's machine. A faster server finds the prepared
// requests run out; the rest are then prepared during the window, on the CPU the server shares, and counted.
const preparedPerSecond = 8000

// maxPrepared bounds the requests prepared before a window, so that a long window does not spend minutes and much
// memory preparing: past it, the rest are prepared during the window, and counted.
const maxPrepared = 100_000

// loadReady is the line the child prints once it is about to send its first request, so the parent can read its
// own CPU time just then and not charge the child's start-up to the server.
const loadReady = "ready"

// Load is the load process of Run (sigil bench --load): it reads a plan from in, runs it, and reports on out.
func Load(ctx context.Context, in io.Reader, out io.Writer) error {
	var p loadPlan
	if err := json.NewDecoder(in).Decode(&p); err != nil {
		return fmt.Errorf("bench --load: read plan: %w", err)
	}
	op, err := newLoadOp(ctx, p)
	if err != nil {
		return err
	}
	ahead, err := prepareAhead(p, op)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, loadReady)
	return json.NewEncoder(out).Encode(runPlan(ctx, p, ahead))
}

// prepared are a window's requests, built and stamped before it starts, so that the load process spends the window
// sending requests and reading answers, not signing stamps on the cores the server shares: a Sigil request carries a
// P-256 stamp over its body, which the peer's requests do not, and stamping it during the window would take from
// Sigil's share of the machine alone.
type prepared struct {
	op   loadOp
	reqs []*http.Request
	next atomic.Int64
	late atomic.Int64
}

// toPrepare is how many requests to prepare before p's window: what a paced window sends, or what an unpaced one is
// expected to, at most maxPrepared.
func toPrepare(p loadPlan) int {
	n := p.Duration.Seconds() * preparedPerSecond
	if p.Rate > 0 {
		n = p.Duration.Seconds()*p.Rate + float64(p.Clients)
	}
	return int(min(n, maxPrepared))
}

// prepareAhead prepares the requests a window is expected to send, on every core.
func prepareAhead(p loadPlan, op loadOp) (*prepared, error) {
	n := toPrepare(p)
	q := &prepared{op: op, reqs: make([]*http.Request, n)}
	var (
		wg       sync.WaitGroup
		failed   atomic.Pointer[error]
		workers  = runtime.NumCPU()
		perShare = (n + workers - 1) / workers
	)
	for w := range workers {
		wg.Go(func() {
			for i := w * perShare; i < min(n, (w+1)*perShare) && failed.Load() == nil; i++ {
				req, err := op.prepare()
				if err != nil {
					failed.Store(&err)
					return
				}
				q.reqs[i] = req
			}
		})
	}
	wg.Wait()
	if errp := failed.Load(); errp != nil {
		return nil, *errp
	}
	return q, nil
}

// take is the next request to send: a prepared one while they last, then one prepared now.
func (q *prepared) take() (*http.Request, error) {
	if i := int(q.next.Add(1) - 1); i < len(q.reqs) {
		req := q.reqs[i]
		q.reqs[i] = nil // sent once; let it go
		return req, nil
	}
	q.late.Add(1)
	return q.op.prepare()
}

// loadOp is one operation of a plan: prepare builds its next request, stamped and ready to send, and send sends one
// and checks the answer.
type loadOp struct {
	prepare func() (*http.Request, error)
	send    func(*http.Request) error
}

// newLoadOp makes the plan's operation with the plan's API key. Its requests are built by the SDK without being sent
// (client.NewSubmitRequest, NewQueryRequest), so that they are built and stamped before the window (prepareAhead), and
// the latency measured is the server's round trip.
func newLoadOp(ctx context.Context, p loadPlan) (loadOp, error) {
	// Every operation, against Sigil or its peer, sends over the same kind of client: one kept-alive connection a client.
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: p.Clients}}
	if p.Op == "transit_sign" {
		return transitSign(ctx, p, httpClient), nil
	}
	key, err := stamp.ParseAPIKey(p.Curve, p.PrivateKey)
	if err != nil {
		return loadOp{}, err
	}
	c := client.New(p.URL, key)
	c.HTTP = httpClient
	// Seeded from the clock so that nonces and user names differ between the phases of one run as well: every request
	// is a new activity, never an idempotent replay of an earlier one.
	var n atomic.Uint64
	n.Store(uint64(time.Now().UnixNano()))
	activity := func(spec api.ActivitySpec, params func() any) loadOp {
		return loadOp{
			prepare: func() (*http.Request, error) { return c.NewSubmitRequest(ctx, p.Org, spec, params()) },
			send: func(req *http.Request) error {
				res, err := c.HTTP.Do(req)
				if err != nil {
					return err
				}
				return readActivityOutcome(res)
			},
		}
	}
	switch p.Op {
	case "sign":
		return activity(api.SignTransactionV2.ActivitySpec, func() any {
			return api.SignTransactionIntentV2{SignWith: p.SignWith, UnsignedTransaction: unsignedApproval(p.To, n.Add(1)),
				Type: api.TransactionTypeEthereum}
		}), nil
	case "sign_raw":
		return activity(api.SignRawPayloadV2.ActivitySpec, func() any {
			return api.SignRawPayloadIntentV2{SignWith: p.SignWith, Payload: "0x" + hex.EncodeToString(digest(n.Add(1))),
				Encoding: string(evm.EncodingHexadecimal), HashFunction: string(evm.HashNoOp)}
		}), nil
	case "whoami":
		return loadOp{
			prepare: func() (*http.Request, error) {
				return c.NewQueryRequest(ctx, api.Whoami.Path, api.OrganizationRequest{OrganizationID: p.Org})
			},
			send: func(req *http.Request) error { return do(c, req, &api.WhoamiResponse{}) },
		}, nil
	case "create_users":
		return activity(api.CreateUsersV3.ActivitySpec, func() any {
			return api.CreateUsersIntentV3{Users: []api.UserParamsV3{{
				UserName: fmt.Sprintf("user-%d", n.Add(1)), APIKeys: []api.APIKeyParamsV2{},
				Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}}
		}), nil
	}
	return loadOp{}, fmt.Errorf("bench --load: unknown operation %q", p.Op)
}

// transitSign signs a new 32-byte digest a request with the transit engine of OpenBao or Vault (POST
// /v1/transit/sign/:key, prehashed), the peer of a side-by-side run.
func transitSign(ctx context.Context, p loadPlan, hc *http.Client) loadOp {
	url := strings.TrimSuffix(p.URL, "/") + "/v1/transit/sign/" + p.Key
	var n atomic.Uint64
	n.Store(uint64(time.Now().UnixNano()))
	return loadOp{
		prepare: func() (*http.Request, error) {
			body, err := json.Marshal(transitSignRequest{Input: base64.StdEncoding.EncodeToString(digest(n.Add(1))),
				Prehashed: true, HashAlgorithm: "sha2-256"})
			if err != nil {
				return nil, err
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Vault-Token", p.Token)
			return req, nil
		},
		send: func(req *http.Request) error {
			res, err := hc.Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			var out struct {
				Data struct {
					Signature string `json:"signature"`
				} `json:"data"`
				Errors []string `json:"errors"`
			}
			if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&out); err != nil {
				return fmt.Errorf("transit sign: %s: %w", res.Status, err)
			}
			if res.StatusCode != http.StatusOK || out.Data.Signature == "" {
				return fmt.Errorf("transit sign: %s %v", res.Status, out.Errors)
			}
			return nil
		},
	}
}

type transitSignRequest struct {
	Input         string `json:"input"`
	Prehashed     bool   `json:"prehashed"`
	HashAlgorithm string `json:"hash_algorithm"`
}

// digest is the n-th digest a load signs: a new one each request, so that no request repeats an earlier one.
func digest(n uint64) []byte {
	d := sha256.Sum256(binary.BigEndian.AppendUint64(nil, n))
	return d[:]
}

// do sends a prepared request and reads its answer into out.
func do(c *client.Client, req *http.Request, out any) error {
	res, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return client.ReadResponse(res, out)
}

// unsignedApproval is an unsigned EIP-1559 approve(spender, 1) to the token, as viem serializes it.
func unsignedApproval(to string, nonce uint64) string {
	data := common.FromHex("0x095ea7b3" + strings.Repeat("0", 24) + strings.TrimPrefix(to, "0x") + strings.Repeat("0", 63) + "1")
	enc, _ := rlp.EncodeToBytes([]any{big.NewInt(1337), nonce, big.NewInt(1e9), big.NewInt(2e9), uint64(100000),
		common.HexToAddress(to), big.NewInt(0), data, types.AccessList{}})
	return hex.EncodeToString(append([]byte{2}, enc...))
}

// runPlan sends the prepared requests from p.Clients goroutines for p.Duration and summarises the latencies.
func runPlan(ctx context.Context, p loadPlan, q *prepared) loadResult {
	var (
		mu  sync.Mutex
		lat []time.Duration
		res loadResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(p.Duration)
	for i := range p.Clients {
		wg.Go(func() {
			runClient(ctx, p, start.Add(stagger(p, i)), deadline, q, func(d time.Duration, err error) {
				mu.Lock()
				defer mu.Unlock()
				lat = append(lat, d)
				if err != nil {
					if res.Errors++; res.FirstError == "" {
						res.FirstError = err.Error()
					}
				}
			})
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.PreparedLate = int(q.late.Load())
	if res.Count = len(lat); res.Count > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		res.P50, res.P99, res.Max = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	}
	return res
}

// interval is the time between one client's scheduled starts at the plan's total rate, 0 when unpaced.
func interval(p loadPlan) time.Duration {
	if p.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(p.Clients) / p.Rate * float64(time.Second))
}

// stagger spreads the clients' first starts over one interval, so that paced requests arrive evenly rather than all
// clients at once every interval.
func stagger(p loadPlan, client int) time.Duration {
	return interval(p) * time.Duration(client) / time.Duration(p.Clients)
}

// runClient is one client: unpaced it sends the next request as soon as the last one returns; paced it keeps an
// absolute schedule (first, first+interval, ...) that does not slip when the server is slow (open loop). Each request
// is prepared (built and stamped) before its start, most before the window.
func runClient(ctx context.Context, p loadPlan, first, deadline time.Time, q *prepared, record func(time.Duration, error)) {
	every := interval(p)
	for n := 0; ctx.Err() == nil; n++ {
		due := first.Add(time.Duration(n) * every)
		if every == 0 {
			due = time.Now()
		}
		if !due.Before(deadline) {
			return
		}
		req, err := q.take()
		if err != nil {
			record(0, err)
			return
		}
		if every == 0 {
			due = time.Now() // a request prepared late: its preparation is not the server's time
		}
		from := due // late: the wait since the scheduled start is part of the latency
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
			from = time.Now() // on time: the timer's own lateness is not the server's
		}
		err = q.op.send(req)
		record(time.Since(from), err)
	}
}
