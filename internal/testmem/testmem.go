// Package testmem runs a test in a child process whose memory is capped, so that a test of code that might allocate
// without bound (a decoder fed a hostile input) fails, its child dying of "out of memory", instead of taking the
// machine's memory, and every other test's, with it. Only tests use it.
package testmem

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// childEnv names, in a child, the test it runs.
const childEnv = "SIGIL_TESTMEM_CHILD"

// Capped runs the calling top-level test again in a child process of the test binary that may map at most limit bytes
// more than it has mapped when the test starts, and reports the child's outcome as the test's. It returns true in the
// child, where the test goes on under the limit, and false in the parent, which must then return:
//
//	if !testmem.Capped(t, 2<<30) {
//		return
//	}
//
// Under the race detector, whose shadow memory needs a vast address space, and where no limit can be set, it returns
// true at once: the test runs in its own process, uncapped.
func Capped(t *testing.T, limit uint64) bool {
	t.Helper()
	if strings.Contains(t.Name(), "/") {
		t.Fatalf("testmem.Capped runs a top-level test again; %s is a subtest", t.Name())
	}
	if os.Getenv(childEnv) == t.Name() {
		if err := limitAddressSpace(limit); err != nil {
			t.Fatalf("capping the child's memory: %v", err)
		}
		return true
	}
	if raceEnabled || !canLimit {
		t.Logf("running uncapped: %s", map[bool]string{true: "the race detector needs the address space", false: "no limit can be set here"}[raceEnabled])
		return true
	}
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.Name()) + "$", "-test.count=1", "-test.v"}
	if deadline, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(deadline).Truncate(time.Second).String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("the test failed in a child process capped at %d MiB (%v):\n%s", limit>>20, err, tail(out, 60))
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name())):
		t.Skipf("skipped in the child process:\n%s", tail(out, 20))
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Fatalf("the child process did not run %s:\n%s", t.Name(), tail(out, 60))
	default:
		t.Logf("passed in a child process capped at %d MiB", limit>>20)
	}
	return false
}

// tail is the last n lines of out: where a fatal error and its first goroutine are.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		// A crash prints its reason first, then every goroutine: keep the reason.
		for i, l := range lines {
			if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
				return strings.Join(lines[i:min(i+n, len(lines))], "\n")
			}
		}
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
