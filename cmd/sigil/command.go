package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// command is one command of the tree: a leaf runs, a group (run nil) only holds subcommands, and a command may do
// both (sigil chain runs the chain; sigil chain fund is its subcommand).
type command struct {
	name    string
	args    string // what follows the command's path in its usage line: "[flags]", "NAME [flags]"
	summary string // one line, for the command lists
	doc     string // more, for its own usage
	run     func(ctx context.Context, e *env, args []string) error
	subs    []*command
	hidden  bool // not listed: a helper of other tools (the completion scripts' __complete)
}

func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// env is what a command runs with: where it writes, and which command of the tree it is.
type env struct {
	stdin          io.Reader // nil is os.Stdin
	stdout, stderr io.Writer
	root           *command
	cmd            *command
	path           []string // the command's names under sigil: ["keys", "new"]
	// lookupEnv reads the environment for flags' SIGIL_ variables (settings.go); nil is os.LookupEnv.
	lookupEnv func(string) (string, bool)
	sources   map[string]string // where each flag's value came from, after parse: "command line", SIGIL_X, a file
}

// input is what the command reads as its standard input.
func (e *env) input() io.Reader {
	if e.stdin == nil {
		return os.Stdin
	}
	return e.stdin
}

// usageError is a wrong command line: main prints it once, with where to find the usage, and exits 2.
type usageError struct {
	path string // "sigil keys new"
	err  error  // nil: only the usage is printed
	// usage, when set, is printed in full after the error (the list of commands of a group).
	usage string
}

func (e *usageError) Error() string {
	if e.err == nil {
		return e.path + ": wrong usage"
	}
	return e.path + ": " + e.err.Error()
}

// dispatch runs the command args name below c (whose path is path).
func (e *env) dispatch(ctx context.Context, c *command, path, args []string) error {
	if len(args) > 0 {
		if sub := c.sub(args[0]); sub != nil {
			return e.dispatch(ctx, sub, append(path, sub.name), args[1:])
		}
	}
	e.cmd, e.path = c, path
	if c.run != nil {
		return c.run(ctx, e, args)
	}
	switch {
	case len(args) == 0:
		return &usageError{path: e.name(), usage: e.usage(c, path, nil)}
	case isHelpFlag(args[0]):
		fmt.Fprint(e.stdout, e.usage(c, path, nil))
		return flag.ErrHelp
	}
	return &usageError{path: e.name(), err: fmt.Errorf("unknown command %q%s", args[0], suggestCommand(c, args[0])), usage: e.usage(c, path, nil)}
}

// suggestCommand is ", did you mean X?" for the subcommand of c closest to a mistyped name; "" when none is close.
func suggestCommand(c *command, name string) string {
	best, bestD := "", 3
	for _, s := range c.subs {
		if s.hidden {
			continue
		}
		d := editDistance(name, s.name)
		if d > max(2, len(s.name)/3) || d >= len(s.name) {
			continue
		}
		// On a tie, the name that starts like the typed one.
		if d < bestD || d == bestD && best != "" && best[0] != name[0] && s.name[0] == name[0] {
			best, bestD = s.name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(", did you mean %q?", best)
}

func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// exit prints what err says and returns the exit status.
func (e *env) exit(err error) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if ue.err != nil {
			fmt.Fprintln(e.stderr, ue.Error())
		}
		if ue.usage != "" {
			if ue.err != nil {
				fmt.Fprintln(e.stderr)
			}
			fmt.Fprint(e.stderr, ue.usage)
		} else {
			fmt.Fprintf(e.stderr, "Run '%s --help' for usage.\n", ue.path)
		}
		return 2
	}
	fmt.Fprintln(e.stderr, "sigil:", err)
	return 1
}

// name is the running command as typed: "sigil keys new".
func (e *env) name() string { return strings.Join(append([]string{"sigil"}, e.path...), " ") }

// usageErrorf is a wrong command line for the running command.
func (e *env) usageErrorf(format string, a ...any) error {
	return &usageError{path: e.name(), err: fmt.Errorf(format, a...)}
}

// flags is a new flag set for the running command; parse it with e.parse.
func (e *env) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(e.name(), flag.ContinueOnError)
	// The flag package would print an error and the usage itself, to stderr; parse and exit print them instead,
	// once, and help goes to stdout.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses the command's flags. -h and --help print its usage to stdout and return flag.ErrHelp; a wrong flag,
