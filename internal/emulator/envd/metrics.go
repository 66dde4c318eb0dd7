//go:build unix

package envd

import (
	"encoding/json"
	"math"
	"net/http"
	"time"
)

// metricsAnswer is envd 0.2.10's answer to GET /metrics, field for field
// and in its order (docs/protocol.md, "Metrics").
type metricsAnswer struct {
	TS          int64   `json:"ts"`
	CPUCount    uint32  `json:"cpu_count"`
	CPUUsedPct  float32 `json:"cpu_used_pct"`
	MemTotalMiB uint64  `json:"mem_total_mib"`
	MemUsedMiB  uint64  `json:"mem_used_mib"`
	MemTotal    uint64  `json:"mem_total"`
	MemUsed     uint64  `json:"mem_used"`
	DiskUsed    uint64  `json:"disk_used"`
	DiskTotal   uint64  `json:"disk_total"`
}

// usage is one measure of a sandbox, before it is put as envd puts it.
type usage struct {
	cpuCount            int
	cpuPct              float64
	memUsed, memTotal   uint64
	diskUsed, diskTotal uint64
}

// metrics answers GET /metrics as envd 0.2.10 does: one sample of the
// sandbox's CPU, memory and disk, measured when asked, the CPU since the
// sample before (docs/emulator.md, "Metrics"). ServeHTTP has checked the
// access token: unlike /files, envd asks for it here.
func (s *Server) metrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/json")
	now := time.Now()
	u, err := s.measure(now)
	if err != nil {
		// envd's own failure is a bare 500; the emulator says why.
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": http.StatusInternalServerError, "message": err.Error()})
		return
	}
	_ = json.NewEncoder(w).Encode(u.answer(now))
}

// answer puts u as envd does: the percent rounded to two places, memory
// in bytes and again in MiB, nothing used beyond its total.
func (u usage) answer(now time.Time) metricsAnswer {
	pct := math.Round(min(max(u.cpuPct, 0), 100)*100) / 100
	memUsed, diskUsed := min(u.memUsed, u.memTotal), min(u.diskUsed, u.diskTotal)
	return metricsAnswer{
		TS:          now.Unix(),
		CPUCount:    uint32(max(u.cpuCount, 1)),
		CPUUsedPct:  float32(pct),
		MemTotalMiB: u.memTotal >> 20,
		MemUsedMiB:  memUsed >> 20,
		MemTotal:    u.memTotal,
		MemUsed:     memUsed,
		DiskUsed:    diskUsed,
		DiskTotal:   u.diskTotal,
	}
}
