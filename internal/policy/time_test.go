package policy

import (
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The reference's policy 30 and the rules of its time field: zero-offset timestamps, a five-field cron read in an
// IANA zone with daylight saving, spans of whole d/h/m up to seven days.
func TestTimeField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src, now string
		want     bool
	}{
		{"time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')", "2026-03-15T12:00:00Z", true},
		{"time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')", "2026-04-01T00:00:00Z", false},
		{"!(time.now < Timestamp('2026-03-01T00:00:00.5Z'))", "2026-03-01T00:00:01Z", true},
		// Weekdays 9:00 for 8 hours in New York. Friday 6 March 2026 is EST (UTC-5): 13:30Z is 8:30, before the span.
		{"CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", "2026-03-06T13:30:00Z", false},
		{"CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", "2026-03-06T14:30:00Z", true},
		// Monday 9 March 2026 is EDT (UTC-4) since the 8th: 13:30Z is 9:30, inside; 21:30Z is 17:30, after.
		{"CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", "2026-03-09T13:30:00Z", true},
		{"CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", "2026-03-09T21:30:00Z", false},
		// Sunday is neither 1-5; 7 is Sunday as 0 is.
		{"CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", "2026-03-08T15:00:00Z", false},
		{"CronSpan('0 9 * * 7', '8h', 'America/New_York')", "2026-03-08T15:00:00Z", true},
		// A span that crosses midnight and a weekend: Friday 22:00 for 2 days, in UTC.
		{"CronSpan('0 22 * * 5', '2d', 'UTC')", "2026-03-08T21:59:00Z", true},
		{"CronSpan('0 22 * * 5', '2d', 'UTC')", "2026-03-08T22:00:00Z", false},
		// Day of the month and weekday both restricted: either one (the 1st, or any Monday).
		{"CronSpan('0 0 1 * 1', '1h', 'UTC')", "2026-03-01T00:30:00Z", true},
		{"CronSpan('0 0 1 * 1', '1h', 'UTC')", "2026-03-02T00:30:00Z", true},
		{"CronSpan('0 0 1 * 1', '1h', 'UTC')", "2026-03-03T00:30:00Z", false},
		// Lists and ranges; a span of minutes.
		{"CronSpan('15,45 8-9 * 3 *', '10m', 'Europe/Paris')", "2026-03-10T07:50:00Z", true},
		{"CronSpan('15,45 8-9 * 3 *', '10m', 'Europe/Paris')", "2026-03-10T07:56:00Z", false},
	}
	for _, tt := range tests {
		e, err := Compile(tt.src, Time)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := e.Eval(&Input{Now: mustTime(t, tt.now)})
		if err != nil || got != tt.want {
			t.Errorf("%s at %s = %v, %v; want %v", tt.src, tt.now, got, err, tt.want)
		}
	}
}

func TestTimeFieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field     Field
		src, want string
	}{
		{Time, "time.now > Timestamp('2026-03-01T00:00:00+01:00')", "must be in UTC"},
		{Time, "time.now > Timestamp('March 1st')", "is not an RFC 3339 time"},
		{Time, "CronSpan('*/5 * * * *', '1h', 'UTC')", "steps like */5"},
		{Time, "CronSpan('0 9 * * MON', '1h', 'UTC')", "names and macros are not supported"},
		{Time, "CronSpan('0 24 * * *', '1h', 'UTC')", "24 is outside 0-23"},
		{Time, "CronSpan('0 9 * *', '1h', 'UTC')", "must have five fields"},
		{Time, "CronSpan('0 9 * * *', '8d', 'UTC')", "at most 7d"},
		{Time, "CronSpan('0 9 * * *', '1.5h', 'UTC')", "whole days, hours or minutes"},
		{Time, "CronSpan('0 9 * * *', '0m', 'UTC')", "more than 0"},
		{Time, "CronSpan('0 9 * * *', '1h', 'Mars/Olympus')", "is not an IANA time zone"},
		{Time, "CronSpan('0 9 * * *', '1h')", "takes three arguments"},
		{Time, "activity.type == 'x'", "keyword 'activity' can be used only in the condition field"},
		{Condition, "time.now > 0", "keyword 'time' can be used only in the time field"},
		{Condition, "CronSpan('0 9 * * *', '1h', 'UTC')", "function 'CronSpan' can be used only in the time field"},
		{Time, "Timestmp('2026-03-01T00:00:00Z') > 0", "did you mean 'Timestamp'?"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src, tt.field)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%q, %v) = %v, want an error with %q", tt.src, tt.field, err, tt.want)
		}
	}
}

// An inactive policy is skipped: its DENY denies nothing and its ALLOW allows nothing.
func TestInactivePoliciesAreSkipped(t *testing.T) {
	t.Parallel()
	window, err := Compile("time.now < Timestamp('2026-03-01T00:00:00Z')", Time)
	if err != nil {
		t.Fatal(err)
	}
	allow := pol(t, "allow", EffectAllow, "true", "")
	deny := pol(t, "deny", EffectDeny, "true", "")
	allow.Time, deny.Time = window, window
	in := func(now string) *Input {
		return &Input{Activity: factsOf(t, "ACTIVITY_TYPE_CREATE_WALLET", nil), Approvers: []User{{ID: "dave"}}, Now: mustTime(t, now)}
	}
	if d := Decide(&Request{Input: in("2026-02-01T00:00:00Z"), Policies: []Policy{allow}}); d.Outcome != Allow {
		t.Errorf("active ALLOW: %v %s", d.Outcome, d.Message)
	}
	d := Decide(&Request{Input: in("2026-03-02T00:00:00Z"), Policies: []Policy{allow, deny}})
	if d.Outcome != Deny || d.Message != msgImplicitDeny || d.Evaluations[0].Outcome != OutcomeTimeInactive || d.Evaluations[1].Outcome != OutcomeTimeInactive {
		t.Errorf("inactive policies: %v %q %+v, want an implicit deny with both OUTCOME_TIME_INACTIVE", d.Outcome, d.Message, d.Evaluations)
	}
	if active, err := Active(&deny, mustTime(t, "2026-03-02T00:00:00Z")); active || err != nil {
		t.Errorf("Active after the window = %v, %v", active, err)
	}
	if active, err := Active(&Policy{}, time.Now()); !active || err != nil {
		t.Errorf("a policy without a time is active: %v, %v", active, err)
	}
}
