package send

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/store"
)

// Config is what the worker needs.
type Config struct {
	Store    *store.Store
	Networks *Networks
	// OpenKey opens a sealed key for one signature; the worker wipes it after.
	OpenKey func(ctx context.Context, keySecret string) ([]byte, error)
	// Sponsor is an organization's gas sponsor, created on first use: its sealed key and its address. Nil refuses
	// sponsored sends.
	Sponsor func(ctx context.Context, orgID string) (keySecret string, address common.Address, err error)
	// SolanaSponsor is an organization's Solana fee sponsor, created on first use: its sealed Ed25519 key and its
	// address (base58). Nil refuses sponsored Solana sends.
	SolanaSponsor func(ctx context.Context, orgID string) (keySecret, address string, err error)
	// SponsorLimits reads the gas-spend limits an organization's sponsored sends are held to, before the transaction
	// that signs one. Nil (or a nil SponsorLimits) limits nothing.
	SponsorLimits func(ctx context.Context, orgID string) (SponsorLimits, error)
	// CustomErrors decodes custom errors with uploaded interfaces (nil: none are decoded).
	CustomErrors CustomErrors
	// Changed runs in the transaction that moves a send to another status (webhook deliveries written with it), and
	// Committed after that transaction commits (to wake the delivery worker); nil for nothing.
	Changed   func(ctx context.Context, tx *store.Tx, s store.Send) error
	Committed func()
	Now       func() time.Time // default time.Now
	Logger    *slog.Logger     // default slog.Default()
	// Lease is how long a worker holds a send it works on (default 30 s): another process takes it over after.
	Lease time.Duration
	// Parallel is how many sends of one network a worker moves at once (default 16).
	Parallel int
	// GiveUp is how long a send not yet signed waits for its network's node to answer before it fails (default 10
	// minutes). A signed send never gives up: its nonce must not be left unused.
	GiveUp time.Duration
}

// SponsorLimits are an organization's gas-spend limits, as the worker checks a sponsored send against them.
type SponsorLimits interface {
	// Check refuses, with an *apierr.Error, a sponsored send its organization may not make: sponsorship disabled, or
	// the spend in a window of its limits (what its sponsored sends cost, and what those signed may still cost) past
	// the limit with cost, the most this one may cost on network in its smallest unit (nil before it is priced). In
	// tx, it first locks the billing organization's spend and reads there, so that one check and the reservation of
	// what the send may cost (written in tx) are one step, from any process.
	Check(ctx context.Context, tx *store.Tx, network string, cost *big.Int) error
}

// Worker moves the sends of every configured network from INITIALIZED to a final state. Several workers (one per
// process) may run over one database: a send is worked on by one at a time (its lease).
type Worker struct {
	cfg  Config
	wake chan struct{}
	// sponsoring makes a sponsored send's limit check and its signing (which reserves its most possible cost) one
	// step, so that sends signed at once cannot all pass the same check.
	sponsoring sync.Mutex
}

// NewWorker returns a worker; Run starts it.
func NewWorker(cfg Config) *Worker {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Lease = cmp.Or(cfg.Lease, 30*time.Second)
	cfg.Parallel = cmp.Or(cfg.Parallel, 16)
	cfg.GiveUp = cmp.Or(cfg.GiveUp, 10*time.Minute)
	return &Worker{cfg: cfg, wake: make(chan struct{}, 1)}
}

// Wake tells the worker a send is waiting, so that it looks now rather than at its next poll.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run works until ctx ends, one loop per network.
func (w *Worker) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wakes := map[string]chan struct{}{}
	for _, nw := range w.cfg.Networks.List() {
		wake := make(chan struct{}, 1)
		wakes[nw.CAIP2] = wake // the loops start while the map is still filled: each takes its channel, not the map
		wg.Go(func() { w.loop(ctx, nw, wake) })
	}
	wg.Go(func() { // one wake reaches every network's loop
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.wake:
				for _, ch := range wakes {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
			}
		}
	})
	wg.Wait()
	return nil
}

func (w *Worker) loop(ctx context.Context, nw Network, wake <-chan struct{}) {
	if nw.Solana() {
		w.solanaLoop(ctx, nw, wake)
		return
	}
	var client *ethclient.Client
	defer func() {
		if client != nil {
			client.Close()
		}
	}()
	w.every(ctx, nw, wake, func(ctx context.Context) error {
		if client == nil {
			cl, err := ethclient.DialContext(ctx, nw.RPCURL)
			if err != nil {
				return nil // dialled again at the next poll
			}
			client = cl
		}
		if w.cfg.Networks.BlockGasLimit(nw.CAIP2) == 0 { // what the checks of gas limits at submission compare with
			if head, err := client.HeaderByNumber(ctx, nil); err == nil {
				w.cfg.Networks.sawBlockGasLimit(nw.CAIP2, head.GasLimit)
			}
		}
		return w.poll(ctx, &chainClient{client}, nw)
	})
}

// every runs poll at once, then at each tick of the network's poll interval and at each wake, until ctx ends; its
// errors are logged.
func (w *Worker) every(ctx context.Context, nw Network, wake <-chan struct{}, poll func(context.Context) error) {
	t := time.NewTicker(cmp.Or(nw.PollInterval, 500*time.Millisecond))
	defer t.Stop()
	for {
		if err := poll(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("send worker", "network", nw.CAIP2, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
	}
}

// poll moves on the sends of the network that are due, up to Parallel at once.
func (w *Worker) poll(ctx context.Context, cl *chainClient, nw Network) error {
	return w.pollEach(ctx, nw, func(ctx context.Context, s store.Send) error { return w.step(ctx, cl, nw, s) })
}

// pollEach runs step on each send of the network that is due, up to Parallel at once.
func (w *Worker) pollEach(ctx context.Context, nw Network, step func(context.Context, store.Send) error) error {
	due, err := w.cfg.Store.DueSends(ctx, nw.CAIP2, w.cfg.Now().UnixNano(), 500)
	if err != nil {
		return err
	}
	sem := make(chan struct{}, w.cfg.Parallel)
	var wg sync.WaitGroup
	for _, s := range due {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			// The step ends before its lease: no other worker takes the send over while this one works on it (and
			// should it, the version check of save keeps the first write and drops the other).
			ctx, cancel := context.WithTimeout(ctx, w.cfg.Lease*2/3)
			defer cancel()
			if err := step(ctx, s); err != nil && ctx.Err() == nil {
				w.cfg.Logger.Warn("send worker", "send", s.ID, "err", err)
			}
		})
	}
	wg.Wait()
	return nil
}

