package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/stamp"
)

// runAPI is sigil api NAME: it submits any activity (by type, with or without the ACTIVITY_TYPE_ prefix) or runs any
// query (by its path name) through the SDK, and prints the response as JSON.
func runAPI(ctx context.Context, e *env, args []string) error {
	name, args := positional(args)
	fs := e.flags()
	coord := registerCoordinatorFlags(fs)
	params := fs.String("params", "{}", "the activity's parameters or the query's body, as JSON; @FILE reads a file, - standard input")
	list := fs.Bool("list", false, "list every activity and query NAME may be")
	output := fs.String("o", "text", "text: an activity's type, status, id and result in short; json: the whole record (queries print JSON either way)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *list {
		return listOperations(e.stdout)
	}
	if *output != "text" && *output != "json" {
		return e.usageErrorf("-o %q: want text or json", *output)
	}
	if name == "" {
		return e.usageErrorf("NAME, an activity type or a query, is required (sigil api --list shows them)")
	}
	op, ok := findOperation(name)
	if !ok {
		return e.usageErrorf("%q is neither a query nor an activity type the coordinator knows%s (sigil api --list shows them)", name, didYouMean(name))
	}
	body, err := readParams(*params, e.input())
	if err != nil {
		return e.usageErrorf("%v", err)
	}
	*params = string(body)
	c, orgID, err := coord.client(e)
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
	if r, ok := out.(api.ActivityResponse); ok && *output == "text" {
		return printActivity(e.stdout, op.ActivitySpec, r.Activity)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// findOperation finds what NAME names in the coordinator's list of operations: a query by its path; else an activity
// by its type, with or without the ACTIVITY_TYPE_ prefix, in any case; else the newest version of the activity
// submitted at that path (create_users is CREATE_USERS_V4), as the SDKs' method names do.
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
	var newest coordinator.Operation
	found := false
	for _, op := range ops {
		if !op.Query && op.Path == strings.ToLower(name) && (!found || typeVersion(op.Type) > typeVersion(newest.Type)) {
			newest, found = op, true
		}
	}
	return newest, found
}

// typeVersion is the version of an activity type: n for a _Vn suffix, 1 without one.
func typeVersion(typ string) int {
	i := strings.LastIndex(typ, "_V")
	if i < 0 {
		return 1
	}
	n, err := strconv.Atoi(typ[i+2:])
	if err != nil {
		return 1
	}
	return n
}

// operationNames are the names NAME may be: queries' paths, activities' paths and types without the prefix.
func operationNames() []string {
	var names []string
	for _, op := range coordinator.Operations() {
		names = append(names, op.Path)
		if !op.Query {
			names = append(names, strings.ToLower(strings.TrimPrefix(op.Type, "ACTIVITY_TYPE_")))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// didYouMean suggests the names closest to a mistyped one, as ", did you mean x or y?"; "" when none is close.
func didYouMean(name string) string {
	name = strings.ToLower(strings.TrimPrefix(strings.ToUpper(name), "ACTIVITY_TYPE_"))
	type scored struct {
		name string
		d    int
	}
	var close []scored
	for _, n := range operationNames() {
		if d := editDistance(name, n); d <= max(2, len(name)/4) {
			close = append(close, scored{n, d})
		}
	}
	if len(close) == 0 {
		return ""
	}
	slices.SortStableFunc(close, func(a, b scored) int { return a.d - b.d })
	var out []string
	for _, c := range close[:min(3, len(close))] {
		out = append(out, c.name)
	}
	return ", did you mean " + strings.Join(out, " or ") + "?"
}

// editDistance is the Levenshtein distance between two names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// listOperations prints every query and activity, the way NAME may give them.
func listOperations(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSUBMITTED AS")
	for _, op := range coordinator.Operations() {
		if op.Query {
			fmt.Fprintf(tw, "%s\tquery\t/public/v1/query/%s\n", op.Path, op.Path)
		} else {
			fmt.Fprintf(tw, "%s\tactivity\t%s at /public/v1/submit/%s\n", strings.ToLower(strings.TrimPrefix(op.Type, "ACTIVITY_TYPE_")), op.Type, op.Path)
		}
	}
	return tw.Flush()
}

// readParams reads --params: JSON given inline, @FILE, or - for standard input.
func readParams(v string, stdin io.Reader) ([]byte, error) {
	var body []byte
	var err error
	switch {
	case v == "-":
		body, err = io.ReadAll(io.LimitReader(stdin, 16<<20))
	case strings.HasPrefix(v, "@"):
		body, err = os.ReadFile(v[1:])
	default:
		body = []byte(v)
	}
	if err != nil {
		return nil, fmt.Errorf("--params: %w", err)
	}
	if !json.Valid(body) {
		return nil, errors.New("--params is not valid JSON")
	}
	return body, nil
}

// coordinatorFlags are the flags of the commands that call the coordinator: the running stack's data directory, whose
// bootstrap record supplies the root key, organization and URL, or each of them given.
type coordinatorFlags struct{ dir, key, org, url *string }

func registerCoordinatorFlags(fs *flag.FlagSet) coordinatorFlags {
	return coordinatorFlags{
		dir: fs.String("dir", ".sigil", "data directory of a running sigil up (its bootstrap.json supplies key, org and URL)"),
		key: fs.String("key", "", "key file that stamps the requests, written by sigil keys new (default: the bootstrap root key)"),
		org: fs.String("org", "", "organization id (default: the bootstrap organization)"),
		url: fs.String("url", "", "coordinator URL (default: SIGIL_COORDINATOR_URL, else from bootstrap.json)"),
	}
}

// client is the coordinator's client the flags name.
func (f coordinatorFlags) client(e *env) (*client.Client, string, error) {
	return e.apiClient(*f.dir, *f.key, *f.org, *f.url)
}

// apiClient is a client of the coordinator for a command: the key, organization and URL given, else the bootstrap
// record's; SIGIL_COORDINATOR_URL names the coordinator when --url does not (SIGIL_DIR already sets --dir).
func (e *env) apiClient(dir, keyPath, org, url string) (*client.Client, string, error) {
	if url == "" {
		url, _ = e.getenv("SIGIL_COORDINATOR_URL")
	}
	return apiClient(dir, keyPath, org, url)
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

// printActivity shows an activity as a person wants it: type, status and id, then its result's fields (ids,
// addresses), the failure's reason, or what a vote needs.
func printActivity(w io.Writer, spec api.ActivitySpec, a api.Activity) error {
	fmt.Fprintf(w, "%s  %s  %s\n", a.Type, a.Status, a.ID)
	switch {
	case a.Failure != nil:
		fmt.Fprintf(w, "  failure  %s\n", a.Failure.Message)
		return nil
	case a.Status == api.StatusConsensusNeeded:
		fmt.Fprintf(w, "  waiting for approvals: sigil api approve_activity --params '{\"fingerprint\":\"%s\"}'\n", a.Fingerprint)
		return nil
	}
	var result map[string]any
	if raw := a.Result[spec.ResultKey]; len(raw) > 0 {
		if err := json.Unmarshal(raw, &result); err != nil {
			return err
		}
	}
	keys := slices.Sorted(maps.Keys(result))
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		fmt.Fprintf(w, "  %-*s  %s\n", width, k, shortValue(result[k]))
	}
	return nil
}

// shortValue renders a result field on one line: scalars as they are, lists of scalars joined, the rest as JSON.
func shortValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			if _, nested := e.(map[string]any); nested {
				b, _ := json.Marshal(v)
				return string(b)
			}
			parts = append(parts, shortValue(e))
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return fmt.Sprint(v)
}
