package coordinator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
)

// list_email_events shows what the mailer sent to a recipient, newest first, never the code.
func TestListEmailEvents(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		e := startOTPEnv(t, b, coordinator.Config{})
		ctx := context.Background()
		org := e.boot.OrganizationID
		for range 3 {
			if _, _, err := e.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "Ada@Example.com", AppName: "Demo"}); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Second)
		}
		page, err := e.root.ListEmailEvents(ctx, api.ListEmailEventsRequest{OrganizationID: org, Email: "ada@example.com",
			PaginationOptions: &api.Pagination{Limit: "2"}})
		if err != nil || len(page.EmailEvents) != 2 {
			t.Fatalf("list_email_events: %+v %v", page, err)
		}
		ev := page.EmailEvents[0]
		if ev.EventType != "Send" || ev.ToAddress != "ada@example.com" || ev.FromAddress != "otp@sigil.test" || ev.Timestamp < page.EmailEvents[1].Timestamp {
			t.Errorf("newest event = %+v", ev)
		}
		rest, err := e.root.ListEmailEvents(ctx, api.ListEmailEventsRequest{OrganizationID: org, Email: "ada@example.com",
			PaginationOptions: &api.Pagination{Limit: "10", Before: page.EmailEvents[1].ID}})
		if err != nil || len(rest.EmailEvents) != 1 {
			t.Fatalf("the page before: %+v %v", rest, err)
		}
		if strings.Contains(strings.ToLower(rest.EmailEvents[0].MessageID+rest.EmailEvents[0].EventType), "code") {
			t.Errorf("an event carries its message: %+v", rest.EmailEvents[0])
		}
		none, _ := e.root.ListEmailEvents(ctx, api.ListEmailEventsRequest{OrganizationID: org, Email: "bob@example.com"})
		if len(none.EmailEvents) != 0 {
			t.Errorf("another recipient's events: %+v", none.EmailEvents)
		}
		if _, err := e.root.ListEmailEvents(ctx, api.ListEmailEventsRequest{OrganizationID: org, Email: "not an address"}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("a malformed address: %v", err)
		}
	})
}
