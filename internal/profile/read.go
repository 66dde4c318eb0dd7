package profile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/runfile"
	"github.com/abx-dev/abx/internal/shell"
)

// maxSize bounds the file: a config is a few hundred bytes, and a huge
// one is a mistake, not a config.
const maxSize = 1 << 20

// Load reads the file at path; a file that is not there is an empty one.
// Everything in it is checked: a malformed line, an unknown field, a
// profile without a provider or a current profile that is not there is an
// error naming the path and the line, and so is a file others may write
// or replace (it says where the key goes): its mode, its owner and the
// directories above it up to home (runfile.Home's; "" for up to /).
func Load(path, home string, known Known) (*File, error) {
	f := &File{Path: path, Profiles: map[string]*Profile{}}
	if path == "" {
		return f, nil
	}
	// One open, then the mode and the bytes of that file: a file swapped
	// or grown between a stat and a read is not checked by one and read by
	// the other.
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidConfig, "cannot read %s: %v", path, err).
			WithHint("check its permissions, or point ABX_CONFIG elsewhere")
	}
	defer func() { _ = file.Close() }()
	info, err := file.Stat()
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidConfig, "cannot read %s: %v", path, err)
	}
	if err := checkMode(path, info); err != nil {
		return nil, err
	}
	if err := runfile.CheckTrusted(path, path, info, home); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(file, maxSize+1))
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidConfig, "cannot read %s: %v", path, err)
	}
	if len(data) > maxSize {
		return nil, abxerr.New(abxerr.InvalidConfig, "%s is over %d MiB, more than a config file holds", path, maxSize>>20).
			WithHint("move it away to start afresh")
	}
	return parse(f, data, known)
}

// checkMode refuses a config file that others may write (it says where
// the key is sent), with the chmod that mends it. Windows' ACLs are not
// modes: nothing to check.
func checkMode(path string, info fs.FileInfo) error {
	if !runfile.ModesMatter || info.Mode().Perm()&0o022 == 0 {
		return nil
	}
	return abxerr.New(abxerr.InvalidConfig, "%s is not private: others may write it (mode %04o)", path, info.Mode().Perm()).
		WithHint("run: chmod 600 %s", shell.Quote(path))
}

// yamlLine finds the line in the YAML library's own errors ("yaml: line
// 3: …"): its number and the rest, or ok false.
func yamlLine(msg string) (line int, rest string, ok bool) {
	num, rest, found := strings.Cut(strings.TrimPrefix(msg, "yaml: line "), ": ")
	if !found || !strings.HasPrefix(msg, "yaml: line ") {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, "", false
	}
	return n, rest, true
}

func parse(f *File, data []byte, known Known) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		var te *yaml.TypeError
		if n, rest, ok := yamlLine(err.Error()); ok {
			return nil, syntaxError(f.Path, n, "%s", rest)
		}
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return nil, syntaxError(f.Path, 1, "%s", te.Errors[0])
		}
		return nil, syntaxError(f.Path, 1, "%s", bytes.TrimPrefix([]byte(err.Error()), []byte("yaml: ")))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return f, nil // empty
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return f, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, syntaxError(f.Path, root.Line, "the file must be a mapping of 'current' and 'profiles'")
	}
	var currentLine int
	err := eachField(f.Path, root, func(key, value *yaml.Node) error {
		switch key.Value {
		case "current":
			s, err := scalar(f.Path, key, value)
			f.Current, currentLine = s, key.Line
			return err
		case "profiles":
			return parseProfiles(f, value, known)
		}
		return syntaxError(f.Path, key.Line, "unknown field %q (the file has 'current' and 'profiles')", key.Value)
	})
	if err != nil {
		return nil, err
	}
	if f.Current != "" && f.Profiles[f.Current] == nil {
		return nil, syntaxError(f.Path, currentLine, "the current profile %q is not in the file", f.Current)
	}
	return f, nil
}

func parseProfiles(f *File, node *yaml.Node, known Known) error {
	if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return nil
	}
	if node.Kind != yaml.MappingNode {
		return syntaxError(f.Path, node.Line, "'profiles' must be a mapping of names to profiles")
	}
	return eachField(f.Path, node, func(key, value *yaml.Node) error {
		if err := CheckName(key.Value); err != nil {
			return syntaxError(f.Path, key.Line, "%s", abxerr.From(err).Message)
		}
		if value.Kind != yaml.MappingNode {
			return syntaxError(f.Path, value.Line, "profile %q must be a mapping of settings", key.Value)
		}
		p := &Profile{Settings: map[string]string{}}
		var fields []*yaml.Node
		err := eachField(f.Path, value, func(k, v *yaml.Node) error {
			s, err := scalar(f.Path, k, v)
			if err != nil {
				return err
			}
			switch k.Value {
			case FieldProvider:
				p.Provider = s
			case FieldKey:
				if s != KeyKeyring && s != KeyFile && s != "" {
					return syntaxError(f.Path, v.Line, "profile %q: key is kept in %q: use keyring or file", key.Value, s)
				}
				p.Key = s
			case FieldEmulator:
				if !filepath.IsAbs(s) {
					return syntaxError(f.Path, v.Line, "profile %q: emulator must be the absolute path of its state dir", key.Value)
				}
				p.Emulator = s
			default:
				p.Settings[k.Value] = s
				fields = append(fields, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if p.Provider == "" {
			return syntaxError(f.Path, key.Line, "profile %q names no provider", key.Value)
		}
		for _, k := range fields {
			if known != nil && !known(p.Provider, k.Value) {
				return syntaxError(f.Path, k.Line, "profile %q: unknown setting %q of provider %s", key.Value, k.Value, p.Provider)
			}
		}
		f.Profiles[key.Value] = p
		return nil
	})
}

// eachField walks a mapping's pairs, refusing a key given twice (the
// YAML library keeps the last; a person meant one of them).
func eachField(path string, m *yaml.Node, fn func(key, value *yaml.Node) error) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return syntaxError(path, k.Line, "a key must be a plain name")
		}
		if seen[k.Value] {
			return syntaxError(path, k.Line, "%q is given twice", k.Value)
		}
		seen[k.Value] = true
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// scalar is a field's value as text; a list or a mapping there is an
// error.
func scalar(path string, key, v *yaml.Node) (string, error) {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind != yaml.ScalarNode {
		return "", syntaxError(path, v.Line, "%q must be a single value", key.Value)
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}
