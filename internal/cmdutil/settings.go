package cmdutil

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Where a setting's value came from, as `abx config` shows it.
const (
	sourceFlag = "flag"
	sourceEnv  = "env"
	sourceFile = "file"
	// SourceProfile is a setting from the selected profile; `abx config`
	// shows it with the profile's name.
	SourceProfile = "profile"
	sourceDefault = "default"
	sourceUnset   = "unset"
)

// Where a key from the profile's store came from (Layer.Key's source):
// the store, named apart from "file", a key given with --api-key-file.
const (
	SourceKeyring  = "keyring"
	SourceKeyFile  = "keyfile"
	SourceEmulator = "emulator"
)

// Layer is the selected profile's part of a run's settings, between the
// environment and the defaults (flag > env > profile > default).
type Layer struct {
	// Profile is the profile's name.
	Profile string
	// Values are its settings by key.
	Values map[string]string
	// Key reads its API key and says where it came from (SourceKeyring,
	// SourceKeyFile, SourceEmulator), when neither a flag nor a variable
	// gives one; nil for a
	// profile with no key stored. Its error is the run's: the key was to
	// come from there.
	Key func() (key, source string, err error)
}

// BoundSetting is one setting after binding: its value and its source
// (flag, env, file, profile, default or unset; for a key from a profile,
// the store it came from: keyring, keyfile or emulator).
type BoundSetting struct {
	provider.Setting
	Value  string
	Source string
	// Profile names the profile a value of Source "profile", or a key
	// from its store, came from.
	Profile string
}

// Settings are a provider's settings as a run binds them: each value and
// where it came from, checked for its kind. A setting given as a file
// named '-' is read from stdin only when Config is handed stdin: abx
// config and a Tab show that it will come from there and read nothing.
type Settings struct {
	Descriptor *provider.Descriptor
	Bound      []BoundSetting
	// Profile is the profile the settings were bound with, "" for none.
	Profile string
	v       *viper.Viper
	// fromStdin is the setting whose file is '-', "" for none.
	fromStdin string
	// readFromStdin is what Config read there.
	readFromStdin string
}

// StdinPlaceholder is the value of a setting that will be read from
// stdin and has not been.
const StdinPlaceholder = "(stdin)"

// Bind fills a fresh viper from the provider's flags, variables, the
// selected profile (layer, nil for none) and defaults, in that order of
// precedence. Nothing but the provider's own variables is read, through
// getenv: they make viper's config layer, which ranks between flags and
// defaults as the environment would; a profile's values stand in for the
// defaults they replace. Values are checked per setting, so an error names
// the variable and flag to fix; the Settings returned with it hold what
// was bound until then.
func Bind(d *provider.Descriptor, flags *pflag.FlagSet, getenv func(string) string, layer *Layer) (*Settings, error) {
	v := viper.New()
	env := map[string]any{}
	for _, s := range d.Settings {
		if val := getenv(s.Env); val != "" {
			env[s.Key] = val
		}
		v.SetDefault(s.Key, s.Default)
		if val, ok := layer.value(s.Key); ok {
			v.SetDefault(s.Key, val)
		}
	}
	if err := v.MergeConfigMap(env); err != nil {
		return nil, err
	}
	st := &Settings{Descriptor: d, v: v, Bound: make([]BoundSetting, 0, len(d.Settings))}
	if layer != nil {
		st.Profile = layer.Profile
	}
	for _, s := range d.Settings {
		if fl := flags.Lookup(s.Flag); fl != nil {
			if err := v.BindPFlag(s.Key, fl); err != nil {
				return nil, err
			}
		}
		b := BoundSetting{Setting: s, Value: v.GetString(s.Key), Source: sourceOf(s, flags, env, layer)}
		if b.Source == SourceProfile {
			b.Profile = layer.Profile
		}
		st.Bound = append(st.Bound, b)
	}
	if err := st.resolveFiles(); err != nil {
		return st, err
	}
	for _, b := range st.Bound {
		if err := checkKind(b); err != nil {
			return st, err
		}
	}
	if err := st.keyOf(layer); err != nil {
		return st, err
	}
	return st, nil
}

// value is the profile's value of a setting, if it has one.
func (l *Layer) value(key string) (string, bool) {
	if l == nil {
		return "", false
	}
	v, ok := l.Values[key]
	return v, ok && v != ""
}

