package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// timeout, pause and resume change one sandbox and print what it became.

// actionResult is the JSON of timeout, pause and resume (docs/json.md).
type actionResult struct {
	SandboxID string `json:"sandboxID"`
	State     string `json:"state,omitempty"`
	Timeout   int64  `json:"timeout,omitempty"` // seconds
}

// ActionOptions are the inputs of timeout, pause and resume.
type ActionOptions struct {
	IO       *output.Streams
	Provider func() (provider.Provider, error)
	Format   output.Format

	ID      string
	Timeout time.Duration
}

// NewCmdTimeout builds `abx timeout`.
func NewCmdTimeout(f *Factory, runF func(context.Context, *ActionOptions) error) *cobra.Command {
	opts := &ActionOptions{IO: f.IO, Provider: f.Provider}
	cmd := &cobra.Command{
		Use:   "timeout ID DURATION",
		Short: "Set how long a sandbox has left to live",
		Long: `Set a sandbox's deadline to DURATION from now. This overwrites the deadline, so it can
shorten it as well as extend it. DURATION takes Go syntax (90s, 5m, 2h) or plain
seconds, up to 30 days.`,
		Example: `  abx timeout "$id" 1h
  abx timeout "$id" 600`,
		Args: exactArgs("ID", "DURATION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID = f.Format, args[0]
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			var err error
			if opts.Timeout, err = parseTimeout("DURATION", args[1], minTimeout); err != nil {
				return err
			}
			return runAction(cmd.Context(), opts, runF, action{
				do: func(ctx context.Context, p provider.Provider) error {
					return p.SetTimeout(ctx, opts.ID, opts.Timeout)
				},
				result: actionResult{SandboxID: opts.ID, Timeout: int64(opts.Timeout / time.Second)},
				note:   fmt.Sprintf("sandbox %s now ends in %s", opts.ID, output.Duration(opts.Timeout)),
			})
		},
	}
	return needs(cmd, provider.SandboxTimeout)
}

// NewCmdPause builds `abx pause`.
func NewCmdPause(f *Factory, runF func(context.Context, *ActionOptions) error) *cobra.Command {
	opts := &ActionOptions{IO: f.IO, Provider: f.Provider}
	cmd := &cobra.Command{
		Use:   "pause ID",
		Short: "Pause a sandbox, keeping its memory and files",
		Long: `Pause a sandbox. Its processes stop and its state is kept until it is resumed
('abx resume' or 'abx connect'). Pausing a paused sandbox succeeds.`,
		Example: `  abx pause "$id"`,
		Args:    exactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID = f.Format, args[0]
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			return runAction(cmd.Context(), opts, runF, action{
				do: func(ctx context.Context, p provider.Provider) error {
					return p.Pause(ctx, opts.ID)
				},
				result: actionResult{SandboxID: opts.ID, State: "paused"},
				note:   fmt.Sprintf("sandbox %s paused", opts.ID),
			})
		},
	}
	return needs(cmd, provider.SandboxPause)
}

// NewCmdResume builds `abx resume`.
func NewCmdResume(f *Factory, runF func(context.Context, *ActionOptions) error) *cobra.Command {
	opts := &ActionOptions{IO: f.IO, Provider: f.Provider}
	var timeout string
	cmd := &cobra.Command{
		Use:   "resume ID [--timeout D]",
		Short: "Resume a paused sandbox",
		Long: `Resume a paused sandbox, which then lives for --timeout (default 5m). Resuming a
running sandbox is refused by the server; 'abx connect' accepts both.`,
		Example: `  abx resume "$id" --timeout 30m`,
		Args:    exactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID = f.Format, args[0]
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			if cmd.Flags().Changed("timeout") {
				var err error
				if opts.Timeout, err = parseTimeout("--timeout", timeout, minTimeout); err != nil {
					return err
				}
			}
			return runAction(cmd.Context(), opts, runF, action{
				do: func(ctx context.Context, p provider.Provider) error {
					return p.Resume(ctx, opts.ID, opts.Timeout)
				},
				result: actionResult{SandboxID: opts.ID, State: "running"},
				note:   fmt.Sprintf("sandbox %s resumed", opts.ID),
			})
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", "lifetime after resuming (default 5m)")
	return needs(cmd, provider.SandboxPause)
}

// action is one change to a sandbox: the call, and what to print once it
// succeeded.
type action struct {
	do     func(context.Context, provider.Provider) error
	result actionResult
	note   string
}

// runAction opens the provider, makes the change and prints its result.
func runAction(ctx context.Context, opts *ActionOptions, runF func(context.Context, *ActionOptions) error, a action) error {
	if runF != nil {
		return runF(ctx, opts)
	}
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	if err := a.do(ctx, p); err != nil {
		return err
	}
	note(opts.IO, opts.Format, "%s", a.note)
	switch opts.Format {
	case output.JSON:
		return output.WriteJSON(opts.IO.Out, a.result)
	case output.Name:
		_, err := fmt.Fprintln(opts.IO.Out, "sandbox/"+a.result.SandboxID)
		return err
	}
	return nil
}
