package main

import (
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/sigil -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./cmd/sigil -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

// transcript is what a command line printed and how it exited, as the golden files hold it.
func transcript(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := sigil(t, args...)
	return "exit " + strconv.Itoa(code) + "\n--- stdout\n" + out + "--- stderr\n" + errs
}

// Help goes to stdout with exit 0 however it is asked for; a wrong command line prints its error once, on stderr,
// and exits 2.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden string
		lines  [][]string // each prints the golden file
	}{
		{"help.golden", [][]string{{"--help"}, {"-h"}, {"help"}}},
		{"up_help.golden", [][]string{{"help", "up"}, {"up", "--help"}, {"up", "-h"}}},
		{"keys_help.golden", [][]string{{"help", "keys"}, {"keys", "--help"}, {"keys", "help"}}},
		{"mcp_help.golden", [][]string{{"help", "mcp"}, {"mcp", "--help"}, {"mcp", "-h"}}},
		{"unknown_command.golden", [][]string{{"nosuch"}, {"help", "nosuch"}}},
		{"wrong_flag.golden", [][]string{{"up", "--nosuch"}}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			first := transcript(t, tc.lines[0]...)
			golden(t, tc.golden, first)
			for _, args := range tc.lines[1:] {
				if got := transcript(t, args...); got != first {
					t.Errorf("sigil %s prints otherwise than sigil %s:\n%s", strings.Join(args, " "), strings.Join(tc.lines[0], " "), got)
				}
			}
		})
	}
}

// sigil version describes the build from its build information.
func TestVersionGolden(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "sigil", Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "597e7b8c0ffee597e7b8c0ffee597e7b8c0ffee5"},
		{Key: "vcs.time", Value: "2026-05-01T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	golden(t, "version.golden", versionText(bi))
	if got := versionText(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "sigil"}}); !strings.Contains(got, "sigil (devel)\n") ||
		!strings.Contains(got, "revision unknown") {
		t.Errorf("a build without VCS information:\n%s", got)
	}
	out, errs, code := sigil(t, "version")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "sigil ") || !strings.Contains(out, "\ngo       go1.") {
		t.Errorf("sigil version: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := sigil(t, "version", "extra"); code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("sigil version extra: exit %d, %s", code, errs)
	}
}

// Every command and subcommand prints its usage for --help, -h and sigil help PATH alike, on stdout, with exit 0;
// no usage string holds a backquote (the flag package would make the quoted word the flag's value name).
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	var walk func(c *command, path []string)
	walk = func(c *command, path []string) {
		for _, sub := range c.subs {
			if sub.hidden {
				continue
			}
			p := append(append([]string(nil), path...), sub.name)
			t.Run(strings.Join(p, " "), func(t *testing.T) {
				t.Parallel()
				out, errs, code := sigil(t, append(p, "--help")...)
				if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: sigil "+strings.Join(p, " ")) {
					t.Fatalf("--help: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
				}
				if strings.Contains(out, "`") {
					t.Errorf("the usage holds a backquote:\n%s", out)
				}
				if short, _, _ := sigil(t, append(p, "-h")...); short != out {
					t.Errorf("-h prints another usage than --help:\n%s", short)
				}
				if viaHelp, _, code := sigil(t, append([]string{"help"}, p...)...); viaHelp != out || code != 0 {
					t.Errorf("sigil help %s prints another usage (exit %d):\n%s", strings.Join(p, " "), code, viaHelp)
				}
			})
			walk(sub, p)
		}
	}
	walk(commands(), nil)
}

// Wrong command lines exit 2 and say what was wrong on stderr, once.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: sigil COMMAND"},
		{[]string{"keys"}, "usage: sigil keys COMMAND"},
		{[]string{"keys", "old"}, `sigil keys: unknown command "old"`},
		{[]string{"help", "keys", "old"}, `sigil keys: unknown command "old"`},
		{[]string{"chain", "fund"}, "sigil chain fund: ADDRESS is required"},
		{[]string{"up", "extra"}, `sigil up: unexpected argument "extra"`},
		{[]string{"bench", "--rounds", "0"}, "sigil bench: --clients and --rounds must be at least 1"},
		{[]string{"yield", "keys", "create"}, "sigil yield keys create: --project is required"},
	} {
		out, errs, code := sigil(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("sigil %s: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", strings.Join(tc.args, " "), code, out, errs, tc.want)
		}
		if strings.Count(errs, tc.want) != 1 {
			t.Errorf("sigil %s prints its error %d times:\n%s", strings.Join(tc.args, " "), strings.Count(errs, tc.want), errs)
		}
	}
}

// A flag comes from the command line, else SIGIL_ and its name in the environment, else the --config file, else its
// default; a wrong value or an unknown name says where it was.
func TestSettingsPrecedence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sigil.conf")
	conf := "# settings\nlisten = 127.0.0.1:1111\nyield-listen = 127.0.0.1:2222\n\ndatabase-url = postgres://sigil:hunter2@db/sigil\n" +
		"trusted-oidc-issuer = google\ntrusted-oidc-issuer = apple\n"
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{"SIGIL_YIELD_LISTEN": "127.0.0.1:3333", "SIGIL_LISTEN": "127.0.0.1:4444",
		"SIGIL_SMTP_PASSWORD": "smtp-hunter3", "SIGIL_TWILIO_AUTH_TOKEN": "twilio-hunter4"}
	out, errs, code := sigilEnv(t, environ, "config", "print", "--config", file, "--listen", "127.0.0.1:5555")
	if code != 0 {
		t.Fatalf("config print: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"# command line\nlisten = 127.0.0.1:5555\n",
		"# SIGIL_YIELD_LISTEN\nyield-listen = 127.0.0.1:3333\n",
		"# " + file + "\ndatabase-url = postgres://sigil:xxxxx@db/sigil\n",
		"# " + file + "\ntrusted-oidc-issuer = google\n# " + file + "\ntrusted-oidc-issuer = apple\n",
		"# default\nauthproxy-listen = 127.0.0.1:8082\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config print lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"hunter2", "smtp-hunter3", "twilio-hunter4"} {
		if strings.Contains(out, secret) {
			t.Errorf("config print shows the secret %s", secret)
		}
	}
	if !strings.Contains(out, "# SIGIL_SMTP_PASSWORD\nsmtp-password = xxxxx\n") {
		t.Errorf("config print does not say the SMTP password is set:\n%s", out)
	}

	if err := os.WriteFile(file, []byte("listen = 127.0.0.1:1\nlisten-typo = x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		environ map[string]string
		want    string
	}{
		{nil, file + `:2: "listen-typo" is not a setting of this command`},
		{map[string]string{"SIGIL_CHAIN_SIMULATE": "soon"}, `SIGIL_CHAIN_SIMULATE: invalid value "soon" for -chain-simulate`},
	} {
		_, errs, code := sigilEnv(t, tc.environ, "config", "print", "--config", file)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, tc.want)
		}
	}
}
