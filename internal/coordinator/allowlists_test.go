package coordinator_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// loopback is the proxy the tests stand behind: every test request comes from it.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}

// forwardedFor is a transport that says, as a proxy in front of the coordinator would, where requests come from.
type forwardedFor struct{ addr string }

func (f forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.addr)
	return http.DefaultTransport.RoundTrip(r)
}

// from is a client of the stack stamping with key, its requests forwarded for addr.
func (s *stack) from(key stamp.Stamper, addr string) *client.Client {
	c := s.client(key)
	c.HTTP = &http.Client{Transport: forwardedFor{addr}}
	return c
}

func allowlistStack(t *testing.T, b testdb.Backend) *stack {
	return newStackWith(t, b, nil, func(c *coordinator.Config) { c.TrustedProxies = loopback })
}

func rules(cidrs ...string) []api.IPAllowlistIntentRule {
	var out []api.IPAllowlistIntentRule
	for _, c := range cidrs {
		out = append(out, api.IPAllowlistIntentRule{CIDR: c, Label: "rule " + c})
	}
	return out
}

// The organization's list admits requests from its blocks, IPv4 and IPv6, and refuses the others with
// PERMISSION_DENIED IP_NOT_ALLOWED, queries and submissions alike, before their body is decoded and with nothing
// stored. An API key's list replaces the organization's for that key; removed, the organization's judges the key
// again. A change that would lock out the request making it is refused; a disabled list admits everyone.
func TestIPAllowlists(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := allowlistStack(t, b)
		org := s.boot.OrganizationID
		office := s.from(s.boot.APIKey, "198.51.100.7")
		if _, _, err := office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules("198.51.100.0/24", "2001:db8::/32")}); err != nil {
			t.Fatal(err)
		}
		got, err := office.GetIPAllowlist(bg, api.GetIPAllowlistRequest{OrganizationID: org})
		if err != nil {
			t.Fatal(err)
		}
		if l := got.Allowlist; len(l.Rules) != 2 || l.Rules[1].CIDR != "2001:db8::/32" || l.Rules[0].CreatedAt == "" || l.Enabled == nil || !*l.Enabled ||
			l.OnEvaluationError != api.OnEvaluationErrorDeny || l.OrganizationID != org || l.PublicKey != "" {
			t.Fatalf("get_ip_allowlist: %+v", l)
		}

		count := func() int {
			acts, err := office.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "100"}})
			if err != nil {
				t.Fatal(err)
			}
			return len(acts.Activities)
		}
		before := count()
		for _, addr := range []string{"203.0.113.9", "2001:db9::5", "198.51.101.1"} {
			_, err := s.from(s.boot.APIKey, addr).Whoami(bg, org)
			expectErr(t, "a query from "+addr, err, apierr.PermissionDenied, "requests from IP address "+addr+" are not allowed")
			_, _, err = s.from(s.boot.APIKey, addr).CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
			expectErr(t, "a submission from "+addr, err, apierr.PermissionDenied, "not allowed by the IP allowlist")
		}
		// Refused before the body is read: a body that is not even an envelope gets the allowlist's answer.
		r := s.stampedFrom("/public/v1/submit/create_wallet", []byte(`{"organizationId":"`+org+`","type":7}`), s.boot.APIKey, "203.0.113.9")
		if r.status != 403 || r.body["details"] == nil {
			t.Fatalf("a malformed body from a refused address: %d %s", r.status, r.raw)
		}
		if n := count(); n != before {
			t.Fatalf("%d activities recorded by refused requests", n-before)
		}
		for _, addr := range []string{"198.51.100.200", "2001:db8::5", "2001:db8:ffff::1"} {
			if _, err := s.from(s.boot.APIKey, addr).Whoami(bg, org); err != nil {
				t.Fatalf("from %s: %v", addr, err)
			}
		}

		// A key's own list overrides the organization's.
		_, botKey := userWithKeyBy(t, office, org, "bot")
		if _, _, err := office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{PublicKey: botKey.PublicKeyHex(), Rules: rules("203.0.113.0/24")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.from(botKey, "203.0.113.9").Whoami(bg, org); err != nil {
			t.Fatalf("the bot from its own block: %v", err)
		}
		_, err = s.from(botKey, "198.51.100.7").Whoami(bg, org)
		expectErr(t, "the bot from the organization's block", err, apierr.PermissionDenied, "198.51.100.7")
		keyList, err := office.GetIPAllowlist(bg, api.GetIPAllowlistRequest{OrganizationID: org, PublicKey: botKey.PublicKeyHex()})
		if err != nil || len(keyList.Allowlist.Rules) != 1 || keyList.Allowlist.Enabled != nil || keyList.Allowlist.PublicKey != botKey.PublicKeyHex() {
			t.Fatalf("the bot key's list: %+v, %v", keyList, err)
		}
		if _, _, err := office.RemoveIPAllowlist(bg, org, api.RemoveIPAllowlistIntent{PublicKey: botKey.PublicKeyHex()}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.from(botKey, "198.51.100.7").Whoami(bg, org); err != nil {
			t.Fatalf("the bot from the organization's block once its own list is removed: %v", err)
		}
		_, _, err = office.RemoveIPAllowlist(bg, org, api.RemoveIPAllowlistIntent{PublicKey: botKey.PublicKeyHex()})
		expectErr(t, "removing a list that is gone", err, apierr.NotFound, "no IP allowlist to remove")

		// The sender cannot lock itself out.
		_, _, err = office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules("10.0.0.0/8")})
		expectErr(t, "a list refusing its sender", err, apierr.FailedPrecondition, "would lock out the request making it (its credential, from 198.51.100.7)")
		_, _, err = office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{})
		expectErr(t, "an empty list", err, apierr.FailedPrecondition, "would lock out")

		// Disabled, the organization's list admits everyone, and keeps its rules.
		off := false
		if _, _, err := office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Enabled: &off, Rules: rules("198.51.100.0/24")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.from(s.boot.APIKey, "203.0.113.9").Whoami(bg, org); err != nil {
			t.Fatalf("a disabled list refused: %v", err)
		}
		if got, _ := office.GetIPAllowlist(bg, api.GetIPAllowlistRequest{OrganizationID: org}); *got.Allowlist.Enabled || len(got.Allowlist.Rules) != 1 {
			t.Fatalf("the disabled list: %+v", got.Allowlist)
		}
	})
}

