package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"sigil/api"
	"sigil/client"
	"sigil/coordinator"
	"sigil/stack"
	"sigil/stamp"
)

// runAPI is sigil api NAME: it submits any activity (by type, with or without the ACTIVITY_TYPE_ prefix) or runs any
// query (by its path name) through the SDK, and prints the response as JSON.
func runAPI(ctx context.Context, e *env, args []string) error {
	name, args := positional(args)
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of a running sigil up (its bootstrap.json supplies key, org and URL)")
	keyPath := fs.String("key", "", "key file written by sigil keys new (default: the bootstrap root key)")
	org := fs.String("org", "", "organization id (default: the bootstrap organization)")
	url := fs.String("url", "", "coordinator URL (default: from bootstrap.json)")
	params := fs.String("params", "{}", "the activity's parameters or the query's body, as JSON")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if name == "" {
		return e.usageErrorf("NAME, an activity type or a query, is required")
	}
	op, ok := findOperation(name)
	if !ok {
		return e.usageErrorf("%q is neither a query nor an activity type the coordinator knows", name)
	}
	if !json.Valid([]byte(*params)) {
		return e.usageErrorf("--params is not valid JSON")
	}
	c, orgID, err := apiClient(*dir, *keyPath, *org, *url)
	if err != nil {
		return err
	}
	var out any
	if op.Query {
		out, err = runQuery(ctx, c, op.Path, orgID, *params)
	} else {
		out, err = runActivity(ctx, e, c, op.ActivitySpec, orgID, *params)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// findOperation finds what NAME names in the coordinator's list of operations: a query by its path, else an activity
// by its type, with or without the ACTIVITY_TYPE_ prefix, in any case.
func findOperation(name string) (coordinator.Operation, bool) {
	ops := coordinator.Operations()
	for _, op := range ops {
		if op.Query && op.Path == name {
			return op, true
		}
	}
	typ := strings.ToUpper(name)
	if !strings.HasPrefix(typ, "ACTIVITY_TYPE_") {
		typ = "ACTIVITY_TYPE_" + typ
	}
	for _, op := range ops {
		if !op.Query && op.Type == typ {
			return op, true
		}
	}
	return coordinator.Operation{}, false
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
		b, err := stack.ReadBootstrap(dir)
		if err != nil {
			return nil, "", err
		}
		if key == nil {
			if key, err = b.RootKey(); err != nil {
				return nil, "", err
			}
		}
		org, url = cmp.Or(org, b.OrganizationID), cmp.Or(url, b.CoordinatorURL)
	}
	return client.New(url, key), org, nil
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

// runActivity submits the activity and returns its record; one that did not complete is printed too, after its error
// on stderr.
func runActivity(ctx context.Context, e *env, c *client.Client, spec api.ActivitySpec, orgID, params string) (any, error) {
	a, err := c.Submit(ctx, orgID, spec, json.RawMessage(params))
	if a != nil && err != nil {
		fmt.Fprintln(e.stderr, "sigil:", err)
		return api.ActivityResponse{Activity: *a}, nil
	}
	if err != nil {
		return nil, err
	}
	return api.ActivityResponse{Activity: *a}, nil
}
