package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"sigil/api"
	"sigil/client"
	"sigil/coordinator"
	"sigil/stamp"
)

// runAPI submits any activity (by type, with or without the ACTIVITY_TYPE_ prefix) or runs any query (by its path
// name) and prints the response as JSON.
func runAPI(ctx context.Context, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("usage: sigil api NAME [--params JSON] [--key FILE --org ID --url URL | --dir DIR]")
	}
	name := args[0]
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory of a running `sigil up` (its bootstrap.json supplies key, org and URL)")
	keyPath := fs.String("key", "", "key file written by `sigil keys new` (default: the bootstrap root key)")
	org := fs.String("org", "", "organization id (default: the bootstrap organization)")
	url := fs.String("url", "", "coordinator URL (default: from bootstrap.json)")
	params := fs.String("params", "{}", "the activity's parameters or the query's body, as JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	c, orgID, err := apiClient(*dir, *keyPath, *org, *url)
	if err != nil {
		return err
	}
	var out any
	if isQuery(name) {
		out, err = runQuery(ctx, c, name, orgID, *params)
	} else {
		out, err = runActivity(ctx, c, name, orgID, *params)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func apiClient(dir, keyPath, org, url string) (*client.Client, string, error) {
	var key *stamp.APIKey
	var err error
	if keyPath != "" {
		if key, err = loadKeyFile(keyPath); err != nil {
			return nil, "", err
		}
	}
	if key == nil || org == "" || url == "" {
		b, err := readBootstrap(dir)
		if err != nil {
			return nil, "", err
		}
		if key == nil {
			if key, err = stamp.ParseAPIKey(stamp.CurveP256, b.APIPrivateKey); err != nil {
				return nil, "", err
			}
		}
		org = firstNonEmpty(org, b.OrganizationID)
		url = firstNonEmpty(url, b.CoordinatorURL)
	}
	return client.New(url, key), org, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func runQuery(ctx context.Context, c *client.Client, path, orgID, params string) (any, error) {
	var body map[string]any
	if err := json.Unmarshal([]byte(params), &body); err != nil {
		return nil, fmt.Errorf("--params is not a JSON object: %w", err)
	}
	if _, ok := body["organizationId"]; !ok {
		body["organizationId"] = orgID
	}
	var out any
	return out, c.Query(ctx, path, body, &out)
}

func runActivity(ctx context.Context, c *client.Client, name, orgID, params string) (any, error) {
	typ := strings.ToUpper(name)
	if !strings.HasPrefix(typ, "ACTIVITY_TYPE_") {
		typ = "ACTIVITY_TYPE_" + typ
	}
	spec, ok := activitySpec(typ)
	if !ok {
		return nil, fmt.Errorf("%q is neither a query nor an activity type this client knows", name)
	}
	if !json.Valid([]byte(params)) {
		return nil, fmt.Errorf("--params is not valid JSON")
	}
	a, err := c.Submit(ctx, orgID, spec, json.RawMessage(params))
	if a != nil && err != nil {
		fmt.Fprintln(os.Stderr, "sigil:", err)
		return api.ActivityResponse{Activity: *a}, nil
	}
	if err != nil {
		return nil, err
	}
	return api.ActivityResponse{Activity: *a}, nil
}

// isQuery reports whether name is the path of a query the coordinator answers.
func isQuery(name string) bool {
	for _, op := range coordinator.Operations() {
		if op.Query && op.Path == name {
			return true
		}
	}
	return false
}

// activitySpec finds the wire contract of an activity type the coordinator executes.
func activitySpec(typ string) (api.ActivitySpec, bool) {
	for _, op := range coordinator.Operations() {
		if !op.Query && op.Type == typ {
			return op.ActivitySpec, true
		}
	}
	return api.ActivitySpec{}, false
}
