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
		{Name: "fraction of a second", Argv: []string{"sb", "--timeout", "1.5", "--", "ls"}, WantErr: `invalid --timeout "1.5": the server counts whole seconds`},
		// Bounds, users and empty commands are the operation's to refuse
		// (TestExecRefusesBeforeAnyRequest): the verb reads syntax.
		{Name: "more than a day", Argv: []string{"sb", "--timeout", "25h", "--", "ls"}, Want: execIn{ID: "sb", Argv: []string{"ls"}, Timeout: 25 * time.Hour}},
		{Name: "user as typed", Argv: []string{"sb", "-u", "a:b", "--", "ls"}, Want: execIn{ID: "sb", User: "a:b", Argv: []string{"ls"}}},
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
	Template       string
	Argv           []string
	Lease, Timeout time.Duration
}

func TestNewCmdRun(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "template and command", Argv: []string{"--template", "base", "--", "true"}, Want: runIn{Template: "base", Argv: []string{"true"}, Lease: time.Minute}},
		{Name: "lease and timeout", Argv: []string{"--template", "base", "--lease", "2m", "--timeout", "1h", "--", "true"},
			Want: runIn{Template: "base", Argv: []string{"true"}, Lease: 2 * time.Minute, Timeout: time.Hour}},
		// The template, the command and the bounds are the operation's to
		// refuse, in one wording with the MCP tool (TestRunRefusesAsTheMCPToolDoes).
		{Name: "no template", Argv: []string{"--", "true"}, Want: runIn{Argv: []string{"true"}, Lease: time.Minute}},
		{Name: "a short lease", Argv: []string{"--template", "base", "--lease", "10s", "--", "true"}, Want: runIn{Template: "base", Argv: []string{"true"}, Lease: 10 * time.Second}},
		{Name: "a lease that is no duration", Argv: []string{"--template", "base", "--lease", "soon", "--", "true"}, WantErr: `invalid --lease "soon": not a duration`},
		{Name: "keep-for without keep", Argv: []string{"--template", "base", "--keep-for", "1m", "--", "true"}, WantErr: "--keep-for goes with --keep"},
		{Name: "a get without a colon", Argv: []string{"--template", "base", "--get", "justapath", "--", "true"}, WantErr: `invalid --get "justapath": want REMOTE:LOCAL`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdRun(f, func(_ context.Context, o *RunOptions) error {
			*got = runIn{Template: o.Request.Template, Argv: o.Argv, Lease: o.Lease, Timeout: o.Timeout}
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
		// Which numbers a process has is the operation's to say.
		{Name: "pid zero", Argv: []string{"sb", "0"}, Want: want("sb", 0)},
		{Name: "pid word", Argv: []string{"sb", "init"}, WantErr: `invalid PID "init"`},
		{Name: "pid too big", Argv: []string{"sb", "4294967296"}, WantErr: "invalid PID"},
		{Name: "bad id", Argv: []string{"", "1"}, WantErr: "invalid sandbox ID"},
	}
}

func TestNewCmdPsKill(t *testing.T) {
	t.Parallel()
	// The signal is the operation's to read (TERM, KILL, SIGKILL, 9...).
	factorytest.Parse(t, append(pidCases(func(id string, pid uint32) any { return pidIn{id, pid, "TERM"} }),
		factorytest.ArgvCase{Name: "kill", Argv: []string{"sb", "1", "-s", "sigkill"}, Want: pidIn{"sb", 1, "sigkill"}},
		factorytest.ArgvCase{Name: "nine", Argv: []string{"sb", "1", "--signal", "9"}, Want: pidIn{"sb", 1, "9"}},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPsKill(f, func(_ context.Context, o *PsKillOptions) error { *got = pidIn{o.ID, o.PID, o.Signal}; return nil })
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
