package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// BenchmarkDurableWrites measures write transactions of one activity row each (a record of about 1.5 KB, the size of
// a signing activity's) from 1, 2, 4, 8 and 32 concurrent writers on SQLite, each answered once durable: the commit
// path alone, without HTTP or cryptography. ns/op is the wall time per write over all writers.
func BenchmarkDurableWrites(b *testing.B) {
	for _, writers := range []int{1, 2, 4, 8, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			durableWrites(b, openBenchStore(b), writers, nil)
		})
	}
}

// openBenchStore is a new SQLite store for a benchmark, closed when it ends.
func openBenchStore(b *testing.B) *store.Store {
	s, err := store.Open(context.Background(), testdb.SQLite(b).URL, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// durableWrites runs b.N write transactions, each recording one activity (a record of about 1.5 KB, the size of a
// signing activity's) and then calling also, when given, with the activity's id, from exactly this many writers,
// whatever GOMAXPROCS is (b.RunParallel would start a multiple of it).
func durableWrites(b *testing.B, s *store.Store, writers int, also func(tx *store.Tx, activity string) error) {
	ctx := context.Background()
	record := []byte(`{"intent":"` + strings.Repeat("x", 1500) + `"}`)
	var n, left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	b.ResetTimer()
	for range writers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				id := fmt.Sprintf("a%d", n.Add(1))
				if err := s.Write(ctx, func(tx *store.Tx) error {
					_, err := tx.InsertActivity(ctx, store.Activity{ID: id, OrgID: "o", Fingerprint: id, Type: "T", Status: "S", Record: record})
					if err != nil || also == nil {
						return err
					}
					return also(tx, id)
				}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
