package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
)

// IP allowlists. A parent organization (one with no parent) may restrict the addresses its credentials reach the
// coordinator from: a list for the whole organization, which holds while enabled, and lists for single API keys, which
// replace the organization's for that key. They are checked where a credential authenticates, before anything but the
// organization's id is read of the body and before anything is stored (a passkey's signature counter included), on
// every submission and query of the organization's credentials — in its sub-organizations too. The lists are rows of
// their own table, read from the database on each such request, so a change holds at once on every process.
//
// The client's address is the connection's peer, unless the peer is one of the proxies the operator trusts
// (Config.TrustedProxies, sigil up --trusted-proxies): then it is the last address of X-Forwarded-For that is not a
// trusted proxy. A forwarded header from any other peer is ignored, so a client cannot choose its address. When the
// address cannot be judged (none is known, or a trusted proxy's header is malformed) the list's onEvaluationError
// decides: DENY (the default) refuses the request, ALLOW lets it through.
//
// No request may lock its own sender out: SET_IP_ALLOWLIST and REMOVE_IP_ALLOWLIST are refused when the change would
// refuse the address and credential they come from. For the case where every root user is locked out all the same
// (their addresses changed), the operator clears the lists on the server: sigil allowlist clear (docs/DEPLOY.md).

// The activity types and the query of this file.
var (
	setIPAllowlist    = activity(api.SetIPAllowlist, on(resOrganization, actUpdate, policy.ParamEnabled, policy.ParamOnEvaluationError), validateSetIPAllowlist, execSetIPAllowlist)
	removeIPAllowlist = activity(api.RemoveIPAllowlist, on(resOrganization, actUpdate), validateRemoveIPAllowlist, execRemoveIPAllowlist)

	getIPAllowlist = query(api.GetIPAllowlist, queryGetIPAllowlist)
)

// maxAllowlistRules bounds one list.
const maxAllowlistRules = 100

// errIPNotAllowed is the answer to a request from an address the credential's allowlist refuses.
func errIPNotAllowed(addr string) *apierr.Error {
	return apierr.New(apierr.PermissionDenied, "IP_NOT_ALLOWED", "requests from IP address %s are not allowed by the IP allowlist of this organization or API key", addr)
}

// errIPUnknown is the answer to a request whose address cannot be judged, under a list whose onEvaluationError is DENY.
func errIPUnknown(why string) *apierr.Error {
	return apierr.New(apierr.PermissionDenied, "IP_NOT_ALLOWED", "the request's IP address could not be checked against the IP allowlist (%s), and the allowlist refuses such requests (onEvaluationError DENY)", why)
}

// clientAddr is where a request came from, as the allowlists judge it: an address, or why there is none.
type clientAddr struct {
	addr netip.Addr
	err  string // why the address is unknown; "" when addr is valid
}

type clientAddrKey struct{}

// withClientAddr notes in the request's context where it came from, for the allowlists.
func (c *Coordinator) withClientAddr(r *http.Request) context.Context {
	return context.WithValue(r.Context(), clientAddrKey{}, c.clientAddress(r))
}

func clientAddrOf(ctx context.Context) clientAddr {
	if a, ok := ctx.Value(clientAddrKey{}).(clientAddr); ok {
		return a
	}
	return clientAddr{err: "the request did not come over the network"}
}

// clientAddress is the peer of the connection or, behind a trusted proxy, the address the proxies forwarded: walking
// X-Forwarded-For from its end (the hop nearest to this server), the first address that is not a trusted proxy.
func (c *Coordinator) clientAddress(r *http.Request) clientAddr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return clientAddr{err: fmt.Sprintf("the connection's peer %q is not an address", r.RemoteAddr)}
	}
	addr := peer.Addr().Unmap()
	if !c.trustedProxy(addr) {
		return clientAddr{addr: addr}
	}
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return clientAddr{err: fmt.Sprintf("the trusted proxy %s forwarded a malformed X-Forwarded-For", addr)}
		}
		addr = hop.Unmap()
		if !c.trustedProxy(addr) {
			break
		}
	}
	return clientAddr{addr: addr}
}

