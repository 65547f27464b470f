package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones for CronSpan even where the system has none (a minimal container)
)

// The time field says when a policy is active. time.now is the request's trusted server time (Input.Now) and
// Timestamp('…Z') a moment, both as Unix milliseconds (ints), so they compare with the usual operators.
// CronSpan('m h dom mon dow', 'duration', 'IANA zone') is true while time.now lies in a span of that duration
// starting at one of the cron's times, read in the zone (daylight saving included).

// maxCronSpan is the longest span CronSpan accepts, as the reference says.
const maxCronSpan = 7 * 24 * time.Hour

var tTime = structOf("time", map[string]*fieldDef{
	"now": {typ: tInt, get: func(ref any) (value, error) { return uintValue(uint64(ref.(*Input).Now.UnixMilli())), nil }},
})

// errNoTime is the failure of time.* and CronSpan on a request without a trusted time: the request happens at some
// time, so a policy on time still concerns it (Absent, not NotApplicable).
var errNoTime = evalErrorf(Absent, "the request has no trusted time")

// timeRoot reads time.*; a request without a trusted time has none.
func timeRoot(in *Input) (any, error) {
	if in.Now.IsZero() {
		return nil, errNoTime
	}
	return in, nil
}

// compileCall compiles the time field's functions; their arguments are literals, checked here.
func (c *compiler) compileCall(n *callNode) (evaluator, *typ, error) {
	if n.name != "Timestamp" && n.name != "CronSpan" {
		return nil, nil, c.errorf(n.pos, suggest(n.name, []string{"Timestamp", "CronSpan"}, ""),
			"unknown function '%s': the functions are Timestamp and CronSpan, and the list methods any, all, filter, contains and count", n.name)
	}
	if c.field != Time {
		return nil, nil, c.errorf(n.pos, "", "function '%s' can be used only in the time field", n.name)
	}
	args := make([]string, len(n.args))
	for i, a := range n.args {
		s, ok := a.(*stringNode)
		if !ok {
			return nil, nil, c.errorf(a.position(), "", "the arguments of %s are string literals", n.name)
		}
		args[i] = s.val
	}
	if n.name == "Timestamp" {
		if len(args) != 1 {
			return nil, nil, c.errorf(n.pos, "", "Timestamp takes one argument, an RFC 3339 time in UTC such as '2026-03-01T00:00:00Z'")
		}
		t, err := parseTimestamp(args[0])
		if err != nil {
			return nil, nil, c.errorf(n.args[0].position(), "", "%s", err.Error())
		}
		return &constEval{uintValue(uint64(t.UnixMilli()))}, tInt, nil
	}
	if len(args) != 3 {
		return nil, nil, c.errorf(n.pos, "", "CronSpan takes three arguments: a cron expression, a duration and an IANA time zone, such as CronSpan('0 9 * * 1-5', '8h', 'America/New_York')")
	}
	span, err := parseCronSpan(args[0], args[1], args[2])
	if err != nil {
		return nil, nil, c.errorf(n.pos, "", "%s", err.Error())
	}
	return span, tBool, nil
}

// parseTimestamp reads an RFC 3339 time whose offset is zero: Z, z, +00:00 or -00:00, as the reference accepts. RFC
// 3339 allows the T and Z in lower case, which Go's parser does not.
func parseTimestamp(s string) (time.Time, error) {
	norm := s
	if len(norm) > 10 && norm[10] == 't' {
		norm = norm[:10] + "T" + norm[11:]
	}
	if strings.HasSuffix(norm, "z") {
		norm = strings.TrimSuffix(norm, "z") + "Z"
	}
	t, err := time.Parse(time.RFC3339Nano, norm)
	if err != nil {
		return time.Time{}, fmt.Errorf("Timestamp('%s') is not an RFC 3339 time such as '2026-03-01T00:00:00Z'", s)
	}
	if _, off := t.Zone(); off != 0 {
		return time.Time{}, fmt.Errorf("Timestamp('%s') must be in UTC (end it with Z)", s)
	}
	return t, nil
}

// cronSpan is a compiled CronSpan: the minutes, hours, days of the month, months and weekdays it starts at.
type cronSpan struct {
	minute, hour, dom, month, dow uint64 // bit sets
	domAny, dowAny                bool   // the field was '*'
	dur                           time.Duration
	loc                           *time.Location
}