// keyOf fills the secret settings the command line and the environment
// left unset from the profile's store: the keyring is asked only then.
func (st *Settings) keyOf(layer *Layer) error {
	if layer == nil || layer.Key == nil {
		return nil
	}
	for i := range st.Bound {
		b := &st.Bound[i]
		if !b.Secret || b.Source != sourceUnset {
			continue
		}
		key, source, err := layer.Key()
		if err != nil {
			return err
		}
		st.v.Set(b.Key, key)
		b.Value, b.Source, b.Profile = key, source, layer.Profile
	}
	return nil
}

// ReadsStdin tells whether a setting is to be read from stdin.
func (st *Settings) ReadsStdin() bool { return st.fromStdin != "" }

// Config decodes the settings into the provider's Config struct. With a
// stdin, a setting given as '-' is read from it first (once); without,
// it keeps the placeholder.
func (st *Settings) Config(stdin io.Reader) (provider.Config, error) {
	if st.fromStdin != "" && stdin != nil {
		if err := st.readStdin(stdin); err != nil {
			return nil, err
		}
	}
	cfg := st.Descriptor.NewConfig()
	if err := st.v.Unmarshal(cfg, viper.DecodeHook(mapstructure.DecodeHookFuncType(durationHook))); err != nil {
		return nil, abxerr.New(abxerr.InvalidConfig, "cannot read the configuration: %v", err)
	}
	return cfg, nil
}

func sourceOf(s provider.Setting, flags *pflag.FlagSet, env map[string]any, layer *Layer) string {
	if fl := flags.Lookup(s.Flag); fl != nil && fl.Changed {
		return sourceFlag
	}
	if _, ok := env[s.Key]; ok {
		return sourceEnv
	}
	if _, ok := layer.value(s.Key); ok {
		return SourceProfile
	}
	if s.Default != "" {
		return sourceDefault
	}
	return sourceUnset
}

// resolveFiles reads settings given as files (FileOf), so that a secret can
// stay out of the process list: --api-key-file PATH, or '-' for stdin,
// which is left for Config.
func (st *Settings) resolveFiles() error {
	for _, fileSetting := range st.Bound {
		if fileSetting.FileOf == "" || fileSetting.Value == "" {
			continue
		}
		target := st.find(fileSetting.FileOf)
		if target == nil {
			continue
		}
		if target.Source == sourceFlag || target.Source == sourceEnv {
			return abxerr.New(abxerr.InvalidConfig, "both %s and %s are given", target.givenAs(), fileSetting.givenAs()).
				WithHint("give only one of them")
		}
		if fileSetting.Value == "-" {
			st.fromStdin = fileSetting.Key
			st.v.Set(target.Key, StdinPlaceholder)
			target.Value, target.Source = StdinPlaceholder, sourceFile
			continue
		}
		data, err := readSecretFile(fileSetting.Value, nil)
		if err != nil {
			return fileError(fileSetting, err)
		}
		value := strings.TrimSpace(string(data))
		if value == "" {
			return emptyFile(fileSetting)
		}
		st.set(target, value)
	}
	return nil
}

// readStdin reads the setting given as '-' from stdin.
func (st *Settings) readStdin(stdin io.Reader) error {
	fileSetting := st.find(st.fromStdin)
	st.fromStdin = ""
	data, err := readSecretFile("-", stdin)
	if err != nil {
		return fileError(*fileSetting, err)
	}
	st.readFromStdin = strings.TrimSpace(string(data))
	if st.readFromStdin == "" {
		return emptyFile(*fileSetting)
	}
	st.set(st.find(fileSetting.FileOf), st.readFromStdin)
	return nil
}

func (st *Settings) find(key string) *BoundSetting {
	for i := range st.Bound {
		if st.Bound[i].Key == key {
			return &st.Bound[i]
		}
	}
	return nil
}

func (st *Settings) set(target *BoundSetting, value string) {
	st.v.Set(target.Key, value)
	target.Value, target.Source = value, sourceFile
}

func fileError(fileSetting BoundSetting, err error) error {
	return abxerr.New(abxerr.InvalidConfig, "cannot read %s: %v", fileSetting.givenAs(), err).
		WithHint("%s a readable file, or '-' for stdin", fileSetting.setTo())
}