// changer is how a watch writes a change to a send it has read: it claims the send first and writes nothing when
// another worker holds it, so that a send waiting on the chain costs no write.
func (w *Worker) changer(ctx context.Context, s store.Send) func(write func() error) error {
	return func(write func() error) error {
		if claimed, err := w.claim(ctx, s); !claimed || err != nil {
			return err
		}
		return write()
	}
}

// claim takes the send for this worker until its lease ends, as it was read: false when another worker has it, or
// moved it on since.
func (w *Worker) claim(ctx context.Context, s store.Send) (bool, error) {
	now := w.cfg.Now()
	return w.cfg.Store.ClaimSend(ctx, s.OrgID, s.ID, s.UpdatedAt, now.UnixNano(), now.Add(w.cfg.Lease).UnixNano())
}

// step moves one send on: a send not yet signed is checked, priced, numbered and signed; a signed one is broadcast,
// or looked for in the chain.
// A signed send is only looked at until something changes: the worker claims it (and writes) only then.
func (w *Worker) step(ctx context.Context, cl *chainClient, nw Network, s store.Send) error {
	if s.RawTx != "" {
		return w.watch(ctx, cl, s)
	}
	if claimed, err := w.claim(ctx, s); !claimed || err != nil {
		return err
	}
	return w.sign(ctx, cl, nw, s)
}

// retryIn leaves a send in its state with the reason it did not move (an unreachable node), due again later; a send
// not yet signed fails once it has waited GiveUp.
func (w *Worker) retryIn(ctx context.Context, s store.Send, reason error) error {
	if waited := w.cfg.Now().Sub(time.Unix(0, s.CreatedAt)); s.RawTx == "" && waited >= w.cfg.GiveUp {
		return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("nothing was signed: %v, for %s", reason, w.cfg.GiveUp)})
	}
	s.Attempts++
	backoff := min(time.Duration(s.Attempts)*500*time.Millisecond, 30*time.Second)
	s.NextAt = w.cfg.Now().Add(backoff).UnixNano()
	s.Error = encodeError(&api.TxError{Message: reason.Error()})
	return w.save(ctx, s, nil)
}

// fail ends a send with its reason. Its transaction was not mined, so it costs a sponsor nothing: the cost reserved
// when it was signed goes (a mined transaction that reverted fails in included, at its cost).
func (w *Worker) fail(ctx context.Context, s store.Send, reason *api.TxError) error {
	s.Status, s.Error, s.GasCostWei = store.SendFailed, encodeError(reason), ""
	return w.save(ctx, s, nil)
}

// save writes the send's progress, after first (writes of the same transaction that may change the send; nil for
// none), and tells Changed.
func (w *Worker) save(ctx context.Context, s store.Send, first func(tx *store.Tx, s *store.Send) error) error {
	// The step's deadline bounds its calls to the node, not the record of what came of them: a node too slow for the
	// step must still leave the send saying so.
	ctx = context.WithoutCancel(ctx)
	readAt := s.UpdatedAt
	s.UpdatedAt = max(w.cfg.Now().UnixNano(), readAt+1) // a new version, which a worker holding the old one cannot overwrite
	changed := false
	err := w.cfg.Store.Write(ctx, func(tx *store.Tx) error {
		s := s // a transaction the store runs again starts from the same send
		was, err := tx.SendStatus(ctx, s.OrgID, s.ID)
		if err != nil {
			return err
		}
		if first != nil {
			if err := first(tx, &s); err != nil {
				return err
			}
		}
		if err := tx.UpdateSend(ctx, s, readAt); err != nil {
			return err
		}
		if changed = s.Status != was && w.cfg.Changed != nil && !isFill(s); changed { // a filler is no send of the caller's
			return w.cfg.Changed(ctx, tx, s)
		}
		return nil
	})
	if err == nil && changed && w.cfg.Committed != nil {
		w.cfg.Committed()
	}
	return err
}

func encodeError(e *api.TxError) []byte {
	if e == nil {
		return nil
	}
	b, _ := json.Marshal(e)
	return b
}

// Status is a send as get_send_transaction_status shows it.
func Status(s store.Send) *api.GetSendTransactionStatusResponse {
	out := &api.GetSendTransactionStatusResponse{TxStatus: s.Status}
	switch {
	case s.TxHash == "":
	case strings.HasPrefix(s.Network, "solana:"):
		out.Solana = &api.SolanaSendTxStatus{Signature: s.TxHash}
	default:
		out.Eth = &api.EthSendTxStatus{TxHash: s.TxHash}
	}
	if len(s.Error) > 0 {
		var e api.TxError
		if json.Unmarshal(s.Error, &e) == nil {
			out.TxError = e.Message
			if s.Status == store.SendFailed {
				out.Error = &e
			}
		}
	}
	return out
}

// errNoAnswer marks an error of the network (no answer, a timeout) as opposed to the node's answer.
var errNoAnswer = errors.New("the network's node did not answer")
