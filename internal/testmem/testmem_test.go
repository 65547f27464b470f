package testmem

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A test within its cap passes as itself.
func TestCappedPasses(t *testing.T) {
	if !Capped(t, 1<<30) {
		return
	}
	small := make([]byte, 16<<20)
	small[len(small)-1] = 1
}

// TestHog allocates 1 GiB under a cap of 256 MiB. TestCappedFailsAHog runs it, expecting it to fail.
func TestHog(t *testing.T) {
	if os.Getenv("SIGIL_TESTMEM_HOG") == "" {
		t.Skip("run by TestCappedFailsAHog")
	}
	if !Capped(t, 256<<20) {
		return
	}
	var hog [][]byte
	for range 16 {
		chunk := make([]byte, 64<<20)
		chunk[len(chunk)-1] = 1
		hog = append(hog, chunk)
	}
	t.Logf("allocated %d chunks", len(hog))
}

func TestCappedFailsAHog(t *testing.T) {
	if raceEnabled || !canLimit {
		t.Skip("no cap can be set here")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHog$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "SIGIL_TESTMEM_HOG=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a test allocating 1 GiB under a 256 MiB cap passed:\n%s", out)
	}
	for _, want := range []string{"the test failed in a child process capped at 256 MiB", "out of memory"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the hog's output does not say %q:\n%s", want, out)
		}
	}
}