// emptyFile refuses a file (or stdin) given for a setting that holds
// nothing but blanks: the value is missing, and the one who gave the file
// is told so, not to give a file.
func emptyFile(fileSetting BoundSetting) error {
	if fileSetting.Value == "-" {
		return abxerr.New(abxerr.MissingConfig, "cannot use %s -: stdin held nothing", fileSetting.givenAs()).
			WithHint("pipe the key in (pass show abx | abx --%s - …), or %s a file that holds it", fileSetting.Flag, fileSetting.setTo())
	}
	return abxerr.New(abxerr.MissingConfig, "cannot use %s %s: the file holds nothing", fileSetting.givenAs(), fileSetting.Value).
		WithHint("put the key in it, or %s another file ('-' for stdin)", fileSetting.setTo())
}

// givenAs names a setting as the user gave it: its flag when the command
// line gave it, else its variable.
func (b BoundSetting) givenAs() string {
	switch b.Source {
	case sourceFlag:
		return "--" + b.Flag
	case SourceProfile:
		return fmt.Sprintf("%s of profile %s", b.Key, b.Profile)
	}
	return b.Env
}

// setTo is how a hint says to give the setting another value, in the
// place it came from: "give --x" or "set ABX_X to".
func (b BoundSetting) setTo() string {
	switch b.Source {
	case sourceFlag:
		return "give --" + b.Flag
	case SourceProfile:
		return fmt.Sprintf("run 'abx login --profile %s --%s VALUE' with", b.Profile, b.Flag)
	}
	return "set " + b.Env + " to"
}

func readSecretFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(io.LimitReader(stdin, 64<<10))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

func checkKind(b BoundSetting) error {
	if b.Value == "" {
		return nil
	}
	var err error
	want := ""
	switch b.Kind {
	case provider.Int:
		_, err = strconv.Atoi(b.Value)
		want = "a whole number"
	case provider.Duration:
		_, err = ParseDurationOrSeconds(b.Value)
		want = "a duration like 30s or 2m, or plain seconds"
	}
	if err != nil {
		return abxerr.New(abxerr.InvalidConfig, "invalid %s %q", b.givenAs(), b.Value).
			WithHint("%s %s", b.setTo(), want)
	}
	return nil
}

// durationHook lets duration settings take plain seconds as well as Go
// durations.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeFor[time.Duration]() || from.Kind() != reflect.String {
		return data, nil
	}
	return ParseDurationOrSeconds(data.(string))
}

// ParseDurationOrSeconds reads Go durations ("90s", "5m", "2h30m"), whole
// days ("7d") and plain seconds, whole or with a fraction ("300", "1.5").
func ParseDurationOrSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	unit, digits := time.Second, s
	if d, ok := strings.CutSuffix(s, "d"); ok {
		unit, digits = 24*time.Hour, d
	}
	if n, err := strconv.ParseInt(digits, 10, 64); err == nil {
		if n < 0 || n > int64(1<<62/unit) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return time.Duration(n) * unit, nil
	}
	if decimalSeconds(s) {
		return time.ParseDuration(s + "s")
	}
	return time.ParseDuration(s)
}

// decimalSeconds tells plain seconds with a fraction: digits and one dot
// ("1.5", ".5", "2."), nothing else (no sign, no exponent).
func decimalSeconds(s string) bool {
	whole, frac, ok := strings.Cut(s, ".")
	return ok && whole+frac != "" && strings.Trim(whole+frac, "0123456789") == ""
}

// AddProviderFlags declares every provider's settings as flags of pf,
// marked as the providers' (IsProviderFlag); a name two providers share is
// declared once.
func AddProviderFlags(pf *pflag.FlagSet, r *provider.Registry) {
	for _, d := range r.All() {
		for _, s := range d.Settings {
			fl := pf.Lookup(s.Flag)
			if fl == nil {
				pf.String(s.Flag, s.Default, s.Usage)
				fl = pf.Lookup(s.Flag)
			}
			if fl.Annotations == nil {
				fl.Annotations = map[string][]string{}
			}
			fl.Annotations[annotProviderFlag] = append(fl.Annotations[annotProviderFlag], d.Name)
		}
	}
}

const annotProviderFlag = "abx/provider"

// IsProviderFlag tells a provider's setting from abx's own flags.
func IsProviderFlag(fl *pflag.Flag) bool { return len(fl.Annotations[annotProviderFlag]) > 0 }
