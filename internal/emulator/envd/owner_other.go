//go:build unix && !linux

package envd

// asUser runs fn: processes are not isolated here, so they run as this
// process's user already.
func (s *Server) asUser(fn func() error) error { return fn() }
