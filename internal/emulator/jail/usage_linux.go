//go:build linux

package jail

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// CPU is the CPU time the box's processes have used since it started, and
// how many CPUs they may use: the tightest cpu.max of its group and the
// groups above it, at most this machine's. ok is false for a box without
// a group, whose CPU time nothing counts.
func (b *Box) CPU() (used time.Duration, cpus float64, ok bool) {
	if b.cg == nil {
		return 0, 0, false
	}
	stat, err := os.ReadFile(filepath.Join(b.cg.dir, "cpu.stat"))
	if err != nil {
		return 0, 0, false
	}
	usec, ok := statField(stat, "usage_usec")
	if !ok {
		return 0, 0, false
	}
	cpus = float64(runtime.NumCPU())
	if quota := b.cg.tightest("cpu.max", cpuQuota); quota > 0 && quota < cpus {
		cpus = quota
	}
	return time.Duration(usec) * time.Microsecond, cpus, true
}

// Memory is what the box's processes use, page cache left out, and the
// tightest memory.max of its group and those above it (0 when none is
// set). The group counts the use where its memory controller is on;
// elsewhere (a box without a group, or one whose parent shares no
// controller with it, the common case) it is the resident memory of the
// box's processes, summed.
func (b *Box) Memory() (used, limit int64) {
	if b.cg != nil {
		limit = int64(b.cg.tightest("memory.max", memoryMax))
		if cur, ok := readNumber(filepath.Join(b.cg.dir, "memory.current")); ok {
			// As envd's "used" leaves the page cache out.
			if stat, err := os.ReadFile(filepath.Join(b.cg.dir, "memory.stat")); err == nil {
				file, _ := statField(stat, "file")
				slab, _ := statField(stat, "slab_reclaimable")
				cur = max(cur-file-slab, 0)
			}
			return cur, limit
		}
	}
	page := int64(os.Getpagesize())
	for _, pid := range b.Processes() {
		// statm's second field is the resident set, in pages.
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			continue // it ended meanwhile
		}
		if f := strings.Fields(string(raw)); len(f) > 1 {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				used += n * page
			}
		}
	}
	return used, limit
}

// tightest is the smallest limit that file sets in the group or in a
// group above it, up to the hierarchy's root (a container's own group,
// in a container): a limit on an ancestor bounds the box as well. It is
// 0 when none sets one, or the controller is off all the way up.
func (c *cgroup) tightest(file string, parse func(string) (float64, bool)) float64 {
	root, err := cgroup2Root()
	if err != nil {
		return 0
	}
	best := 0.0
	for dir := c.dir; ; dir = filepath.Dir(dir) {
		if raw, err := os.ReadFile(filepath.Join(dir, file)); err == nil {
			if v, ok := parse(strings.TrimSpace(string(raw))); ok && (best == 0 || v < best) {
				best = v
			}
		}
		if dir == root || !strings.HasPrefix(dir, root+"/") {
			return best
		}
	}
}

// cpuQuota reads cpu.max ("QUOTA PERIOD", or "max PERIOD") as CPUs.
func cpuQuota(s string) (float64, bool) {
	q, p, ok := strings.Cut(s, " ")
	if !ok || q == "max" {
		return 0, false
	}
	quota, err1 := strconv.ParseFloat(q, 64)
	period, err2 := strconv.ParseFloat(p, 64)
	if err1 != nil || err2 != nil || quota <= 0 || period <= 0 {
		return 0, false
	}
	return quota / period, true
}

// memoryMax reads memory.max: bytes, or "max".
func memoryMax(s string) (float64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n == math.MaxInt64 {
		return 0, false
	}
	return float64(n), true
}

// readNumber reads a file that holds one number.
func readNumber(path string) (int64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil
}

// statField is a field of a flat-keyed file such as cpu.stat ("key N"
// lines).
func statField(stat []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(stat))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == key {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
