package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/webhook"
	"github.com/sigil/sigil/internal/yield"
)

// yieldStoreFlags are the flags of the yield webhooks commands that find a stack's database, as sigil yield keys
// create finds it, and the project.
type yieldStoreFlags struct {
	dir, dbURL, project *string
}

func addYieldStoreFlags(fs *flag.FlagSet) yieldStoreFlags {
	return yieldStoreFlags{
		dir:     fs.String("dir", ".sigil", "data directory (SQLite database, master key)"),
		dbURL:   fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL"),
		project: fs.String("project", "", "project the endpoints belong to"),
	}
}

// open checks the project flag and opens the database.
func (f yieldStoreFlags) open(ctx context.Context, e *env) (*store.Store, error) {
	if *f.project == "" {
		return nil, e.usageErrorf("--project is required")
	}
	return store.Open(ctx, *f.dbURL, *f.dir)
}

// runYieldWebhooksCreate is sigil yield webhooks create: it registers an endpoint of a project, its secret sealed with
// the stack's master key, and prints the endpoint (never the secret) as JSON.
func runYieldWebhooksCreate(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	sf := addYieldStoreFlags(fs)
	masterKey := fs.String("master-key-file", "", "master key file (default DIR/master.key)")
	url := fs.String("url", "", "the endpoint's URL (https, on a public address)")
	secret := fs.String("secret", "", "the secret deliveries are signed with (HMAC-SHA256), 24 to 255 characters; better in SIGIL_SECRET, out of the process list")
	allowPrivate := fs.Bool("allow-private", false,
		"accept http and private or loopback URLs, as a dev stack (sigil up without --expose) delivers to them")
	var events []string
	fs.Func("event", "an event type to receive: "+yield.EventTransactionStatusChanged+" or "+yield.EventPositionStatusChanged+
		" (repeatable; default both)", func(v string) error {
		events = append(events, v)
		return nil
	})
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *url == "" || *secret == "" {
		return e.usageErrorf("--url and --secret are required")
	}
	ring, err := seal.LoadKeyFile(cmp.Or(*masterKey, filepath.Join(*sf.dir, "master.key")))
	if err != nil {
		return err
	}
	st, err := sf.open(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	ep, err := yield.CreateWebhookEndpoint(ctx, st, ring, webhook.Guard{AllowPrivate: *allowPrivate}, *sf.project,
		yield.WebhookEndpointInput{URL: *url, Secret: *secret, Events: events}, time.Now())
	if err != nil {
		return err
	}
	return printJSON(e, ep)
}

// runYieldWebhooksList is sigil yield webhooks list: a project's endpoints as JSON, oldest first.
func runYieldWebhooksList(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	sf := addYieldStoreFlags(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	st, err := sf.open(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	eps, err := yield.ListWebhookEndpoints(ctx, st, *sf.project)
	if err != nil {
		return err
	}
	return printJSON(e, eps)
}

// runYieldWebhooksDelete is sigil yield webhooks delete ID: the endpoint is removed, and its deliveries not made yet
// are abandoned.
func runYieldWebhooksDelete(ctx context.Context, e *env, args []string) error {
	id, args := positional(args)
	fs := e.flags()
	sf := addYieldStoreFlags(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if id == "" {
		return e.usageErrorf("ID is required")
	}
	st, err := sf.open(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := yield.DeleteWebhookEndpoint(ctx, st, *sf.project, id, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "deleted webhook endpoint %s of project %q\n", id, *sf.project)
	return nil
}

func printJSON(e *env, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(out))
	return nil
}
