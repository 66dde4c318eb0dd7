//go:build unix && !linux

package jupyter

// awaitExit does nothing where there is no waitid: the group is then
// signalled just after the reap.
func awaitExit(int) {}
