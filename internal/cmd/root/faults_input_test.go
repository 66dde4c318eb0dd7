//go:build unix

package root

import (
	"strings"
	"testing"
)

// Bad input is refused before the first request, with exit 2 (125 for the
// commands that pass a status through), and a secret in it is not echoed.
func TestFaultsBadInputSendsNothing(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	long := strings.Repeat("a", 10_000)
	cases := []faultCase{
		{name: "dot ID", args: []string{"kill", "."}, want: 2, wantErr: `^error\[E1002\]: invalid sandbox ID "\."`},
		{name: "dot-dot ID", args: []string{"kill", ".."}, want: 2, wantErr: `invalid sandbox ID "\.\."`},
		{name: "10 kB ID", args: []string{"info", long}, want: 2, wantErr: `^error\[E1002\]: invalid sandbox ID`},
		{name: "ID with a slash", args: []string{"info", "a/../../api"}, want: 2, wantErr: `invalid sandbox ID`},
		{name: "ID with a newline", args: []string{"pause", "a\nb"}, want: 2, wantErr: `invalid sandbox ID "a\\nb"`},
		{name: "ID with a space", args: []string{"resume", "a b"}, want: 2, wantErr: `invalid sandbox ID`},
		{name: "ID with a query", args: []string{"info", "a?x=1"}, want: 2, wantErr: `invalid sandbox ID`},
		{name: "ID with a non-ASCII letter", args: []string{"info", "sändbox"}, want: 2, wantErr: `invalid sandbox ID`},
		{name: "exec with a bad ID", args: []string{"exec", "..", "--", "true"}, want: 125, wantErr: `invalid sandbox ID`},
		{name: "API key with CR LF", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_API_KEY": "sk-abc\r\nX-Evil: 1"},
			want: 2, wantErr: `^error\[E1004\]: the API key holds a space, a line break or another control character`},
		{name: "API key with a tab", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_API_KEY": "sk\tabc"}, want: 2, wantErr: `E1004`},
		{name: "base URL with a query", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://h.example/kruise/api?x=1"},
			want: 2, wantErr: `^error\[E1004\]: base URL .* has a query`},
		{name: "base URL with a fragment", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://h.example/api#top"},
			want: 2, wantErr: `has a fragment`},
		{name: "base URL with port 99999", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://h.example:99999/api"},
			want: 2, wantErr: `has a port outside 1\.\.65535`},
		{name: "base URL with port 0", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://h.example:0/api"},
			want: 2, wantErr: `has a port outside`},
		{name: "base URL with a space", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://h.example/kruise api"},
			want: 2, wantErr: `holds a space`},
		{name: "base URL with a password", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://user:hunter2-secret@h.example/api"},
			want: 2, wantErr: `carries a user or password`,
			check: func(t *testing.T, _ *faulty, r result) {
				if strings.Contains(r.stderr+r.stdout, "hunter2-secret") {
					t.Errorf("the password was printed: %q", r.stderr)
				}
			}},
		{name: "base URL not http", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "ftp://h.example/api"},
			want: 2, wantErr: `not an absolute http\(s\) URL`},
		{name: "domain with a bad port", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "", "ABX_ALICLOUD_CONTAINER_DOMAIN": "h.example:70000"},
			want: 2, wantErr: `domain "h.example:70000" is not a host name`},
		{name: "domain with a password", args: []string{"list"}, env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "", "ABX_ALICLOUD_CONTAINER_DOMAIN": "user:hunter2-secret@h.example"},
			want: 2, wantErr: `the domain carries a user or password`,
			check: func(t *testing.T, _ *faulty, r result) {
				if strings.Contains(r.stderr+r.stdout, "hunter2-secret") {
					t.Errorf("the password was printed: %q", r.stderr)
				}
			}},
		{name: "files write from a missing file", args: []string{"files", "write", "ID", "/home/user/x", "--from", "/no/such/file"},
			want: 2, wantErr: `^error\[E1002\]: .*/no/such/file`},
		{name: "--user with a newline", args: []string{"exec", "ID", "--user", "root\nx", "--", "true"}, want: 125, wantErr: `invalid --user`},
		{name: "--user with a colon", args: []string{"exec", "ID", "--user", "a:b", "--", "true"}, want: 125, wantErr: `invalid --user`},
		{name: "--user with a space", args: []string{"files", "ls", "ID", "/", "--user", "a b"}, want: 2, wantErr: `invalid --user`},
	}
	for _, c := range cases {
		c.check = sentNothing(c.check)
		t.Run(c.name, func(t *testing.T) { runFault(t, f, c) })
	}

	// abx config shows the effective values, a base URL's password not.
	r := runFault(t, f, faultCase{name: "config", args: []string{"config"},
		env: env{"ABX_ALICLOUD_CONTAINER_BASE_URL": "https://user:hunter2-secret@h.example/api"}})
	if strings.Contains(r.stdout+r.stderr, "hunter2-secret") {
		t.Errorf("abx config printed the password: %q", r.stdout)
	}
}

// sentNothing adds to check that no request reached the proxy.
func sentNothing(check func(t *testing.T, f *faulty, r result)) func(t *testing.T, f *faulty, r result) {
	return func(t *testing.T, f *faulty, r result) {
		t.Helper()
		if seen := f.proxy.Seen(); len(seen) != 0 {
			t.Errorf("requests were sent: %v", seen)
		}
		if check != nil {
			check(t, f, r)
		}
	}
}
