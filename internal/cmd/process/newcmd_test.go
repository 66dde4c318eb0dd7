package process

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
)

type execIn struct {
	ID, Cwd, User           string
	Argv                    []string
	Env                     map[string]string
	Timeout                 time.Duration
	Background, Interactive bool
}

func TestNewCmdExec(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "shell line", Argv: []string{"sb", "--", "echo hi | wc"}, Want: execIn{ID: "sb", Argv: []string{"echo hi | wc"}}},
		{Name: "argv and flags", Argv: []string{"sandbox/sb", "-w", "/tmp", "-u", "root", "-e", "A=1", "--timeout", "30s", "-d", "-i", "--", "ls", "-l"}, Want: execIn{ID: "sb", Cwd: "/tmp", User: "root", Argv: []string{"ls", "-l"}, Env: map[string]string{"A": "1"},
			Timeout: 30 * time.Second, Background: true, Interactive: true}},
		{Name: "flags after --are the command's", Argv: []string{"sb", "--", "ls", "--timeout"}, Want: execIn{ID: "sb", Argv: []string{"ls", "--timeout"}}},
		{Name: "no command", Argv: []string{"sb"}, WantErr: "needs a sandbox ID and a command"},
		{Name: "no --", Argv: []string{"sb", "ls"}, WantErr: "put -- between the sandbox ID and the command"},
		{Name: "bad id", Argv: []string{"..", "--", "ls"}, WantErr: `invalid sandbox ID ".."`},
		{Name: "bad env", Argv: []string{"sb", "-e", "A", "--", "ls"}, WantErr: `invalid --env "A"`},
		{Name: "bad timeout", Argv: []string{"sb", "--timeout", "soon", "--", "ls"}, WantErr: `invalid --timeout "soon"`},
		{Name: "a day", Argv: []string{"sb", "--timeout", "1d", "--", "ls"}, Want: execIn{ID: "sb", Argv: []string{"ls"}, Timeout: 24 * time.Hour}},
		{Name: "more than a day", Argv: []string{"sb", "--timeout", "25h", "--", "ls"}, WantErr: `invalid --timeout "25h": must be between 1s and 24h`},
		{Name: "user with colon", Argv: []string{"sb", "-u", "a:b", "--", "ls"}, WantErr: `invalid --user "a:b"`},
		{Name: "user with newline", Argv: []string{"sb", "-u", "a\nb", "--", "ls"}, WantErr: "invalid --user"},
		// "$CMD" unset: a line that runs nothing would pass for success.
		{Name: "empty command", Argv: []string{"sb", "--", ""}, WantErr: "the command is empty"},
		{Name: "blank command", Argv: []string{"sb", "--", " \t\n"}, WantErr: "the command is empty"},
		{Name: "empty program", Argv: []string{"sb", "--", "", "x"}, WantErr: "the command is empty"},
		{Name: "empty in the background", Argv: []string{"sb", "-d", "--", ""}, WantErr: "the command is empty"},
		{Name: "empty arguments are the command's", Argv: []string{"sb", "--", "printf", ""}, Want: execIn{ID: "sb", Argv: []string{"printf", ""}}},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdExec(f, func(_ context.Context, o *ExecOptions) error {
			*got = execIn{ID: o.ID, Cwd: o.Cwd, User: o.User, Argv: o.Argv, Env: o.Env, Timeout: o.Timeout,
				Background: o.Background, Interactive: o.Interactive}
			return nil
		})
	})
}

type runIn struct {
	Template string
	Argv     []string
}

func TestNewCmdRun(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "template and command", Argv: []string{"--template", "base", "--", "true"}, Want: runIn{Template: "base", Argv: []string{"true"}}},
		// One wording with abx create and the MCP tools (sandboxes.CheckTemplate).
		{Name: "no template", Argv: []string{"--", "true"}, WantErr: "the template is required"},
		{Name: "empty template", Argv: []string{"--template", "", "--", "true"}, WantErr: "the template is required"},
		{Name: "blank template", Argv: []string{"--template", " ", "--", "true"}, WantErr: "the template is required"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdRun(f, func(_ context.Context, o *RunOptions) error {
			*got = runIn{Template: o.Request.Template, Argv: o.Argv}
			return nil
		})
	})
}

type terminalIn struct {
	ID, Cwd, User string
	Argv          []string
	Env           map[string]string
	Attach        uint32
}

