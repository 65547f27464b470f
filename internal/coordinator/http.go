package coordinator

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/store"
)

// corsHeaders are the request headers browsers may send: the SDKs' stamps, read-only session and version header.
const corsHeaders = "Content-Type, X-Stamp, X-Stamp-WebAuthn, X-Stamp-Attested, X-Session, X-Client-Version, X-Auth-Proxy-Config-Id"

// Handler serves the public API, the operator's /healthz, /readyz (database migrated and reachable, master key loaded)
// and /metrics, and CORS for browser callers, behind the HTTP edge: bodies capped at MaxBodyBytes, errors as
// google.rpc.Status, one log line per request.
func (c *Coordinator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /public/v1/submit/{name}", edge.Func(c.serveSubmit))
	mux.Handle("POST /public/v1/query/{name}", edge.Func(c.serveQuery))
	mux.Handle("GET /.well-known/sigil-signer.json", edge.Func(c.serveSignerKey))
	mux.Handle("GET /.well-known/jwks.json", c.JWKSHandler())
	mux.Handle("GET "+api.WebhookJWKSPath, c.WebhookJWKSHandler())
	mux.Handle("GET /.well-known/openid-configuration", c.OpenIDConfigurationHandler())
	mux.Handle("/", edge.Func(func(r *http.Request) (any, error) {
		return nil, apierr.NotFoundf("no route for %s %s", r.Method, r.URL.Path)
	}))
	cors := &edge.CORS{Origins: c.cfg.AllowedOrigins, Methods: "GET, POST, OPTIONS", Headers: corsHeaders}
	svc := &edge.Service{Format: edge.RPCStatus, Logger: c.cfg.Logger, MaxBodyBytes: c.cfg.MaxBodyBytes, Name: "coordinator", Metrics: c.cfg.Metrics}
	svc.MountOps(mux, edge.Check{Name: "database", Probe: c.store.Ready}, edge.Check{Name: "master key", Probe: c.vault.ready})
	return svc.Wrap(cors.Handler(mux))
}

func (c *Coordinator) serveSubmit(r *http.Request) (any, error) {
	body, err := edge.ReadBody(r)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(c.withClientAddr(r), c.cfg.RequestTimeout)
	defer cancel()
	res, err := c.Submit(ctx, r.PathValue("name"), r.Header, body)
	if err != nil {
		return nil, gaveUp(ctx, err)
	}
	edge.Note(r, slog.String("activity", res.Activity.ID), slog.String("type", res.Activity.Type))
	return encodeActivity(res)
}

func (c *Coordinator) serveQuery(r *http.Request) (any, error) {
	body, err := edge.ReadBody(r)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(c.withClientAddr(r), c.cfg.RequestTimeout)
	defer cancel()
	res, err := c.Query(ctx, r.PathValue("name"), r.Header, body)
	if err != nil {
		return nil, gaveUp(ctx, err)
	}
	if a, ok := res.(*api.ActivityResponse); ok {
		return encodeActivity(a)
	}
	return res, nil
}

// gaveUp answers a request the server gave up on as the caller can act on it: past its deadline (Config.RequestTimeout),
// or given up by the database (a lock or a statement that waited too long). Either way nothing it would have written
// stays, and sending the same body again is safe: an activity recorded meanwhile is found, never executed twice.
func gaveUp(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, store.ErrBusy):
		return apierr.New(apierr.Unavailable, "INTERNAL", "the database gave up waiting for this organization's other writes; nothing was changed, send the same request again")
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return apierr.New(apierr.DeadlineExceeded, "INTERNAL", "the request did not finish within the server's deadline; nothing was changed unless get_activity finds it, send the same request again")
	}
	return err
}

// encodeActivity encodes the most frequent answer, and the most costly to marshal, with wire.go's encoder; the edge
// sends the bytes as they are.
func encodeActivity(r *api.ActivityResponse) (any, error) {
	body, err := marshalActivityResponse(r)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(body), nil
}

// signerDocument is GET /.well-known/sigil-signer.json: the public keys a client pins where the SDKs pin the
// reference's (@turnkey/crypto's dangerouslyOverride… arguments; js/sigil-turnkey-crypto binds them for a browser app),
// uncompressed P-256 in hex.
type signerDocument struct {
	// PublicKey signs export and import bundles and app proofs: the reference's signer enclave key.
	PublicKey string `json:"publicKey"`
	// TokenPublicKey signs OTP target bundles, verification tokens and sessions: the reference's TLS-fetcher signing
	// key and notarizer key in one. The same key is the JWK of /.well-known/jwks.json.
	TokenPublicKey string `json:"tokenPublicKey"`
}

// SignerPublicKey is the signer key of the signer document (created on first use), uncompressed P-256 in hex: what
// Sigil's frames check export and import bundles against.
func (c *Coordinator) SignerPublicKey(ctx context.Context) (string, error) {
	return c.ownPublicKey(ctx, signerKeyName)
}

// ownPublicKey is the public half of one of the coordinator's own keys, uncompressed P-256 in hex.
func (c *Coordinator) ownPublicKey(ctx context.Context, name string) (string, error) {
	key, err := c.ownKey(ctx, name)
	if err != nil {
		return "", err
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(pub.Bytes()), nil
}

// serveSignerKey publishes the signer document; both keys are created on first use.
func (c *Coordinator) serveSignerKey(r *http.Request) (any, error) {
	var doc signerDocument
	var err error
	if doc.PublicKey, err = c.ownPublicKey(r.Context(), signerKeyName); err != nil {
		return nil, err
	}
	if doc.TokenPublicKey, err = c.ownPublicKey(r.Context(), tokenKeyName); err != nil {
		return nil, err
	}
	return doc, nil
}
