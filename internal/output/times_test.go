package output

import (
	"encoding/json"
	"testing"
	"time"
)

// Relative times round to the nearest unit they show, never down: a
// sandbox asked to live 90 minutes is not said to end in an hour.
func TestDurationRoundsToTheNearest(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{400 * time.Millisecond, "0s"},
		{44*time.Second + 600*time.Millisecond, "45s"},
		{59*time.Second + 600*time.Millisecond, "1m"},
		{90 * time.Second, "2m"},
		{4*time.Minute + 59*time.Second, "5m"},
		{12 * time.Minute, "12m"},
		{59*time.Minute + 40*time.Second, "1h"},
		{90 * time.Minute, "1h30m"},
		{2*time.Hour + 29*time.Second, "2h"},
		{47*time.Hour + 59*time.Minute + 50*time.Second, "2d"},
		{51*time.Hour + 20*time.Minute, "2d3h"},
		{9 * 24 * time.Hour, "9d"},
		{100 * 365 * 24 * time.Hour, "100y"},
	}
	for _, tc := range cases {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// A duration abx was given prints as it was given, in its largest units.
func TestExactDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{90 * time.Second, "1m30s"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + 30*time.Second, "1h30s"},
		{5 * time.Minute, "5m"},
		{36 * time.Hour, "1d12h"},
		{30 * 24 * time.Hour, "30d"},
		{0, "0s"},
	}
	for _, tc := range cases {
		if got := ExactDuration(tc.d); got != tc.want {
			t.Errorf("ExactDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// A confirmation names the deadline both ways: how long is left and the
// time of day it comes, on the clock abx reads.
func TestEnds(t *testing.T) {
	s, _, _, _ := Test(true)
	now := s.Now()
	cases := []struct {
		end  time.Time
		left time.Duration
		want string
	}{
		{now.Add(4*time.Minute + 59*time.Second), 0, "ends in 5m (at 15:09:04)"},
		{now.Add(90 * time.Minute), 90 * time.Minute, "ends in 1h30m (at 16:34:05)"},
		{time.Time{}, 90 * time.Second, "ends in 1m30s (at 15:05:35)"},
		{now.Add(36 * time.Hour), 0, "ends in 1d12h (at 2026-01-04 03:04:05)"},
		{now.Add(-time.Second), 0, "ends now"},
		{now.Add(100 * 365 * 24 * time.Hour), 0, "has no deadline"},
		{time.Time{}, 0, "ends at a time the service did not give"},
	}
	for _, tc := range cases {
		if got := s.Ends(tc.end, tc.left); got != tc.want {
			t.Errorf("Ends(%v, %v) = %q, want %q", tc.end, tc.left, got, tc.want)
		}
	}
}

// A duration in JSON is seconds to the millisecond, and the number is
// that decimal: no float noise (2.8209999999999997) in what jq reads.
func TestSecondsAreExactToTheMillisecond(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{2821 * time.Millisecond, "2.821"},
		{2821*time.Millisecond + 499*time.Microsecond, "2.821"},
		{400*time.Second + 300*time.Millisecond, "400.3"},
		{100 * time.Millisecond, "0.1"},
		{0, "0"},
		{time.Hour + 7*time.Millisecond, "3600.007"},
	} {
		b, err := json.Marshal(Seconds(tc.d))
		if err != nil || string(b) != tc.want {
			t.Errorf("Seconds(%s) is %s in JSON, want %s", tc.d, b, tc.want)
		}
	}
}
