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
	sourceFlag    = "flag"
	sourceEnv     = "env"
	sourceFile    = "file"
	sourceDefault = "default"
	sourceUnset   = "unset"
)

// BoundSetting is one setting after binding: its value and its source
// (flag, env, file, default or unset).
type BoundSetting struct {
	provider.Setting
	Value  string
	Source string
}

// BindSettings fills a fresh viper from the provider's flags and variables
// (flag > env > default) and decodes it into the provider's Config struct.
// Nothing but the provider's own variables is read, through f.Getenv: they
// make viper's config layer, which ranks between flags and defaults as the
// environment would. A nil stdin leaves a '-' file setting unread. Values
// are checked per setting first, so an error names the variable and flag to
// fix.
func (f *Factory) BindSettings(d *provider.Descriptor, stdin io.Reader) (provider.Config, []BoundSetting, error) {
	v := viper.New()
	env := map[string]any{}
	for _, s := range d.Settings {
		if val := f.Getenv(s.Env); val != "" {
			env[s.Key] = val
		}
		v.SetDefault(s.Key, s.Default)
	}
	if err := v.MergeConfigMap(env); err != nil {
		return nil, nil, err
	}
	bound := make([]BoundSetting, 0, len(d.Settings))
	for _, s := range d.Settings {
		if fl := f.Flags.Lookup(s.Flag); fl != nil {
			if err := v.BindPFlag(s.Key, fl); err != nil {
				return nil, nil, err
			}
		}
		b := BoundSetting{Setting: s, Value: v.GetString(s.Key), Source: sourceOf(s, f.Flags, env)}
		bound = append(bound, b)
	}
	if err := resolveFiles(v, bound, stdin); err != nil {
		return nil, bound, err
	}
	for _, b := range bound {
		if err := checkKind(b); err != nil {
			return nil, bound, err
		}
	}
	cfg := d.NewConfig()
	if err := v.Unmarshal(cfg, viper.DecodeHook(mapstructure.DecodeHookFuncType(durationHook))); err != nil {
		return nil, bound, abxerr.New(abxerr.InvalidConfig, "cannot read the configuration: %v", err)
	}
	return cfg, bound, nil
}

func sourceOf(s provider.Setting, flags *pflag.FlagSet, env map[string]any) string {
	if fl := flags.Lookup(s.Flag); fl != nil && fl.Changed {
		return sourceFlag
	}
	if _, ok := env[s.Key]; ok {
		return sourceEnv
	}
	if s.Default != "" {
		return sourceDefault
	}
	return sourceUnset
}

// resolveFiles reads settings given as files (FileOf), so that a secret can
// stay out of the process list: --api-key-file PATH, or '-' for stdin. A nil
// stdin leaves '-' unread.
func resolveFiles(v *viper.Viper, bound []BoundSetting, stdin io.Reader) error {
	for _, fileSetting := range bound {
		if fileSetting.FileOf == "" || fileSetting.Value == "" {
			continue
		}
		for i := range bound {
			target := &bound[i]
			if target.Key != fileSetting.FileOf {
				continue
			}
			if target.Source == sourceFlag || target.Source == sourceEnv {
				return abxerr.New(abxerr.InvalidConfig, "both %s and %s are set", target.Env, fileSetting.Env).
					WithHint("set only one of them (--%s or --%s)", target.Flag, fileSetting.Flag)
			}
			if fileSetting.Value == "-" && stdin == nil {
				// abx config does not consume stdin: it shows that the
				// value will come from there.
				v.Set(target.Key, "(stdin)")
				target.Value, target.Source = "(stdin)", sourceFile
				continue
			}
			data, err := readSecretFile(fileSetting.Value, stdin)
			if err != nil {
				return abxerr.New(abxerr.InvalidConfig, "cannot read %s: %v", fileSetting.Env, err).
					WithHint("set %s or --%s to a readable file, or '-' for stdin", fileSetting.Env, fileSetting.Flag)
			}
			value := strings.TrimSpace(string(data))
			v.Set(target.Key, value)
			target.Value, target.Source = value, sourceFile
		}
	}
	return nil
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
		return abxerr.New(abxerr.InvalidConfig, "invalid %s %q", b.Key, b.Value).
			WithHint("set %s or --%s to %s", b.Env, b.Flag, want)
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
// days ("7d") and plain seconds ("300").
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
	return time.ParseDuration(s)
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
