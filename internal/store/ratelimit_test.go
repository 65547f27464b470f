package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/testdb"
)

// A shared token bucket: burst at once, then perSecond, exactly, also when several take at the same time.
func TestTakeToken(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		now := time.Unix(1000, 0)
		var taken atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				ok, _, err := s.TakeToken(ctx, "ip:1", now, 2, 5)
				if err != nil {
					t.Error(err)
				}
				if ok {
					taken.Add(1)
				}
			})
		}
		wg.Wait()
		if n := taken.Load(); n != 5 {
			t.Fatalf("%d tokens taken at once from a bucket of 5", n)
		}
		ok, wait, err := s.TakeToken(ctx, "ip:1", now, 2, 5)
		if err != nil || ok || wait != 500*time.Millisecond {
			t.Fatalf("empty bucket: %v %s %v", ok, wait, err)
		}
		if ok, _, _ := s.TakeToken(ctx, "ip:1", now.Add(500*time.Millisecond), 2, 5); !ok {
			t.Fatal("no token after the refill time")
		}
		if ok, _, _ := s.TakeToken(ctx, "ip:2", now, 2, 5); !ok {
			t.Fatal("another bucket is empty")
		}
		if err := s.SweepRateLimits(ctx, now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		for range 5 { // swept: full again
			if ok, _, _ := s.TakeToken(ctx, "ip:1", now.Add(2*time.Second), 2, 5); !ok {
				t.Fatal("a swept bucket is not full")
			}
		}
	})
}

// A shared fixed window counts every request of every process, and a new window starts at one.
func TestCountRequest(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		w := time.Unix(600, 0)
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if _, err := s.CountRequest(ctx, "key:1", w); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n, err := s.CountRequest(ctx, "key:1", w); err != nil || n != 11 {
			t.Fatalf("the 11th request counted %d, %v", n, err)
		}
		if n, _ := s.CountRequest(ctx, "key:1", w.Add(time.Minute)); n != 1 {
			t.Fatalf("a new window starts at %d", n)
		}
		if err := s.SweepRateLimits(ctx, w.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountRequest(ctx, "key:1", w); n != 1 {
			t.Fatalf("a swept window counts from %d", n)
		}
	})
}
