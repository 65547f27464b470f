package mcp

import (
	"context"
	"fmt"
	"regexp"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolSpec describes a tool for its registration: its name, what it is for, what it may change, and an example of
// its arguments (part of its input schema).
type toolSpec struct {
	name, title, description string
	// readOnly: changes nothing anywhere; destructive: moves value or changes the organization (signing, sending).
	readOnly, destructive, idempotent bool
	example                           any
}

// handler is a tool's work on its decoded arguments.
type handler[In any] func(ctx context.Context, in *In) (*mcp.CallToolResult, any, error)

// addTool registers a tool whose input schema is inferred from In (every field described by its jsonschema tag,
// unknown fields refused), with the field patterns below and the spec's example.
func addTool[In any](s *Server, spec toolSpec, h handler[In]) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", spec.name, err))
	}
	patchSchema(schema)
	if spec.example != nil {
		schema.Examples = []any{spec.example}
	}
	no, yes := false, true
	ann := &mcp.ToolAnnotations{Title: spec.title, ReadOnlyHint: spec.readOnly, IdempotentHint: spec.idempotent || spec.readOnly,
		OpenWorldHint: &yes, DestructiveHint: &no}
	if spec.destructive {
		ann.DestructiveHint = &yes
	}
	tool := &mcp.Tool{Name: spec.name, Title: spec.title, Description: spec.description, InputSchema: schema, Annotations: ann}
	mcp.AddTool(s.mcp, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		return h(ctx, &in)
	})
}

// Patterns of the arguments that share a name across tools: what the schema says, so that an agent's host can check
// a call before sending it, and the server refuses one that does not match.
var (
	decimalPattern = `^(0|[1-9][0-9]*)(\.[0-9]+)?$`
	evmAddress     = `^0x[0-9a-fA-F]{40}$`
	txHash         = `^0x[0-9a-fA-F]{64}$`
	fieldPatterns  = map[string]string{
		"amount": decimalPattern, "walletAddress": evmAddress, "address": evmAddress, "receiverAddress": evmAddress,
		"validatorAddress": evmAddress, "hash": txHash,
	}
	idLength = map[string]bool{"yieldId": true, "actionId": true, "transactionId": true, "activityId": true,
		"sendTransactionStatusId": true, "walletId": true}
)

var decimalRE = regexp.MustCompile(decimalPattern)

// patchSchema adds the shared patterns and bounds to an inferred schema's properties, at any depth.
func patchSchema(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if pat, ok := fieldPatterns[name]; ok && p.Type == "string" {
			p.Pattern = pat
		}
		if idLength[name] && p.Type == "string" {
			p.MaxLength = ptr(200)
		}
		patchSchema(p)
		patchSchema(p.Items)
	}
}

func ptr[T any](v T) *T { return &v }

// oneOf is the value of a field that a skill may spell two ways (walletAddress or address, network or networks):
// exactly one must be given.
func oneOf(nameA, a, nameB, b string) (string, error) {
	switch {
	case a != "" && b != "" && a != b:
		return "", argError(nameA, "give %s or %s, not both", nameA, nameB)
	case a != "":
		return a, nil
	case b != "":
		return b, nil
	}
	return "", argError(nameA, "is required (%s is the same argument)", nameB)
}

// checkAmount refuses an amount that is not an exact decimal string (schemas say so too; this is the message).
func checkAmount(name, v string) error {
	if !decimalRE.MatchString(v) {
		return argError(name, "%s is not an exact decimal amount in token units, such as \"100\" or \"0.5\"", quoted(v))
	}
	return nil
}

// checkPage bounds limit and offset.
func checkPage(limit, offset *int, most int) error {
	if limit != nil && (*limit < 1 || *limit > most) {
		return argError("limit", "must be from 1 to %d, got %d", most, *limit)
	}
	if offset != nil && *offset < 0 {
		return argError("offset", "must be 0 or more, got %d", *offset)
	}
	return nil
}
