package portforward

import (
	"errors"
	"net/url"
	"strings"
)

// ErrPath is why a request's path is not forwarded.
var ErrPath = errors.New("the path has a '.' or '..' segment, an escaped '/' or a backslash: a sandbox's port is reached by paths of its own only")

// CheckPath refuses a path that could leave the sandbox port it is sent
// to. A port's URL is a rule of the gateway (/kruise/ID/PORT on a shared
// host, for one), and the request's path is appended to it: a '..'
// segment, which the gateway or a proxy before it resolves, would climb
// out of that prefix to another sandbox's port or to the manager's API,
// with the credentials of this port. An escaped '/' (%2F) or '.' (%2E),
// or a backslash (which some servers read as '/'), is the same climb in
// another spelling.
func CheckPath(u *url.URL) error {
	raw := u.EscapedPath()
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(raw, `\`) {
		return ErrPath
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if seg == "." || seg == ".." {
			return ErrPath
		}
	}
	return nil
}
