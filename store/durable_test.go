package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigil/internal/testdb"
	"sigil/store"
)

// killedWriterEnv names the database a child of TestAcknowledgedWritesSurviveAKill writes to.
const killedWriterEnv = "SIGIL_STORE_KILLED_WRITER_URL"

// TestAcknowledgedWritesSurviveAKill: a process writing from many goroutines at once, killed with SIGKILL at an
// arbitrary moment, loses no write it had acknowledged (Write returned nil): every id it printed is in the database
// when it is opened again. On SQLite this is the pipelined committer: the writer commits the next groups while earlier
// ones are synced, and answers none before its sync. (SIGKILL leaves the kernel's page cache, so this checks the
// order of acknowledgements and syncs, not a power loss: durable.go argues that one.)
func TestAcknowledgedWritesSurviveAKill(t *testing.T) {
	if os.Getenv(killedWriterEnv) != "" {
		t.Skip("the child process runs TestKilledWriter")
	}
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		open(t, b).Close() // migrated before the child starts
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$", "-test.v")
		cmd.Env = append(os.Environ(), killedWriterEnv+"="+b.URL)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked []string
		lines := bufio.NewScanner(out)
		for lines.Scan() && len(acked) < 300 {
			if id, ok := strings.CutPrefix(lines.Text(), "acked "); ok {
				acked = append(acked, id)
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() { // what it acknowledged before it died
			if id, ok := strings.CutPrefix(lines.Text(), "acked "); ok {
				acked = append(acked, id)
			}
		}
		cmd.Wait()
		if len(acked) < 300 {
			t.Fatalf("the writer acknowledged only %d writes before it was killed", len(acked))
		}
		s := open(t, b)
		for _, id := range acked {
			if _, err := s.ActivityByID(context.Background(), id); err != nil {
				t.Fatalf("acknowledged write %s is lost after the kill: %v", id, err)
			}
		}
		t.Logf("%d acknowledged writes, all found after the kill", len(acked))
	})
}

// TestKilledWriter is the child of TestAcknowledgedWritesSurviveAKill: it writes from 16 goroutines until it is
// killed, and prints the id of each write once Write has returned.
func TestKilledWriter(t *testing.T) {
	url := os.Getenv(killedWriterEnv)
	if url == "" {
		t.Skip("runs as the child of TestAcknowledgedWritesSurviveAKill")
	}
	dir := ""
	if !strings.Contains(url, "://") {
		dir = strings.TrimSuffix(url, "/sigil.db")
	}
	s, err := store.Open(context.Background(), url, dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-%d-%d", w, i, time.Now().UnixNano())
				err := s.Write(context.Background(), func(tx *store.Tx) error {
					_, err := tx.InsertActivity(context.Background(), store.Activity{ID: id, OrgID: "o", Fingerprint: id, Type: "T", Status: "S", Record: []byte(`{}`)})
					return err
				})
				if err != nil {
					fmt.Println("error", err)
					return
				}
				mu.Lock()
				fmt.Println("acked", id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
