//go:build unix

package root

import (
	"strings"
	"testing"
)

// A setting's error names it as it was given: the flag when the command
// line gave it, the variable when the environment did.
func TestSettingErrorsNameWhatGaveThem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"key file from the variable", map[string]string{"ABX_ALICLOUD_CONTAINER_API_KEY_FILE": "/nonexistent/key"}, nil,
			"error[E1004]: cannot read ABX_ALICLOUD_CONTAINER_API_KEY_FILE: open /nonexistent/key: no such file or directory; set ABX_ALICLOUD_CONTAINER_API_KEY_FILE to a readable file, or '-' for stdin"},
		{"key file from the flag", nil, []string{"--api-key-file", "/nonexistent/key"},
			"error[E1004]: cannot read --api-key-file: open /nonexistent/key: no such file or directory; give --api-key-file a readable file, or '-' for stdin"},
		{"key from the variable, file from the flag", map[string]string{"ABX_ALICLOUD_CONTAINER_API_KEY": "k"}, []string{"--api-key-file", "/dev/null"},
			"error[E1004]: both ABX_ALICLOUD_CONTAINER_API_KEY and --api-key-file are given; give only one of them"},
		{"port from the variable", map[string]string{"ABX_ALICLOUD_CONTAINER_ENVD_PORT": "x"}, nil,
			`error[E1004]: invalid ABX_ALICLOUD_CONTAINER_ENVD_PORT "x"; set ABX_ALICLOUD_CONTAINER_ENVD_PORT to a whole number`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, e := fakeManager(t)
			e["ABX_ALICLOUD_CONTAINER_API_KEY"] = ""
			for k, v := range tc.env {
				e[k] = v
			}
			r := run(t, e, false, append([]string{"list"}, tc.args...)...)
			if r.code != 2 || r.stderr != tc.want+"\n" {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tc.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}

// A flag's value that is not of its kind says so in abx's words, naming
// the flag, never strconv's.
func TestFlagValuesOfTheWrongKind(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	r := run(t, e, false, "list", "--limit", "abc")
	if r.code != 2 || strings.Contains(r.stderr, "strconv") || strings.Contains(r.stderr, "invalid argument") ||
		!strings.HasPrefix(r.stderr, `error[E1002]: invalid --limit "abc": not a whole number`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
