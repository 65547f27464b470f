package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// runCompletion is sigil completion SHELL: a completion script for bash, zsh or fish. The scripts ask the binary
// itself (sigil __complete WORDS…) for what may come next, so they follow the command tree and every command's flags
// without being generated again.
func runCompletion(ctx context.Context, e *env, args []string) error {
	shell, args := positional(args)
	fs := e.flags()
	if err := e.parse(fs, args); err != nil {
		return err
	}
	script, ok := completionScripts[shell]
	if !ok {
		return e.usageErrorf("SHELL is bash, zsh or fish, not %q", shell)
	}
	_, err := io.WriteString(e.stdout, script)
	return err
}

// runComplete is the hidden sigil __complete WORDS…: the candidates for the last word, one per line — the
// subcommands of the command the words before it name, or that command's flags when the last word starts with -.
func runComplete(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		args = []string{""}
	}
	words, last := args[:len(args)-1], args[len(args)-1]
	c, path := e.root, []string{}
	for _, w := range words {
		sub := c.sub(w)
		if sub == nil {
			break
		}
		c, path = sub, append(path, sub.name)
	}
	var out []string
	if strings.HasPrefix(last, "-") {
		out = flagsOf(ctx, e, c, path)
	} else {
		for _, s := range c.subs {
			if !s.hidden {
				out = append(out, s.name)
			}
		}
	}
	for _, o := range out {
		if strings.HasPrefix(o, last) {
			fmt.Fprintln(e.stdout, o)
		}
	}
	return nil
}

var flagLine = regexp.MustCompile(`(?m)^\s+(-[a-z0-9-]+)`)

// flagsOf lists a command's flags as its --help prints them: the commands declare their flags as they parse.
func flagsOf(ctx context.Context, e *env, c *command, path []string) []string {
	if c.run == nil {
		return nil
	}
	var help bytes.Buffer
	sub := &env{stdout: &help, stderr: io.Discard, root: e.root, cmd: c, path: path, lookupEnv: func(string) (string, bool) { return "", false }}
	_ = c.run(ctx, sub, []string{"--help"})
	var out []string
	for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
		out = append(out, "-"+m[1]) // the help shows -name; both -name and --name work, --name is what people type
	}
	return out
}

var completionScripts = map[string]string{
	"bash": `# sigil completion for bash: source <(sigil completion bash)
_sigil() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  COMPREPLY=($(sigil __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
  [ "${#COMPREPLY[@]}" -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -F _sigil sigil
`,
	"zsh": `#compdef sigil
# sigil completion for zsh: sigil completion zsh > "${fpath[1]}/_sigil"
_sigil() {
  local -a candidates
  candidates=("${(@f)$(sigil __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if (( ${#candidates[@]} )) && [[ -n "${candidates[1]}" ]]; then
    compadd -- "${candidates[@]}"
  else
    _files
  fi
}
compdef _sigil sigil
`,
	"fish": `# sigil completion for fish: sigil completion fish > ~/.config/fish/completions/sigil.fish
function __sigil_complete
  set -l words (commandline -opc) (commandline -ct)
  sigil __complete $words[2..-1] 2>/dev/null
end
complete -c sigil -f -a '(__sigil_complete)'
`,
}
