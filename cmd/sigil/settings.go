package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// A flag not given on the command line may come from the environment, SIGIL_ and its name in capitals with dashes as
// underscores (SIGIL_DATABASE_URL for --database-url), and then, for a command with a --config flag, from that file.
// The command line wins over the environment, which wins over the file, which wins over the defaults: what an
// operator types overrides what a unit file sets, which overrides what the image ships.

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return "SIGIL_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// getenv reads a variable of the environment the command runs in.
func (e *env) getenv(name string) (string, bool) {
	if e.lookupEnv == nil {
		return os.LookupEnv(name)
	}
	return e.lookupEnv(name)
}

// applySettings fills the flags of fs that the command line left unset from the environment and the --config file.
func (e *env) applySettings(fs *flag.FlagSet) error {
	given := map[string]bool{}
	e.sources = map[string]string{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true; e.sources[f.Name] = "command line" })
	lookup := e.getenv
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		if v, ok := lookup(envName(f.Name)); ok {
			if setErr := fs.Set(f.Name, v); setErr != nil {
				err = fmt.Errorf("%s: invalid value %q for -%s: %w", envName(f.Name), v, f.Name, setErr)
			}
			given[f.Name] = true
			e.sources[f.Name] = envName(f.Name)
		}
	})
	if err != nil {
		return err
	}
	if cfg := fs.Lookup("config"); cfg != nil && cfg.Value.String() != "" {
		return applyConfigFile(fs, cfg.Value.String(), given, e.sources)
	}
	return nil
}

// applyConfigFile reads a configuration file: one `name = value` per line, name a flag of the command without its
// dashes, blank lines and lines starting with # ignored. A value is taken as written, to the end of the line, spaces
// at either end trimmed; a name given twice is given twice, as on the command line (a repeatable flag gets both values,
// another keeps the last). A name the command does not have is an error naming its line.
func applyConfigFile(fs *flag.FlagSet, path string, given map[string]bool, sources map[string]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok || name == "":
			return fmt.Errorf("%s:%d: want name = value", path, n)
		case name == "config" || fs.Lookup(name) == nil:
			return fmt.Errorf("%s:%d: %q is not a setting of this command", path, n, name)
		}
		if given[name] {
			continue
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("%s:%d: invalid value %q for -%s: %w", path, n, value, name, err)
		}
		sources[name] = path
	}
	return sc.Err()
}

// secretFlags are the flags whose values config print never shows.
var secretFlags = map[string]bool{"smtp-password": true, "twilio-auth-token": true}

// runConfigPrint is sigil config print: the settings sigil up would run with, given the same flags, environment and
// --config file, in the config file's format, each after a comment saying where it came from. A password in the
// database URL, the SMTP password and the Twilio auth token are masked.
func runConfigPrint(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	var u upFlags
	u.register(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	repeated := map[string][]string{"trusted-oidc-issuer": u.oidc.trusted, "oauth2-provider": u.oidc.providerSpecs, "watch-network": u.networkSpecs}
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "config" {
			return
		}
		values, ok := repeated[f.Name]
		if !ok {
			values = []string{f.Value.String()}
		}
		if f.Name == "database-url" && values[0] != "" {
			if parsed, err := url.Parse(values[0]); err == nil {
				values[0] = parsed.Redacted()
			}
		}
		if secretFlags[f.Name] && values[0] != "" {
			values[0] = "xxxxx"
		}
		source := cmp.Or(e.sources[f.Name], "default")
		if len(values) == 0 {
			fmt.Fprintf(e.stdout, "# %s is not set\n", f.Name)
		}
		for _, v := range values {
			fmt.Fprintf(e.stdout, "# %s\n%s = %s\n", source, f.Name, v)
		}
	})
	return nil
}
