//go:build unix

package jupyter

import _ "embed"

// The drivers of the kernels, one per language the emulator has: each
// speaks the protocol of driver.py (requests on stdin, events on fd 3).
var (
	//go:embed driver.py
	pythonDriver string
	//go:embed driver.js
	javascriptDriver string
	//go:embed driver_bash.py
	bashDriver string
)

// argv is the command line of a kernel of language, run in the sandbox
// (its programs are the sandbox's, found on its PATH); false for a
// language the emulator has no kernel of. TypeScript runs on the
// JavaScript kernel, as the real server's does.
func (s *Server) argv(language string) ([]string, bool) {
	switch language {
	case "python":
		return []string{s.opts.Python, "-u", "-c", pythonDriver}, true
	case "javascript", "typescript":
		return []string{s.opts.Node, "-e", javascriptDriver}, true
	case "bash":
		return []string{s.opts.Python, "-u", "-c", bashDriver}, true
	}
	return nil, false
}
