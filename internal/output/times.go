package output

import (
	"fmt"
	"strings"
	"time"
)

// Time is relative ("5m ago", "in 2h") on a terminal and RFC 3339 when
// piped; an unknown time is "-". A deadline a century out is how the
// service marks a paused sandbox: it has none (docs/json.md, Sandbox).
func (s *Streams) Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if !s.StdoutTTY {
		return t.UTC().Format(time.RFC3339)
	}
	d := t.Sub(s.Now())
	switch {
	case d < 0:
		return Duration(-d) + " ago"
	case d > forever:
		return "no deadline"
	}
	return "in " + Duration(d)
}

// Ends is a confirmation's deadline: how long is left and the time of day
// it comes ("ends in 1h30m (at 16:34:05)"). end is the service's deadline
// (zero when it gave none); asked is the lifetime abx asked for and the
// service applied as asked (0 when the service decided), which is printed
// as it was given: the service's times are whole seconds on its own clock,
// so a difference from this clock can be a second short.
func (s *Streams) Ends(end time.Time, asked time.Duration) string {
	now := s.Now()
	left := asked
	switch {
	case asked > 0 && end.IsZero():
		end = now.Add(asked)
	case asked > 0:
	case end.IsZero():
		return "ends at a time the service did not give"
	case end.Sub(now) > forever:
		return "has no deadline"
	case !end.After(now):
		return "ends now"
	default:
		left = end.Sub(now)
	}
	words := ExactDuration(asked)
	if asked == 0 {
		words = Duration(left)
	}
	return "ends in " + words + " (at " + clock(now, end) + ")"
}

// clock is the time of day t comes, in now's zone, with its date when it
// is another day.
func clock(now, t time.Time) string {
	t = t.In(now.Location())
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

// forever is further ahead than any real deadline (30 days at most).
const forever = 10 * 365 * 24 * time.Hour

const day = 24 * time.Hour

// Duration is a short human duration in at most two units, the last one
// rounded to the nearest (never down: 4m59s is 5m, 90m is 1h30m): 45s,
// 12m, 1h30m, 2d3h, 100y.
func Duration(d time.Duration) string {
	switch d = d.Round(time.Second); {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < day:
		return ExactDuration(d.Round(time.Minute))
	case d < 2*365*day:
		return ExactDuration(d.Round(time.Hour))
	default:
		return fmt.Sprintf("%dy", int(d.Hours()/24/365+0.5))
	}
}

// ExactDuration is d as a person writes it, every unit that is not zero
// from days down to seconds: 1m30s, 1h30m, 1d12h.
func ExactDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	for _, u := range []struct {
		size time.Duration
		name string
	}{{day, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.size; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.size
		}
	}
	return b.String()
}

// Seconds is a duration as JSON carries it (a reconnect event's cutAfter
// and gap, docs/json.md): seconds to the millisecond, the nearest number
// to that decimal, so that 2.821 s is written 2.821 and not with the
// noise of adding the fraction to the whole seconds
// (Duration.Seconds gives 2.8209999999999997).
func Seconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)/time.Millisecond) / 1000
}
