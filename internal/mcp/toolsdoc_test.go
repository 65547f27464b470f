package mcp_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/client"
	sigilmcp "github.com/sigil/sigil/internal/mcp"
)

var update = flag.Bool("update", false, "rewrite docs/MCP-TOOLS.md from the server's tools, resources and prompts")

const toolsDoc = "../../docs/MCP-TOOLS.md"

// TestToolsDoc keeps docs/MCP-TOOLS.md what the server lists: each tool's description, hints, input schema and
// example, the resources and the prompt.
func TestToolsDoc(t *testing.T) {
	want := renderToolsDoc(t)
	if *update {
		if err := os.WriteFile(toolsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(toolsDoc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Error("docs/MCP-TOOLS.md is out of date; run go test ./internal/mcp -run TestToolsDoc -update")
	}
}

// renderToolsDoc lists what a server answers a client, with no stack behind it (listing asks nothing of one).
func renderToolsDoc(t *testing.T) string {
	srv, err := sigilmcp.New(sigilmcp.Config{Coordinator: client.New("http://127.0.0.1:1", nil), OrganizationID: "org",
		YieldURL: "http://127.0.0.1:1", YieldAPIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "doc", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}

	var b strings.Builder
	b.WriteString("# sigil mcp: tools, resources and prompts\n\n")
	b.WriteString("Generated from the server's own listing by `go test ./internal/mcp -run TestToolsDoc -update`; do not edit by hand. ")
	b.WriteString("[MCP.md](MCP.md) says how the tools fit together and how to configure an agent host.\n\n")
	b.WriteString("| tool | what it is for | hints |\n|---|---|---|\n")
	for _, tool := range tools.Tools {
		first, _, _ := strings.Cut(tool.Description, ". ")
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", tool.Name, tool.Name, strings.TrimSuffix(first, ".")+".", hints(tool.Annotations))
	}
	for _, tool := range tools.Tools {
		var schema strings.Builder
		enc := json.NewEncoder(&schema)
		enc.SetEscapeHTML(false) // for reading: "<chain id>", not "\u003cchain id\u003e"
		enc.SetIndent("", "  ")
		if err := enc.Encode(tool.InputSchema); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n## %s\n\n**%s.** %s\n\nHints: %s.\n\nInput schema (the example is part of it):\n\n```json\n%s```\n",
			tool.Name, tool.Title, tool.Description, hints(tool.Annotations), schema.String())
	}
	b.WriteString("\n## Resources\n\n| URI | name | what it holds |\n|---|---|---|\n")
	for _, r := range resources.Resources {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.URI, r.Name, r.Description)
	}
	b.WriteString("\n## Prompts\n\n")
	for _, p := range prompts.Prompts {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n| argument | what it is |\n|---|---|\n", p.Name, p.Description)
		for _, a := range p.Arguments {
			fmt.Fprintf(&b, "| `%s` | %s |\n", a.Name, a.Description)
		}
	}
	return b.String()
}

func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return "none"
	}
	var out []string
	switch {
	case a.ReadOnlyHint:
		out = append(out, "read-only")
	case a.DestructiveHint != nil && *a.DestructiveHint:
		out = append(out, "moves value or changes the organization")
	default:
		out = append(out, "writes")
	}
	if a.IdempotentHint && !a.ReadOnlyHint {
		out = append(out, "idempotent")
	}
	return strings.Join(out, ", ")
}
