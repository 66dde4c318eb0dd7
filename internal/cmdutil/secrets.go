package cmdutil

import "github.com/abx-dev/abx/internal/secrets"

// RegisterSecrets makes the secret settings' values (the API key, from a
// flag, the environment or a file) and any password in a URL setting known
// to the printers, so that no server echoing them gets them printed. It
// reads what was bound, and the environment too, since binding may have
// failed before every value was read.
//
// A secret given on stdin is read later, by Config: RegisterStdinSecret
// makes it known then.
func (st *Settings) RegisterSecrets(s *secrets.Set, getenv func(string) string) {
	for _, set := range st.Descriptor.Settings {
		v := getenv(set.Env)
		if set.Secret {
			s.Add(v)
		}
		s.AddURLPassword(v)
	}
	for _, b := range st.Bound {
		// The placeholder of a key left on stdin is no secret, and
		// redacting it would hide that word everywhere.
		if b.Secret && b.Value != StdinPlaceholder {
			s.Add(b.Value)
		}
		s.AddURLPassword(b.Value)
	}
}

// RegisterStdinSecret makes the value Config read from stdin known to the
// printers, once it has been read.
func (st *Settings) RegisterStdinSecret(s *secrets.Set) {
	if st.readFromStdin != "" {
		s.Add(st.readFromStdin)
		s.AddURLPassword(st.readFromStdin)
	}
}