// stampedFrom sends a stamped body, forwarded for addr.
func (s *stack) stampedFrom(path string, body []byte, key stamp.Stamper, addr string) response {
	s.t.Helper()
	name, value, err := key.Stamp(body)
	if err != nil {
		s.t.Fatal(err)
	}
	h := http.Header{}
	h.Set(name, value)
	h.Set("X-Forwarded-For", addr)
	return s.post(path, body, h)
}

// A client's address is the connection's peer unless the peer is a proxy the operator trusts: X-Forwarded-For from
// any other peer is ignored, so a client cannot claim an address the list admits. Behind a trusted proxy, the last
// address of the chain that is not a trusted proxy is the client's; a malformed chain is an evaluation error, which
// onEvaluationError DENY refuses and ALLOW lets through.
func TestIPAllowlistClientAddress(t *testing.T) {
	t.Parallel()
	b := testdb.SQLite(t)
	s := newStack(t, b) // no trusted proxies: the peer, 127.0.0.1, is every request's address
	org := s.boot.OrganizationID
	_, botKey := s.userWithKey(org, "bot")
	if _, _, err := s.root.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{PublicKey: botKey.PublicKeyHex(), Rules: rules("203.0.113.0/24")}); err != nil {
		t.Fatal(err)
	}
	_, err := s.from(botKey, "203.0.113.5").Whoami(bg, org)
	expectErr(t, "a spoofed X-Forwarded-For from an untrusted peer", err, apierr.PermissionDenied, "requests from IP address 127.0.0.1")

	p := allowlistStack(t, testdb.SQLite(t))
	org = p.boot.OrganizationID
	office := p.from(p.boot.APIKey, "198.51.100.7")
	if _, _, err := office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules("198.51.100.0/24")}); err != nil {
		t.Fatal(err)
	}
	// The client's own claim before the proxies' hops is not believed: the last untrusted hop is the client.
	if _, err := p.from(p.boot.APIKey, "198.51.100.1, 203.0.113.9").Whoami(bg, org); err == nil {
		t.Fatal("the first address of a forwarded chain was believed")
	}
	if _, err := p.from(p.boot.APIKey, "203.0.113.9, 198.51.100.1, 127.0.0.1").Whoami(bg, org); err != nil {
		t.Fatalf("a chain ending in the client and a trusted proxy: %v", err)
	}
	_, err = p.from(p.boot.APIKey, "not-an-address").Whoami(bg, org)
	expectErr(t, "a malformed chain under DENY", err, apierr.PermissionDenied, "could not be checked")
	if _, _, err := office.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules("198.51.100.0/24"), OnEvaluationError: "ALLOW"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.from(p.boot.APIKey, "not-an-address").Whoami(bg, org); err != nil {
		t.Fatalf("a malformed chain under ALLOW: %v", err)
	}
	if _, err := p.from(p.boot.APIKey, "203.0.113.9").Whoami(bg, org); err == nil {
		t.Fatal("onEvaluationError ALLOW admitted an address the list refuses")
	}
}

