package meta

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// Each meta command takes no arguments: argv either reaches the run
// function or is a usage error naming the command.
func TestNewCmdMeta(t *testing.T) {
	t.Parallel()
	builders := map[string]func(f *cmdutil.Factory, ran *bool) *cobra.Command{
		"capabilities": func(f *cmdutil.Factory, ran *bool) *cobra.Command {
			return NewCmdCapabilities(f, func(context.Context, *CapabilitiesOptions) error { *ran = true; return nil })
		},
		"config": func(f *cmdutil.Factory, ran *bool) *cobra.Command {
			return NewCmdConfig(f, func(context.Context, *ConfigOptions) error { *ran = true; return nil })
		},
		"version": func(f *cmdutil.Factory, ran *bool) *cobra.Command {
			return NewCmdVersion(f, func(context.Context, *VersionOptions) error { *ran = true; return nil })
		},
	}
	for name, build := range builders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, _ := factorytest.NewFactory(false, nil, "")
			var ran bool
			if err := cmdtest.Exec(build(f, &ran)); err != nil || !ran {
				t.Fatalf("no arguments: ran %v, %v", ran, err)
			}
			ran = false
			err := cmdtest.Exec(build(f, &ran), "extra")
			if err == nil || ran || !strings.Contains(err.Error(), name+` takes no arguments, got "extra"`) {
				t.Errorf("an argument: ran %v, %v", ran, err)
			}
		})
	}
}

func TestCapabilitiesShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		format output.Format
		tty    bool
	}{
		{"json", output.JSON, false}, {"piped", output.Table, false}, {"tty", output.Table, true},
		{"wide-tty", output.Wide, true}, {"name", output.Name, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, s := factorytest.NewFactory(tc.tty, nil, tc.format)
			f.IO.Color = false
			d := f.Registry.All()[0]
			opts := &CapabilitiesOptions{Printer: f.Printer, Selected: func() (*provider.Descriptor, error) { return d, nil }}
			if err := runCapabilities(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			cmdtest.Golden(t, "capabilities."+tc.name, s.Out.String())
		})
	}
}

func TestVersionJSON(t *testing.T) {
	t.Parallel()
	f, s := factorytest.NewFactory(false, nil, output.JSON)
	if err := cmdtest.Exec(NewCmdVersion(f, nil)); err != nil {
		t.Fatal(err)
	}
	var v VersionInfo
	if err := json.Unmarshal(s.Out.Bytes(), &v); err != nil || v.Version == "" {
		t.Errorf("%q: %+v %v", s.Out, v, err)
	}
}

func TestConfigRedactsTheKey(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_API_KEY": "sk-secret",
		"ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com"}
	for _, format := range []output.Format{output.Table, output.JSON} {
		f, s := factorytest.NewFactory(false, env, format)
		if err := cmdtest.Exec(NewCmdConfig(f, nil)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s.Out.String()+s.ErrOut.String(), "sk-secret") || !strings.Contains(s.Out.String(), "(set, redacted)") {
			t.Errorf("-o %s: %q %q", format, s.Out, s.ErrOut)
		}
		if !strings.Contains(s.Out.String(), "agents.example.com") {
			t.Errorf("-o %s: the domain is not shown: %q", format, s.Out)
		}
	}
}

// The release build stamps these variables by their import path: a moved
// package must take goreleaser.yaml along.
func TestReleaseStampsThisPackage(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile("../../../goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"version", "commit", "date"} {
		if want := "-X github.com/abx-dev/abx/internal/cmd/meta." + v + "="; !strings.Contains(string(cfg), want) {
			t.Errorf("goreleaser.yaml does not stamp %s (want %q)", v, want)
		}
	}
}
