package sandboxes

import (
	"sort"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// The rules of what an operation is given, checked before anything is
// sent. what names the value as the door takes it (--user, "user",
// timeout_seconds): the words of a door's error are its caller's.

// States are the states a sandbox can be filtered on.
var States = []string{"running", "paused"}

// CheckSandboxID refuses what could not be a sandbox ID (provider's rule,
// which the provider's client holds to as well).
func CheckSandboxID(id string) *abxerr.Error { return provider.CheckSandboxID(id) }

// CheckID refuses an identifier no server issues (provider.CheckID): a
// context's ID, a user.
func CheckID(what, id string) *abxerr.Error { return provider.CheckID(what, id) }

// CheckUser refuses a user that is no Linux user name before it is sent:
// envd puts it in a Basic authorization header, where ':' and line breaks
// would change its meaning. "" (envd's default user) is fine.
func CheckUser(what, u string) error {
	if u == "" {
		return nil
	}
	if err := provider.CheckID(what, u); err != nil {
		return err.WithHint("give a Linux user name in the sandbox, such as user or root")
	}
	return nil
}

// CheckCommand refuses a command that runs nothing: a shell line that is
// empty or only blanks, or an argv whose program is. bash -c "" exits 0,
// so a script's unset "$CMD" would pass for a command that succeeded.
// The door adds the hint, in its own words.
func CheckCommand(what string, argv []string) *abxerr.Error {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return abxerr.New(abxerr.InvalidInput, "%s is empty", what)
	}
	return nil
}

// CheckEnv refuses a variable no process can be given: an empty name, a
// name with '=' or NUL, a value with NUL. A process's environment is
// NAME=VALUE strings that NUL ends, so envd would fail the command (exit
// 126), or set another variable than the one named. The value is never
// shown: it may be a secret.
func CheckEnv(what string, env map[string]string) error {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch {
		case k == "":
			return abxerr.New(abxerr.InvalidInput, "invalid %s: a variable has an empty name", what).
				WithHint("give each variable a name")
		case strings.ContainsAny(k, "=\x00"):
			return abxerr.New(abxerr.InvalidInput, "invalid %s name %q: a variable's name cannot hold '=' or NUL", what, k).
				WithHint("a process's environment is NAME=VALUE strings, each ended by NUL")
		case strings.ContainsRune(env[k], 0):
			return abxerr.New(abxerr.InvalidInput, "invalid %s %s: its value holds NUL, which a process's environment cannot carry", what, k).
				WithHint("a process's environment is NAME=VALUE strings, each ended by NUL")
		}
	}
	return nil
}