// or an argument the command does not take, is a usage error.
func (e *env) parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, e.usage(e.cmd, e.path, fs))
		return flag.ErrHelp
	case err != nil:
		return &usageError{path: e.name(), err: err}
	case fs.NArg() > 0:
		return e.usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	if err := e.applySettings(fs); err != nil {
		return &usageError{path: e.name(), err: err}
	}
	return nil
}

// usage is a command's usage: its line, what it does, its subcommands, its flags.
func (e *env) usage(c *command, path []string, fs *flag.FlagSet) string {
	name := strings.Join(append([]string{"sigil"}, path...), " ")
	var b strings.Builder
	line := strings.TrimSpace(name + " " + c.args)
	if len(c.subs) > 0 && c.run != nil {
		line += "\n       " + name + " COMMAND ..."
	} else if len(c.subs) > 0 && len(path) > 0 {
		line += " COMMAND ..."
	}
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", line, c.summary)
	if c.doc != "" {
		fmt.Fprintf(&b, "\n%s\n", c.doc)
	}
	if len(c.subs) > 0 {
		b.WriteString("\ncommands:\n")
		width := 0
		for _, s := range c.subs {
			width = max(width, len(s.name))
		}
		for _, s := range c.subs {
			if !s.hidden {
				fmt.Fprintf(&b, "  %-*s  %s\n", width, s.name, s.summary)
			}
		}
	}
	if fs != nil {
		writeFlags(&b, fs)
	}
	if len(c.subs) > 0 {
		fmt.Fprintf(&b, "\nRun '%s help %sCOMMAND' for a command's usage and flags.\n", "sigil", strings.Join(append(path, ""), " "))
	}
	return b.String()
}

// writeFlags lists the flags of fs: name and kind of value on one line, what it does and its default below. The
// kind comes from the flag's type alone; a usage string is printed as it is written (the flag package would turn a
// word in backquotes into the value's name).
func writeFlags(b *strings.Builder, fs *flag.FlagSet) {
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			b.WriteString("\nflags (also from the environment: -database-url is SIGIL_DATABASE_URL):\n")
			first = false
		}
		plain := *f
		plain.Usage = strings.ReplaceAll(f.Usage, "`", "")
		kind, _ := flag.UnquoteUsage(&plain)
		fmt.Fprintf(b, "  -%s", f.Name)
		if kind != "" {
			fmt.Fprintf(b, " %s", kind)
		}
		fmt.Fprintf(b, "\n      %s", f.Usage)
		switch {
		case f.DefValue == "", f.DefValue == "0", f.DefValue == "false", f.DefValue == "0s":
		case kind == "string":
			fmt.Fprintf(b, " (default %q)", f.DefValue)
		default:
			fmt.Fprintf(b, " (default %s)", f.DefValue)
		}
		b.WriteString("\n")
	})
}

// runHelp is sigil help [COMMAND...]: the usage of sigil, or of the command named, on stdout.
func runHelp(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, e.usage(e.cmd, e.path, fs))
		return flag.ErrHelp
	} else if err != nil {
		return &usageError{path: e.name(), err: err}
	}
	c, path := e.root, []string(nil)
	for _, name := range fs.Args() {
		sub := c.sub(name)
		if sub == nil {
			e.path = path
			return &usageError{path: e.name(), err: fmt.Errorf("unknown command %q", name), usage: e.usage(c, path, nil)}
		}
		c, path = sub, append(path, name)
	}
	if c == e.root {
		fmt.Fprint(e.stdout, e.usage(c, nil, nil))
		return nil
	}
	// A command prints its own usage, with its flags, when asked for help.
	return e.dispatch(ctx, c, path, []string{"--help"})
}

// runVersion is sigil version: the module version and VCS revision this binary was built from.
func runVersion(ctx context.Context, e *env, args []string) error {
	if err := e.parse(e.flags(), args); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("this binary has no build information")
	}
	fmt.Fprint(e.stdout, versionText(bi))
	return nil
}

// versionText describes a build: the main module's version ("(devel)" when built from a work tree), the VCS
// revision and its time when the go command recorded them, and the Go version.
func versionText(bi *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	revision := settings["vcs.revision"]
	if revision == "" {
		revision = "unknown (built without VCS information)"
	} else if settings["vcs.modified"] == "true" {
		revision += " (modified)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sigil %s\nmodule   %s\nrevision %s\n", version, bi.Main.Path, revision)
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(&b, "time     %s\n", t)
	}
	fmt.Fprintf(&b, "go       %s\n", bi.GoVersion)
	return b.String()
}
