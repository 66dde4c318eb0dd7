//go:build linux

package envd

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// measure samples the sandbox: its box's own numbers where its group
// counts them, else this machine's (docs/emulator.md, "Metrics").
func (s *Server) measure(now time.Time) (usage, error) {
	s.boxMu.Lock()
	b, started := s.jail, s.jailAt
	s.boxMu.Unlock()
	mem, err := readMeminfo()
	if err != nil {
		return usage{}, err
	}
	u := usage{memTotal: mem.total}
	switch {
	case b != nil:
		if used, cpus, ok := b.CPU(); ok {
			u.cpuPct = s.meter.ofBox(b, started, used, cpus, now)
			u.cpuCount = int(math.Ceil(cpus))
		} else if err := s.meter.ofMachine(&u); err != nil {
			return usage{}, err
		}
		used, limit := b.Memory()
		u.memUsed = uint64(max(used, 0))
		if limit > 0 && uint64(limit) < u.memTotal {
			u.memTotal = uint64(limit)
		}
	case s.opts.Isolated:
		// Its box has not booted yet (or the sandbox was restored paused):
		// nothing runs in the sandbox.
		u.cpuCount = runtime.NumCPU()
	default:
		if err := s.meter.ofMachine(&u); err != nil {
			return usage{}, err
		}
		u.memUsed = mem.used
	}
	u.diskUsed, u.diskTotal, err = s.diskUsage()
	return u, err
}

// cpuMeter keeps a sandbox's last CPU sample, so that each answer is the
// percent since the one before, as envd's is (the first since the box
// started, or since envd did).
type cpuMeter struct {
	mu sync.Mutex
	// box is whose group the last sample read: its CPU time then, and when.
	box  *jail.Box
	used time.Duration
	at   time.Time
	// busy and total are this machine's ticks at its last sample; last is
	// the percent it gave, kept for a sample too soon after to differ.
	busy, total uint64
	last        float64
}

// start takes the machine's first sample, as envd's does when it starts.
func (m *cpuMeter) start() {
	if st, err := readProcStat(); err == nil {
		m.busy, m.total = st.busy, st.total
	}
}

// ofBox is the percent of the cpus the box may use that its processes
// used since the last sample of it, or since it started.
func (m *cpuMeter) ofBox(b *jail.Box, started time.Time, used time.Duration, cpus float64, now time.Time) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	prevUsed, prevAt := m.used, m.at
	if m.box != b {
		prevUsed, prevAt = 0, started
	}
	m.box, m.used, m.at = b, used, now
	return percent(float64(used-prevUsed), float64(now.Sub(prevAt))*cpus)
}

// ofMachine puts this machine's CPUs, and the percent of them busy since
// the last sample, in u.
func (m *cpuMeter) ofMachine(u *usage) error {
	st, err := readProcStat()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u.cpuCount = st.cpus
	if st.total <= m.total {
		// Not a tick since: the last answer stands.
		u.cpuPct = m.last
		return nil
	}
	busy := float64(0)
	if st.busy > m.busy {
		busy = float64(st.busy - m.busy)
	}
	m.last = percent(busy, float64(st.total-m.total))
	m.busy, m.total = st.busy, st.total
	u.cpuPct = m.last
	return nil
}

// percent is part of whole as a percent, 0 when whole is nothing.
func percent(part, whole float64) float64 {
	if whole <= 0 || part <= 0 {
		return 0
	}
	return min(part/whole*100, 100)
}

// procStat is the machine's CPU time, in ticks, from /proc/stat.
type procStat struct {
	busy, total uint64
	cpus        int
}

func readProcStat() (procStat, error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return procStat{}, err
	}
	var st procStat
	found := false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0 || !strings.HasPrefix(f[0], "cpu"):
			continue
		case f[0] != "cpu":
			st.cpus++
			continue
		}
		// user nice system idle iowait irq softirq steal; guest time is
		// in user's already. Idle and waiting for I/O are not busy.
		for i, v := range f[1:min(len(f), 9)] {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return procStat{}, errors.New("/proc/stat: " + err.Error())
			}
			st.total += n
			if i != 3 && i != 4 {
				st.busy += n
			}
		}
		found = true
	}
	if !found {
		return procStat{}, errors.New("/proc/stat has no cpu line")
	}
	st.cpus = max(st.cpus, 1)
	return st, nil
}

// meminfo is the machine's memory, in bytes: used as envd counts it (as
// `free` does: neither free, nor buffers, nor page cache).
type meminfo struct{ total, used uint64 }

func readMeminfo() (meminfo, error) {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return meminfo{}, err
	}
	kb := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
			kb[k] = n << 10
		}
	}
	m := meminfo{total: kb["MemTotal"]}
	if m.total == 0 {
		return meminfo{}, errors.New("/proc/meminfo has no MemTotal")
	}
	notUsed := kb["MemFree"] + kb["Buffers"] + kb["Cached"] + kb["SReclaimable"]
	switch {
	case notUsed < m.total:
		m.used = m.total - notUsed
	case kb["MemAvailable"] < m.total:
		m.used = m.total - kb["MemAvailable"]
	}
	return m, nil
}
