package envd

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is an envd version. Features newer than the clusters' 0.2.10 are
// gated on it, never assumed.
type Version struct{ Major, Minor, Patch int }

// The versions that brought the features abx uses (docs/protocol.md, "envd
// versions").
var (
	StdinFlag   = Version{0, 3, 0} // StartRequest.stdin
	DefaultUser = Version{0, 4, 0} // a server-side default user
	CloseStdin  = Version{0, 5, 2} // the CloseStdin RPC
	OctetUpload = Version{0, 5, 7} // application/octet-stream uploads
	Metadata    = Version{0, 6, 2} // EntryInfo.metadata
)

// ParseVersion reads "0.2.10" (a leading v is allowed). An empty or
// unreadable version is the oldest one abx supports: features stay off.
func ParseVersion(s string) Version {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(s, ".", 3)
	var v [3]int
	for i, p := range parts {
		p, _, _ = strings.Cut(p, "-")
		n, err := strconv.Atoi(p)
		if err != nil {
			return Version{0, 2, 10}
		}
		v[i] = n
	}
	if len(parts) < 2 {
		return Version{0, 2, 10}
	}
	return Version{v[0], v[1], v[2]}
}

// AtLeast reports whether v is o or newer.
func (v Version) AtLeast(o Version) bool {
	if v.Major != o.Major {
		return v.Major > o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor > o.Minor
	}
	return v.Patch >= o.Patch
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }
