//go:build linux

package jail_test

import (
	"testing"
	"time"
)

// BenchmarkBox is what a sandbox's box costs: its start (the view and the
// init), then its first command to its end, with and without a cgroup.
func BenchmarkBox(b *testing.B) {
	for _, cg := range []struct {
		name string
		on   bool
	}{{"cgroup", true}, {"no-cgroup", false}} {
		b.Run(cg.name, func(b *testing.B) {
			var start, first time.Duration
			for b.Loop() {
				t0 := time.Now()
				bx := newBoxWith(b, cg.on)
				t1 := time.Now()
				cmd := bx.command(b, false, "true")
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				bx.b.Kill()
				start += t1.Sub(t0)
				first += t2.Sub(t1)
			}
			b.ReportMetric(float64(start.Microseconds())/float64(b.N)/1000, "ms-start/op")
			b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "ms-first/op")
		})
	}
}

// BenchmarkCommand is a further command of a running box, to its end:
// the init's fork of it in a user namespace of its own, and its exec.
func BenchmarkCommand(b *testing.B) {
	bx := newBoxWith(b, true)
	for b.Loop() {
		if err := bx.command(b, false, "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