func (c *Coordinator) trustedProxy(a netip.Addr) bool {
	for _, p := range c.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// allowlist is a stored list, its rules parsed.
type allowlist struct {
	store.IPAllowlist
	rules    []api.IPAllowlistRule
	prefixes []netip.Prefix
}

func (l *allowlist) allows(a netip.Addr) bool {
	for _, p := range l.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parsedRules keeps lists' rules parsed, by their stored text: every request of a parent organization's credential
// reads its lists, which seldom change.
type parsedRules struct {
	rules    []api.IPAllowlistRule
	prefixes []netip.Prefix
}

// allowlists reads an organization's lists: its own ("" in the map) and its keys', by public key; with a key, only
// the organization's and that key's. A sub-organization has none, and is not asked.
func (c *Coordinator) allowlists(ctx context.Context, o *Org, key ...string) (map[string]*allowlist, error) {
	if o.ParentID != "" {
		return nil, nil
	}
	var rows []store.IPAllowlist
	var err error
	if len(key) == 1 {
		rows, err = c.store.IPAllowlistsOf(ctx, o.ID, key[0])
	} else {
		rows, err = c.store.IPAllowlists(ctx, o.ID)
	}
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	out := make(map[string]*allowlist, len(rows))
	for _, row := range rows {
		parsed, ok := c.allowlistRules.get(string(row.Rules))
		if !ok {
			parsed = &parsedRules{}
			if err := json.Unmarshal(row.Rules, &parsed.rules); err != nil {
				return nil, fmt.Errorf("ip allowlist of %s: %w", row.OrgID, err)
			}
			for _, r := range parsed.rules {
				if p, err := netip.ParsePrefix(r.CIDR); err == nil {
					parsed.prefixes = append(parsed.prefixes, p)
				}
			}
			c.allowlistRules.put(string(row.Rules), parsed, nil)
		}
		out[row.PublicKey] = &allowlist{IPAllowlist: row, rules: parsed.rules, prefixes: parsed.prefixes}
	}
	return out, nil
}

// governing is the list that judges a credential: its API key's own, else the organization's while enabled; nil
// when none does (every address is allowed).
func governing(lists map[string]*allowlist, publicKey string) *allowlist {
	if l := lists[publicKey]; publicKey != "" && l != nil {
		return l
	}
	if l := lists[""]; l != nil && l.Enabled {
		return l
	}
	return nil
}

// judge says whether a list lets a request from addr through.
func judge(l *allowlist, addr clientAddr) error {
	if l == nil {
		return nil
	}
	if addr.err != "" {
		if l.OnEvaluationError == api.OnEvaluationErrorAllow {
			return nil
		}
		return errIPUnknown(addr.err)
	}
	if !l.allows(addr.addr) {
		return errIPNotAllowed(addr.addr.String())
	}
	return nil
}

// admit checks a request authenticated by a credential of o (publicKey: its API key's, "" for a passkey or a session
// without a key of its own) against o's allowlists.
func (c *Coordinator) admit(ctx context.Context, o *Org, publicKey string) error {
	lists, err := c.allowlists(ctx, o, publicKey)
	if err != nil || lists == nil {
		return err
	}
	return judge(governing(lists, publicKey), clientAddrOf(ctx))
}

func validateSetIPAllowlist(p *api.SetIPAllowlistIntent) error {
	if p.PublicKey != "" {
		if err := checkHexKey("parameters.publicKey", p.PublicKey); err != nil {
			return err
		}
		if p.Enabled != nil {
			return apierr.Invalid("parameters.enabled applies to the organization's allowlist only; an API key's allowlist holds while it exists (remove it with REMOVE_IP_ALLOWLIST)")
		}
	}
	switch p.OnEvaluationError {
	case "", api.OnEvaluationErrorAllow, api.OnEvaluationErrorDeny:
	default:
		return apierr.Invalid("parameters.onEvaluationError must be ALLOW or DENY, got %q", p.OnEvaluationError)
	}
	if len(p.Rules) > maxAllowlistRules {
		return apierr.Invalid("parameters.rules has %d rules; at most %d are accepted", len(p.Rules), maxAllowlistRules)
	}
	seen := map[netip.Prefix]bool{}
	for i, r := range p.Rules {
		path := fmt.Sprintf("parameters.rules[%d]", i)
		prefix, err := parseCIDR(path+".cidr", r.CIDR)
		if err != nil {
			return err
		}
		if seen[prefix] {
			return apierr.Invalid("%s.cidr: %s is listed twice", path, prefix)
		}
		seen[prefix] = true
		if err := checkLabel(path+".label", r.Label); err != nil {
			return err
		}
	}
	return nil
}

// parseCIDR reads an IPv4 or IPv6 CIDR block, as the network it names (host bits cleared).
func parseCIDR(path, cidr string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		hint := ""
		if _, bare := netip.ParseAddr(cidr); bare == nil {
			hint = " (a single address is written with its length, such as 203.0.113.7/32 or 2001:db8::7/128)"
		}
		return netip.Prefix{}, apierr.Invalid("%s: %q is not a CIDR block such as 192.168.1.0/24 or 2001:db8::/32%s", path, truncate(cidr, 64), hint)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, apierr.Invalid("%s: write the IPv4 block %q without its IPv6 mapping", path, cidr)
	}
	return p.Masked(), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkHexKey accepts an API key's public key as hex, of a length a P-256, secp256k1 or Ed25519 key has.
func checkHexKey(path, key string) error {
	if len(key) > 130 || !isHex(key) {
		return apierr.Invalid("%s must be an API key's public key in hexadecimal", path)
	}
	return nil
}

func isHex(s string) bool {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return s != ""
}

// allowlistTarget resolves the list an activity names: the organization's (publicKey "") or an API key's of it.
func (x *execution) allowlistTarget(publicKey string) (string, error) {
	if x.org.ParentID != "" {
		return "", apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
			"IP allowlists are set on a parent organization only; %s is a sub-organization (its parent's lists govern the parent's credentials, in it too)", x.org.ID)
	}
	if publicKey == "" {
		return "", nil
	}
	key := strings.ToLower(publicKey)
	if _, k := x.org.apiKeyByPublicKey(key); k == nil {
		return "", apierr.NotFoundf("parameters.publicKey: no API key of organization %s has public key %s", x.org.ID, truncate(publicKey, 70))
	}
	return key, nil
}

func execSetIPAllowlist(x *execution, p *api.SetIPAllowlistIntent) (*api.SetIPAllowlistResult, error) {
	key, err := x.allowlistTarget(p.PublicKey)
	if err != nil {
		return nil, err
	}
	lists, err := x.c.allowlists(x.ctx, x.org)
	if err != nil {
		return nil, err
	}
	if lists == nil {
		lists = map[string]*allowlist{}
	}
	next := &allowlist{IPAllowlist: store.IPAllowlist{OrgID: x.org.ID, PublicKey: key, Enabled: key != "" || p.Enabled == nil || *p.Enabled,
		OnEvaluationError: p.OnEvaluationError, UpdatedAt: x.now.UnixMilli()}}
	if next.OnEvaluationError == "" {
		next.OnEvaluationError = api.OnEvaluationErrorDeny
	}
	created := map[string]string{} // a rule kept keeps when it was first made
	if old := lists[key]; old != nil {
		for _, r := range old.rules {
			created[r.CIDR] = r.CreatedAt
		}
	}
	next.rules = []api.IPAllowlistRule{}
	for _, r := range p.Rules {
		prefix, _ := parseCIDR("", r.CIDR) // checked already
		rule := api.IPAllowlistRule{CIDR: prefix.String(), Label: r.Label, CreatedAt: created[prefix.String()]}
		if rule.CreatedAt == "" {
			rule.CreatedAt = strconv.FormatInt(x.now.UnixMilli(), 10)
		}
		next.rules = append(next.rules, rule)
	}
	for _, r := range next.rules {
		next.prefixes = append(next.prefixes, netip.MustParsePrefix(r.CIDR))
	}
	lists[key] = next
	if err := x.keepsSenderIn(lists); err != nil {
		return nil, err
	}
	if next.Rules, err = json.Marshal(next.rules); err != nil {
		return nil, err
	}
	return &api.SetIPAllowlistResult{}, x.tx.PutIPAllowlist(x.ctx, next.IPAllowlist)
}

func validateRemoveIPAllowlist(p *api.RemoveIPAllowlistIntent) error {
	if p.PublicKey != "" {
		return checkHexKey("parameters.publicKey", p.PublicKey)
	}
	return nil
}

func execRemoveIPAllowlist(x *execution, p *api.RemoveIPAllowlistIntent) (*api.RemoveIPAllowlistResult, error) {
	key, err := x.allowlistTarget(p.PublicKey)
	if err != nil {
		return nil, err
	}
	lists, err := x.c.allowlists(x.ctx, x.org)
	if err != nil {
		return nil, err
	}
	if lists[key] == nil {
		return nil, apierr.NotFoundf("there is no IP allowlist to remove for %s", allowlistName(x.org.ID, key))
	}
	delete(lists, key)
	if err := x.keepsSenderIn(lists); err != nil {
		return nil, err
	}
	if _, err := x.tx.RemoveIPAllowlist(x.ctx, x.org.ID, key); err != nil {
		return nil, err
	}
	return &api.RemoveIPAllowlistResult{}, nil
}

func allowlistName(orgID, key string) string {
	if key == "" {
		return "organization " + orgID
	}
	return "API key " + truncate(key, 70)
}

// keepsSenderIn refuses a change of the organization's lists (lists, as they would be) that would refuse the request
// making it: its credential from its address. A credential of another organization (a parent's, voting) is not
// judged by these lists.
//
// An activity a vote completes is executed as its submitter, re-created without a credential (rerun): the request is
// the voter's, from another credential and address, and is not judged.
func (x *execution) keepsSenderIn(lists map[string]*allowlist) error {
	if x.who.Org == nil || x.who.Org.ID != x.org.ID || x.who.CredID == "" {
		return nil
	}
	addr := clientAddrOf(x.ctx)
	if err := judge(governing(lists, x.who.PublicKey), addr); err != nil {
		where := "an address it cannot judge"
		if addr.err == "" {
			where = addr.addr.String()
		}
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
			"this change would lock out the request making it (its credential, from %s): add a rule that allows it first, or make the change from an allowed address", where)
	}
	return nil
}

func queryGetIPAllowlist(r *reader, q *api.GetIPAllowlistRequest) (*api.GetIPAllowlistResponse, error) {
	key := strings.ToLower(q.PublicKey)
	if key != "" {
		if err := checkHexKey("publicKey", q.PublicKey); err != nil {
			return nil, err
		}
		if _, k := r.org.apiKeyByPublicKey(key); k == nil {
			return nil, apierr.NotFoundf("no API key of organization %s has public key %s", r.org.ID, truncate(q.PublicKey, 70))
		}
	}
	out := api.IPAllowlist{OrganizationID: r.org.ID, Rules: []api.IPAllowlistRule{}, PublicKey: key}
	lists, err := r.c.allowlists(r.ctx, r.org)
	if err != nil {
		return nil, err
	}
	l := lists[key]
	if l != nil {
		out.Rules, out.OnEvaluationError = l.rules, l.OnEvaluationError
	}
	if key == "" {
		enabled := l != nil && l.Enabled
		out.Enabled = &enabled
	}
	return &api.GetIPAllowlistResponse{Allowlist: out}, nil
}
