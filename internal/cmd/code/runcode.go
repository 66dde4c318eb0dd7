// Package code holds `abx run-code` and its contexts subcommands: code run
// in a sandbox's code interpreter (docs/run-code.md).
package code

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// RunCodeOptions are the inputs of `abx run-code`.
type RunCodeOptions struct {
	IO *output.Streams
	sandboxInterp

	// Request is what to run: Code is the argument's, "" when the code
	// comes from File.
	Request codeinterp.Request
	// File is where the code is read from when it is not an argument: a
	// path, or "-" for stdin. It is read once the operation has checked
	// the other inputs, so that a run refused reads nothing.
	File    string
	Timeout time.Duration
	SaveDir string
	// tempDir is where the JSON output keeps large results until it
	// prints them; "" for the system's temporary directory.
	tempDir string
}

// runCodeFlags are the flags that are parsed into RunCodeOptions rather
// than bound to them.
type runCodeFlags struct {
	file, timeout string
	env           []string
}

// runCodeNames are the names of `abx run-code`, declared once: its command takes
// them, and its group's Verbs lists them.
var runCodeNames = cmdutil.Names{"run-code"}

// NewCmdRunCode builds `abx run-code` and its contexts subcommands.
func NewCmdRunCode(f *cmdutil.Factory, runF func(context.Context, *RunCodeOptions) error) *cobra.Command {
	opts := &RunCodeOptions{IO: f.IO, sandboxInterp: newSandboxInterp(f)}
	var rf runCodeFlags
	cmd := &cobra.Command{
		Use:   runCodeNames.Use("ID [CODE | -f FILE | -]"),
		Short: "Run code in a sandbox's code interpreter",
		Long: `Run a snippet in the sandbox's code interpreter (a Jupyter kernel; Python unless
--language says otherwise) and print what it produced.

The code comes from the argument, from a file (-f FILE), or from stdin ('-' or -f -).
What it prints streams to abx's stdout and stderr as it runs; the value of its last
expression is printed on stdout. Rich results (images, HTML, charts…) are written under
--save-dir, one file each, and their paths noted on stderr; without --save-dir abx says
on stderr what it skipped, and a --save-dir that received nothing is said too.

Variables live on between runs in the same context: the language's default context
unless --context names one (see 'abx run-code contexts').

--timeout and Ctrl-C make abx stop waiting and close the request, but the code
interpreter lets the code run on, and its context runs nothing else until it ends:
restart the context to stop it ('abx run-code contexts restart').

Exit status: 0 when the code ran; 1 when it raised an error (its name, value and
traceback go to stderr); 124 when --timeout passed; 130 after Ctrl-C; 125 when abx
itself failed, whatever the reason (the error keeps its code): bad usage or input, no
such sandbox or context, a refused key, no code interpreter, the service or the network
failed, the output was cut off, the context was restarted or deleted meanwhile, or a
result could not be saved.

-o json prints the Execution object at the end: {"results":[…],"logs":{"stdout":[…],
"stderr":[…]},"error":null|{"name","value","traceback"},"executionCount":N}. --stream
prints JSON Lines events as they arrive instead (see docs/json.md).`,
		Example: `  abx run-code "$id" 'sum(range(10))'
  abx run-code "$id" -f analysis.py --save-dir out/
  abx run-code "$id" - <<'EOF'
  import platform
  print(platform.python_version())
  EOF
  abx run-code "$id" --language bash 'ls /'
  abx run-code "$id" -o json 'x = 6*7; x' | jq -r '.results[0].text'`,
		Args: cmdutil.RangeArgs(1, "ID", "[CODE]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.parse(cmd, opts, args); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runRunCode)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&rf.file, "file", "f", "", "read the code from FILE ('-' for stdin)")
	fl.StringVarP(&opts.Request.Language, "language", "l", "", "language of the default context to run in: python, javascript (js), typescript (ts), r, java, bash")
	fl.StringVarP(&opts.Request.ContextID, "context", "c", "", "run in this context (see 'abx run-code contexts')")
	fl.StringArrayVarP(&rf.env, "env", "e", nil, "environment variable KEY=VALUE for this run (repeatable)")
	fl.StringVar(&rf.timeout, "timeout", "", "stop waiting for the code after this long (default: no limit)")
	fl.StringVar(&opts.SaveDir, "save-dir", "", "write rich results (png, svg, html, …) to files in this directory")
	fl.Bool("stream", false, "print JSON Lines events as they arrive (implies -o json)")
	cmdutil.AsksJSONLines(cmd, "stream")
	cmd.AddCommand(NewCmdContexts(f))
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.CompleteFlag(cmd, "language", cmdutil.Choices(sandboxes.Languages()...))
	cmdutil.PassThrough(cmd)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "code.run")
}

// parse reads argv and the flags into opts: their syntax, and where the
// code comes from. The rules of the run are the operation's.
func (rf *runCodeFlags) parse(cmd *cobra.Command, opts *RunCodeOptions, args []string) error {
	if err := opts.parse(args); err != nil {
		return err
	}
	var arg string
	if len(args) == 2 {
		arg = args[1]
	}
	var err error
	if opts.Request.Code, opts.File, err = codeFrom(cmd, arg, len(args) == 2, rf.file); err != nil {
		return err
	}
	if err := given(cmd, "context", opts.Request.ContextID, "to run in the language's default context"); err != nil {
		return err
	}
	if opts.Request.EnvVars, err = cmdutil.ParseKeyValues("--env", rf.env); err != nil {
		return err
	}
	if cmd.Flags().Changed("timeout") {
		in := sandboxes.Op("code.run").Input("timeout")
		if opts.Timeout, err = cmdutil.ParseSeconds("--timeout", rf.timeout, in, "for no limit"); err != nil {
			return err
		}
	}
	return checkSaveDir(opts.SaveDir)
}

// runRunCode runs the code and returns plain errors: the root turns them
// into exit statuses (abxerr.Exit), 125 for every failure of abx's own.
func runRunCode(ctx context.Context, opts *RunCodeOptions) error {
	sink := newCodeSink(opts)
	defer sink.close()
	code := sandboxes.Code{Request: opts.Request, Source: readCode(ctx, opts.IO.In, opts.File), Timeout: opts.Timeout, Spool: sink}
	err := opts.Sandboxes.RunCode(ctx, opts.ID, code, sink.add)
	switch {
	case errors.Is(err, sandboxes.ErrStillRunning):
		return stillRunning(abxerr.From(err), opts)
	case err != nil && !errors.Is(err, sandboxes.ErrEnded):
		return err
	}
	if ferr := sink.finish(); ferr != nil {
		return ferr
	}
	sink.noteNothingSaved()
	switch {
	case err != nil:
		return err // the interpreter ended the run: its events were shown first
	case sink.saveErr != nil:
		e := *abxerr.From(sink.saveErr)
		e.Message = "some results were not saved: " + e.Message
		return &e
	case sink.raised:
		return abxerr.CodeRaised
	}
	return nil
}

// stillRunning says how to stop code abx stopped waiting for. Closing the
// request does not stop it: the code interpreter lets the cell run to its
// end, and the context runs nothing else until then (docs/run-code.md).
func stillRunning(e *abxerr.Error, opts *RunCodeOptions) error {
	how := "'abx run-code contexts restart " + opts.ID + " " + opts.Request.ContextID + "'"
	if opts.Request.ContextID == "" {
		how = "'abx run-code contexts list " + opts.ID + "' names it; 'abx run-code contexts restart " + opts.ID + " CONTEXT'"
	}
	e.Hint = "to stop it, restart its context, which loses its variables: " + how
	return e
}
