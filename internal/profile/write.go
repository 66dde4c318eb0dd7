package profile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/runfile"
)

// header heads the file abx writes: it is rewritten whole, so a comment
// of the user's would not survive.
const header = "# abx's profiles (docs/configuration.md). abx rewrites this file: comments are not kept.\n"

// Update reads the file under its lock, lets change edit it, and writes
// it back whole and at once (a temporary file renamed over it), created
// 0600 in a 0700 directory. Two abx processes updating at once take turns:
// each sees the other's change, and the file is never torn. An error from
// change leaves the file as it was. Nothing is written where someone else
// could replace the file (runfile.CheckDirs, up to home).
func Update(path, home string, known Known, change func(*File) error) error {
	if path == "" {
		return errNoPath
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return abxerr.New(abxerr.InvalidConfig, "cannot make %s: %v", dir, err)
	}
	if err := runfile.CheckDirs(path, path, home); err != nil {
		return err
	}
	unlock, err := lock(path + ".lock")
	if err != nil {
		return abxerr.New(abxerr.InvalidConfig, "cannot lock %s: %v", path, err)
	}
	defer unlock()
	f, err := Load(path, home, known)
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		return err
	}
	data, err := f.marshal()
	if err != nil {
		return err
	}
	if err := runfile.WritePrivate(path, data); err != nil {
		return abxerr.New(abxerr.InvalidConfig, "cannot write %s: %v", path, err)
	}
	return nil
}

// marshal writes the file in a stable order: current, then the profiles
// by name, each with its provider first and its key and emulator last.
func (f *File) marshal() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	if f.Current != "" {
		root.Content = append(root.Content, str("current"), str(f.Current))
	}
	profiles := &yaml.Node{Kind: yaml.MappingNode}
	for _, name := range f.Names() {
		p := f.Profiles[name]
		m := &yaml.Node{Kind: yaml.MappingNode}
		m.Content = append(m.Content, str(FieldProvider), str(p.Provider))
		keys := make([]string, 0, len(p.Settings))
		for k := range p.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			m.Content = append(m.Content, str(k), str(p.Settings[k]))
		}
		if p.Key != "" {
			m.Content = append(m.Content, str(FieldKey), str(p.Key))
		}
		if p.Emulator != "" {
			m.Content = append(m.Content, str(FieldEmulator), str(p.Emulator))
		}
		profiles.Content = append(profiles.Content, str(name), m)
	}
	if len(profiles.Content) > 0 {
		root.Content = append(root.Content, str("profiles"), profiles)
	}
	var b bytes.Buffer
	b.WriteString(header)
	if len(root.Content) == 0 {
		return b.Bytes(), nil
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("cannot write the profiles: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// str is a string scalar: quoted by the encoder where YAML would read it
// as something else (a number, true, null).
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
