package coordinator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// naming is a transport that names the client in X-Sigil-Client, as sigil mcp does.
type naming struct {
	name string
	next http.RoundTripper
}

func (n naming) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(api.ClientHeader, n.name)
	return n.next.RoundTrip(r)
}

// TestActivityClients records the client an activity's request names and reads it back with list_activity_clients;
// the activity record itself is what it always was, and a value of other characters, or too long, records nothing.
func TestActivityClients(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		ctx := context.Background()
		org := s.boot.OrganizationID
		named := func(name string) *client.Client {
			c := s.client(s.boot.APIKey)
			c.HTTP.Transport = naming{name, http.DefaultTransport}
			return c
		}
		tag := func(c *client.Client, name string) string {
			t.Helper()
			_, a, err := c.CreateUserTag(ctx, org, api.CreateUserTagIntent{UserTagName: name, UserIDs: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			return a.ID
		}
		viaMCP := tag(named("mcp/actions_enter"), "via-mcp")
		plain := tag(s.root, "plain")
		hostile := tag(named("mcp/<script>"), "hostile")
		long := tag(named("mcp/"+strings.Repeat("x", api.ClientMaxLength)), "long")

		var res api.ListActivityClientsResponse
		if err := s.root.Query(ctx, api.ListActivityClients.Path, api.ListActivityClientsRequest{OrganizationID: org,
			ActivityIDs: []string{viaMCP, plain, hostile, long}}, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.ActivityClients) != 1 || res.ActivityClients[0] != (api.ActivityClient{ActivityID: viaMCP, Client: "mcp/actions_enter"}) {
			t.Fatalf("activity clients = %+v", res.ActivityClients)
		}
		got, err := s.root.GetActivity(ctx, org, viaMCP)
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(got); strings.Contains(string(raw), "actions_enter") {
			t.Errorf("the activity record shows the client: %s", raw)
		}

		// Another organization's activity is not found, and the list is bounded.
		other, err := s.coord.CreateRootOrganization(ctx, "Other", "root")
		if err != nil {
			t.Fatal(err)
		}
		_, a, err := s.client(other.APIKey).CreateUserTag(ctx, other.OrganizationID, api.CreateUserTagIntent{UserTagName: "theirs", UserIDs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		otherID := a.ID
		err = s.root.Query(ctx, api.ListActivityClients.Path, api.ListActivityClientsRequest{OrganizationID: org, ActivityIDs: []string{otherID}}, &res)
		if !client.IsCode(err, apierr.NotFound) {
			t.Errorf("another organization's activity: %v", err)
		}
		for _, ids := range [][]string{{}, make([]string, 101)} {
			err = s.root.Query(ctx, api.ListActivityClients.Path, api.ListActivityClientsRequest{OrganizationID: org, ActivityIDs: ids}, &res)
			if !client.IsCode(err, apierr.InvalidArgument) {
				t.Errorf("%d ids: %v", len(ids), err)
			}
		}
	})
}