func parseCronSpan(expr, dur, zone string) (*cronSpan, error) {
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return nil, fmt.Errorf("CronSpan: '%s' must have five fields (minute hour day-of-month month day-of-week)", expr)
	}
	s := &cronSpan{}
	var err error
	for i, f := range []struct {
		set      *uint64
		any      *bool
		min, max int
		name     string
	}{{&s.minute, nil, 0, 59, "minute"}, {&s.hour, nil, 0, 23, "hour"}, {&s.dom, &s.domAny, 1, 31, "day of the month"},
		{&s.month, nil, 1, 12, "month"}, {&s.dow, &s.dowAny, 0, 7, "day of the week"}} {
		if *f.set, err = cronField(fields[i], f.min, f.max); err != nil {
			return nil, fmt.Errorf("CronSpan: %s field '%s': %v", f.name, fields[i], err)
		}
		if f.any != nil {
			*f.any = fields[i] == "*"
		}
	}
	if s.dow&(1<<7) != 0 { // 7 is Sunday too
		s.dow |= 1
	}
	if s.dur, err = parseSpanDuration(dur); err != nil {
		return nil, err
	}
	if s.loc, err = time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
		return nil, fmt.Errorf("CronSpan: '%s' is not an IANA time zone such as 'America/New_York' or 'UTC'", zone)
	}
	return s, nil
}

// cronField reads '*', a number, a range a-b, or a comma-separated list of those.
func cronField(f string, min, max int) (uint64, error) {
	if f == "*" {
		var all uint64
		for v := min; v <= max; v++ {
			all |= 1 << v
		}
		return all, nil
	}
	var set uint64
	for _, part := range strings.Split(f, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cronNumber(lo, min, max)
		if err != nil {
			return 0, err
		}
		b := a
		if isRange {
			if b, err = cronNumber(hi, min, max); err != nil {
				return 0, err
			}
			if b < a {
				return 0, fmt.Errorf("range %s runs backwards", part)
			}
		}
		for v := a; v <= b; v++ {
			set |= 1 << v
		}
	}
	return set, nil
}

func cronNumber(s string, min, max int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || !isDigits(s) {
		return 0, fmt.Errorf("%q is not a number (steps like */5, names and macros are not supported)", s)
	}
	if v < min || v > max {
		return 0, fmt.Errorf("%d is outside %d-%d", v, min, max)
	}
	return v, nil
}

// parseSpanDuration reads whole days, hours and minutes ('1d', '8h', '1d12h', '90m'): more than zero, at most 7 days.
func parseSpanDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("CronSpan: duration '%s' must be whole days, hours or minutes such as '8h' or '1d12h', more than 0 and at most 7d", s)
	var d time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || i > 5 {
			return 0, bad
		}
		n, _ := strconv.Atoi(rest[:i])
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[rest[i]]
		if unit == 0 {
			return 0, bad
		}
		d += time.Duration(n) * unit
		rest = rest[i+1:]
	}
	if d <= 0 || d > maxCronSpan {
		return 0, bad
	}
	return d, nil
}

func (s *cronSpan) eval(in *Input, f *frame) (value, error) {
	return boolResult(s.evalBool(in, f))
}

func (s *cronSpan) evalBool(in *Input, _ *frame) (bool, bool, error) {
	if in.Now.IsZero() {
		return false, false, errNoTime
	}
	start, ok := s.latestStart(in.Now)
	return ok && in.Now.Before(start.Add(s.dur)), true, nil
}

// latestStart is the latest moment at or before now when the cron fires, looked for over the longest span: a span
// that started before that would have ended already.
func (s *cronSpan) latestStart(now time.Time) (time.Time, bool) {
	local := now.In(s.loc)
	for back := 0; back <= int(maxCronSpan/(24*time.Hour))+1; back++ {
		day := time.Date(local.Year(), local.Month(), local.Day()-back, 12, 0, 0, 0, s.loc)
		if !s.firesOn(day) {
			continue
		}
		for h := 23; h >= 0; h-- {
			if s.hour&(1<<h) == 0 {
				continue
			}
			for m := 59; m >= 0; m-- {
				if s.minute&(1<<m) == 0 {
					continue
				}
				// A local time that does not exist (the hour skipped when clocks go forward) is read as Go reads it:
				// moved forward by the gap.
				t := time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, s.loc)
				if !t.After(now) {
					return t, true
				}
			}
		}
	}
	return time.Time{}, false
}

// firesOn: the day's month matches and its day of the month or weekday does (either, when both are restricted, as
// cron reads them).
func (s *cronSpan) firesOn(day time.Time) bool {
	if s.month&(1<<int(day.Month())) == 0 {
		return false
	}
	domOK, dowOK := s.dom&(1<<day.Day()) != 0, s.dow&(1<<int(day.Weekday())) != 0
	switch {
	case s.domAny && s.dowAny:
		return true
	case s.domAny:
		return dowOK
	case s.dowAny:
		return domOK
	}
	return domOK || dowOK
}

// Active says whether a policy's time field holds at now: a policy without one is always active.
func Active(p *Policy, now time.Time) (bool, error) {
	if p.Time == nil {
		return true, nil
	}
	return p.Time.Eval(&Input{Now: now})
}