// Lists are set on parent organizations only, and judge their credentials wherever they go: a parent's key in its
// sub-organization too. The sub-organization's own users are not judged by them.
func TestIPAllowlistsOfParentOrganizations(t *testing.T) {
	t.Parallel()
	s := allowlistStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	subKey, subParams := newKey(t, stamp.CurveP256)
	sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Sub", subParams))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.from(subKey, "198.51.100.7").SetIPAllowlist(bg, sub.SubOrganizationID, api.SetIPAllowlistIntent{Rules: rules("198.51.100.0/24")})
	expectErr(t, "a sub-organization's list", err, apierr.FailedPrecondition, "parent organization only")
	if _, _, err := s.from(s.boot.APIKey, "198.51.100.7").SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules("198.51.100.0/24")}); err != nil {
		t.Fatal(err)
	}
	_, err = s.from(s.boot.APIKey, "203.0.113.9").Whoami(bg, sub.SubOrganizationID)
	expectErr(t, "the parent's key in its sub-organization", err, apierr.PermissionDenied, "203.0.113.9")
	if _, err := s.from(subKey, "203.0.113.9").Whoami(bg, sub.SubOrganizationID); err != nil {
		t.Fatalf("the sub-organization's own user: %v", err)
	}
	_, _, err = s.from(s.boot.APIKey, "198.51.100.7").SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{PublicKey: subKey.PublicKeyHex(), Rules: rules("10.0.0.0/8")})
	expectErr(t, "a list for another organization's key", err, apierr.NotFound, "no API key of organization")
}

// A list set through one process holds at once in another over the same database; the operator's clearing of an
// organization's lists (sigil allowlist clear) lets its users back in.
func TestIPAllowlistHoldsOnEveryProcess(t *testing.T) {
	t.Parallel()
	b := testdb.Postgres(t)
	first := allowlistStack(t, b)
	org := first.boot.OrganizationID
	st, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: first.ring,
		TrustedProxies: loopback}).Handler())
	t.Cleanup(srv.Close)
	second := func(addr string) *client.Client {
		c := client.New(srv.URL, first.boot.APIKey)
		c.HTTP, c.Now = &http.Client{Transport: forwardedFor{addr}}, first.stamps.Now
		return c
	}
	if _, err := second("203.0.113.9").Whoami(bg, org); err != nil { // the second process has read the organization
		t.Fatal(err)
	}
	if _, _, err := first.from(first.boot.APIKey, "198.51.100.7").SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: rules("198.51.100.0/24")}); err != nil {
		t.Fatal(err)
	}
	_, err = second("203.0.113.9").Whoami(bg, org)
	expectErr(t, "the other process, at once", err, apierr.PermissionDenied, "203.0.113.9")
	if n, err := st.RemoveIPAllowlists(bg, org); err != nil || n != 1 {
		t.Fatalf("clearing the lists: %d, %v", n, err)
	}
	if _, err := second("203.0.113.9").Whoami(bg, org); err != nil {
		t.Fatalf("after the lists were cleared: %v", err)
	}
}

// userWithKeyBy creates a user with one P-256 API key through c and returns its id and key.
func userWithKeyBy(t *testing.T, c *client.Client, org, name string) (string, *stamp.APIKey) {
	t.Helper()
	key, params := newKey(t, stamp.CurveP256)
	res, _, err := c.CreateUsers(bg, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: name, APIKeys: []api.APIKeyParamsV2{params},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.UserIDs[0], key
}

// Policies see what a list does: a user allowed to manage the organization's list, under a DENY of lists that admit
// requests whose address cannot be judged and of turning the list off, sets a list that refuses them and is denied
// the other two, with nothing stored.
func TestIPAllowlistPolicyParams(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := allowlistStack(t, b)
		org := s.boot.OrganizationID
		adminID, admin := s.createUser(org, s.root, "network admin")
		s.policy("the admin manages the allowlist", api.EffectAllow,
			"activity.type == 'ACTIVITY_TYPE_SET_IP_ALLOWLIST'", "approvers.any(u, u.id == '"+adminID+"')")
		s.policy("no fail-open allowlist", api.EffectDeny,
			"activity.type == 'ACTIVITY_TYPE_SET_IP_ALLOWLIST' && (activity.params.on_evaluation_error == 'ALLOW' || activity.params.enabled == false)", "")
		local := rules("127.0.0.0/8", "::1/128")
		off := false
		for name, intent := range map[string]api.SetIPAllowlistIntent{
			"failing open": {Rules: local, OnEvaluationError: api.OnEvaluationErrorAllow},
			"turned off":   {Rules: local, Enabled: &off},
		} {
			_, _, err := admin.SetIPAllowlist(bg, org, intent)
			expectErr(t, name, err, apierr.PermissionDenied, "")
			if got, err := s.root.GetIPAllowlist(bg, api.GetIPAllowlistRequest{OrganizationID: org}); err == nil && len(got.Allowlist.Rules) > 0 {
				t.Fatalf("%s: a denied list was stored: %+v", name, got.Allowlist)
			}
		}
		if _, _, err := admin.SetIPAllowlist(bg, org, api.SetIPAllowlistIntent{Rules: local, OnEvaluationError: api.OnEvaluationErrorDeny}); err != nil {
			t.Fatalf("a list that fails closed: %v", err)
		}
	})
}
