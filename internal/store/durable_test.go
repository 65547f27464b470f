package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// killedWriterEnv names the database a child of TestAcknowledgedWritesSurviveAKill writes to.
const (
	killedWriterEnv  = "SIGIL_STORE_KILLED_WRITER_URL"
	killedWritersEnv = "SIGIL_STORE_KILLED_WRITERS" // how many goroutines the child writes from
)

// TestAcknowledgedWritesSurviveAKill: a process writing from one goroutine, or from many at once, killed with SIGKILL
// at an arbitrary moment, loses no write it had acknowledged (Write returned nil): every id it printed is in the
// database when it is opened again. On SQLite, one goroutine's writes each run alone on its caller's goroutine, and
// many goroutines' go through the pipelined committer: the writer commits the next groups while earlier ones are
// synced, and answers none before its sync. (SIGKILL leaves the kernel's page cache, so this checks the
// order of acknowledgements and syncs, not a power loss: durable.go argues that one.)
func TestAcknowledgedWritesSurviveAKill(t *testing.T) {
	if os.Getenv(killedWriterEnv) != "" {
		t.Skip("the child process runs TestKilledWriter")
	}
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for _, writers := range []int{1, 16} {
			t.Run(fmt.Sprint("writers=", writers), func(t *testing.T) { killWriters(t, b, writers) })
		}
	})
}

// killWriters runs a child writing from writers goroutines, kills it once it has acknowledged 300 writes, and looks for
// every write it acknowledged.
func killWriters(t *testing.T, b testdb.Backend, writers int) {
	open(t, b).Close() // migrated before the child starts
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$", "-test.v")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+b.URL, fmt.Sprint(killedWritersEnv, "=", writers))
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
	if err := cmd.Process.Kill(); err != nil {
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
		if _, err := s.ActivityByID(context.Background(), "o", id); err != nil {
			t.Fatalf("acknowledged write %s is lost after the kill: %v", id, err)
		}
	}
	t.Logf("%d acknowledged writes, all found after the kill", len(acked))
}

// TestKilledWriter is the child of TestAcknowledgedWritesSurviveAKill: it writes from as many goroutines as it is told
// until it is killed, and prints the id of each write once Write has returned.
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
	writers, err := strconv.Atoi(os.Getenv(killedWritersEnv))
	if err != nil {
		t.Fatal(err)
	}
	for w := range writers {
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
