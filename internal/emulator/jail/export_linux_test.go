//go:build linux

package jail

// SparePIDs are the pids of the inits waiting for a box.
func SparePIDs() []int {
	spares.mu.Lock()
	defer spares.mu.Unlock()
	var pids []int
	for _, ps := range spares.idle {
		for _, p := range ps {
			pids = append(pids, p.cmd.Process.Pid)
		}
	}
	return pids
}