func TestNewCmdTerminal(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "a shell", Argv: []string{"sb"}, Want: terminalIn{ID: "sb", Argv: []string{}}},
		{Name: "a command and flags", Argv: []string{"sandbox/sb", "-w", "/var/log", "-u", "root", "-e", "TERM=vt100", "--", "python3", "-q"},
			Want: terminalIn{ID: "sb", Cwd: "/var/log", User: "root", Env: map[string]string{"TERM": "vt100"}, Argv: []string{"python3", "-q"}}},
		{Name: "attach", Argv: []string{"sb", "--attach", "42"}, Want: terminalIn{ID: "sb", Argv: []string{}, Attach: 42}},
		{Name: "no id", Argv: nil, WantErr: "abx terminal needs a sandbox ID"},
		{Name: "no --", Argv: []string{"sb", "bash"}, WantErr: "put -- between the sandbox ID and the command"},
		{Name: "attach and a command", Argv: []string{"sb", "--attach", "42", "--", "bash"}, WantErr: "--attach joins a running process: give no command"},
		{Name: "attach a word", Argv: []string{"sb", "--attach", "shell"}, WantErr: `--attach takes a process ID, a positive number, got "shell"`},
		{Name: "attach zero", Argv: []string{"sb", "--attach", "0"}, WantErr: "--attach takes a process ID"},
		{Name: "bad id", Argv: []string{"a/b"}, WantErr: "invalid sandbox ID"},
		{Name: "bad env", Argv: []string{"sb", "-e", "TERM"}, WantErr: `invalid --env "TERM"`},
		{Name: "bad user", Argv: []string{"sb", "-u", "a:b"}, WantErr: `invalid --user "a:b"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdTerminal(f, func(_ context.Context, o *TerminalOptions) error {
			*got = terminalIn{ID: o.ID, Cwd: o.Cwd, User: o.User, Argv: o.Argv, Env: o.Env, Attach: o.Attach}
			return nil
		})
	})
}

func TestNewCmdPs(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "id", Argv: []string{"sb"}, Want: "sb"},
		{Name: "sandbox/ID", Argv: []string{"sandbox/sb"}, Want: "sb"},
		{Name: "none", Argv: nil, WantErr: "ps needs ID"},
		{Name: "bad id", Argv: []string{"a/b"}, WantErr: "invalid sandbox ID"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return newCmdPsList(f, func(_ context.Context, o *PsOptions) error { *got = o.ID; return nil })
	})
}

type pidIn struct {
	ID  string
	PID uint32
	X   any
}

// pidCases are what every subcommand taking ID PID accepts and refuses.
func pidCases(want func(id string, pid uint32) any) []factorytest.ArgvCase {
	return []factorytest.ArgvCase{
		{Name: "id pid", Argv: []string{"sb", "42"}, Want: want("sb", 42)},
		{Name: "sandbox/ID", Argv: []string{"sandbox/sb", "7"}, Want: want("sb", 7)},
		{Name: "pid zero", Argv: []string{"sb", "0"}, WantErr: `invalid PID "0"`},
		{Name: "pid word", Argv: []string{"sb", "init"}, WantErr: `invalid PID "init"`},
		{Name: "pid too big", Argv: []string{"sb", "4294967296"}, WantErr: "invalid PID"},
		{Name: "bad id", Argv: []string{"", "1"}, WantErr: "invalid sandbox ID"},
	}
}

func TestNewCmdPsKill(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, append(pidCases(func(id string, pid uint32) any { return pidIn{id, pid, false} }),
		factorytest.ArgvCase{Name: "kill", Argv: []string{"sb", "1", "-s", "sigkill"}, Want: pidIn{"sb", 1, true}},
		factorytest.ArgvCase{Name: "nine", Argv: []string{"sb", "1", "--signal", "9"}, Want: pidIn{"sb", 1, true}},
		factorytest.ArgvCase{Name: "hup", Argv: []string{"sb", "1", "-s", "HUP"}, WantErr: `invalid --signal "HUP"`},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPsKill(f, func(_ context.Context, o *PsKillOptions) error { *got = pidIn{o.ID, o.PID, o.Kill}; return nil })
	})
}

func TestNewCmdPsStdin(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, append(pidCases(func(id string, pid uint32) any { return pidIn{id, pid, ""} }),
		factorytest.ArgvCase{Name: "data and close", Argv: []string{"sb", "1", "x\n", "--close"}, Want: pidIn{"sb", 1, "x\n close"}},
		factorytest.ArgvCase{Name: "too many", Argv: []string{"sb", "1", "a", "b"}, WantErr: "takes ID PID [DATA], got 4 arguments"},
		factorytest.ArgvCase{Name: "too few", Argv: []string{"sb"}, WantErr: "needs ID PID [DATA]"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPsStdin(f, func(_ context.Context, o *PsStdinOptions) error {
			x := string(o.Data)
			if o.Close {
				x += " close"
			}
			*got = pidIn{o.ID, o.PID, x}
			return nil
		})
	})
}

func TestNewCmdPsAttach(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, pidCases(func(id string, pid uint32) any { return pidIn{id, pid, nil} }),
		func(f *cmdutil.Factory, got *any) *cobra.Command {
			return NewCmdPsAttach(f, func(_ context.Context, o *PsAttachOptions) error { *got = pidIn{o.ID, o.PID, nil}; return nil })
		})
}
