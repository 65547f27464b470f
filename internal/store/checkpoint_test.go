package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// Commits only append to the WAL; the checkpointer copies it into the database file in the background, well before
// the 1000 pages at which SQLite would have checkpointed inside a commit. In a synctest bubble, time passes only when
// every goroutine waits, so the background checkpoint is observed without polling.
func TestWALIsCheckpointedInTheBackground(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := testdb.SQLite(t)
		s := open(t, b)
		store.TuneCheckpointsForTest(s, 50*time.Millisecond, 1<<20)
		err := s.Write(ctx, func(tx *store.Tx) error {
			n, err := store.QueryIntForTest(ctx, tx, "PRAGMA wal_autocheckpoint")
			if err == nil && n != 0 {
				err = fmt.Errorf("the writer's wal_autocheckpoint is %d, want 0: commits would checkpoint", n)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		before := fileSize(t, b.URL)

		const rows, size = 100, 8 << 10 // 800 KiB: a fifth of the WAL at which SQLite checkpoints by itself
		record := []byte(`"` + strings.Repeat("x", size) + `"`)
		for i := range rows {
			err := s.Write(ctx, func(tx *store.Tx) error {
				_, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprint("a", i), OrgID: "o", Fingerprint: fmt.Sprint(i), Type: "T", Status: "S", Record: record})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		// The bubble's clock passes the checkpointer's period at once; Wait returns when it has checkpointed and
		// waits again.
		time.Sleep(time.Second)
		synctest.Wait()
		if got := fileSize(t, b.URL); got < before+rows*size {
			t.Fatalf("database file is %d bytes, %d before the writes: the WAL was not checkpointed", got, before)
		}
	})
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// Under writes that never pause, the WAL still starts over once it is full instead of growing without end: the WAL
// header's checkpoint sequence number counts the times it started over.
func TestWALStartsOverUnderUnbrokenWrites(t *testing.T) { // not parallel: it needs the writer's full speed for a while
	ctx := context.Background()
	b := testdb.SQLite(t)
	s := open(t, b)
	const interval = 50 * time.Millisecond
	store.TuneCheckpointsForTest(s, interval, 64)
	record := []byte(`"` + strings.Repeat("x", 1000) + `"`)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed error
	)
	stop := time.Now().Add(20 * interval)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; time.Now().Before(stop); i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				err := s.Write(ctx, func(tx *store.Tx) error {
					_, err := tx.InsertActivity(ctx, store.Activity{ID: id, OrgID: "o", Fingerprint: id, Type: "T", Status: "S", Record: record})
					return err
				})
				if err != nil {
					mu.Lock()
					failed = errors.Join(failed, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	header := make([]byte, 32)
	f, err := os.Open(b.URL + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, header); err != nil {
		t.Fatal(err)
	}
	if restarts := binary.BigEndian.Uint32(header[12:16]); restarts < 3 {
		t.Fatalf("the WAL started over %d times in %v of writes (%d checkpoints finished by the writer)",
			restarts, 20*interval, store.CheckpointsFinishedForTest(s))
	}
}
