package notify

import (
	"slices"
	"testing"
)

func TestParseSenderDomains(t *testing.T) {
	t.Parallel()
	const org = "7f0c2a52-2d8e-4b8a-9d55-111111111111"
	d, err := ParseSenderDomains([]string{"Mail.Example", " " + org + "=acme.example ", ""})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Any, []string{"mail.example"}) || !slices.Equal(d.ByOrg[org], []string{"acme.example"}) {
		t.Fatalf("parsed %+v", d)
	}
	for _, c := range []struct {
		org, address string
		want         bool
	}{
		{org, "login@mail.example", true},
		{"other", "login@MAIL.example", true},
		{org, "login@acme.example", true},
		{"other", "login@acme.example", false},    // another organization's domain
		{org, "login@sub.mail.example", false},    // a subdomain is listed on its own
		{org, "login@mail.example.evil", false},   // not a suffix match
		{org, "mail.example", false},              // not an address
		{org, "security@paypal.com", false},       // not listed
		{org, "x@mail.example@paypal.com", false}, // the domain is what follows the last @
	} {
		if got := d.Allows(c.org, c.address); got != c.want {
			t.Errorf("Allows(%s, %s) = %v", c.org, c.address, got)
		}
	}
	for _, bad := range []string{"localhost", "exa mple.com", "-a.example", "not-an-id=acme.example", "a..example", "bücher.example"} {
		if _, err := ParseSenderDomains([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
