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
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// RunCodeOptions are the inputs of `abx run-code`.
type RunCodeOptions struct {
	IO *output.Streams
	sandboxInterp

	Request codeinterp.Request
	Timeout time.Duration
	SaveDir string
	// tempDir is where the JSON output keeps large results until it
	// prints them; "" for the system's temporary directory.
	tempDir string
}

// runCodeFlags are the flags that are parsed into RunCodeOptions rather
// than bound to them.
type runCodeFlags struct {
	file, timeout, language string
	env                     []string
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
	fl.StringVarP(&rf.language, "language", "l", "", "language of the default context to run in: python, javascript (js), typescript (ts), r, java, bash")
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
	return cmdutil.Needs(cmd, provider.CodeInterpret)
}

// parse checks argv and the flags and fills opts, refusing bad input before
// anything is sent.
func (rf *runCodeFlags) parse(cmd *cobra.Command, opts *RunCodeOptions, args []string) error {
	if err := opts.parse(args); err != nil {
		return err
	}
	var code string
	if len(args) == 2 {
		code = args[1]
	}
	var err error
	if opts.Request.Code, err = readCode(cmd, opts.IO.In, code, len(args) == 2, rf.file); err != nil {
		return err
	}
	if rf.language != "" {
		if cmd.Flags().Changed("context") {
			return cmdutil.UsageError(cmd, "--language and --context exclude each other: a context has its language")
		}
		if opts.Request.Language, err = sandboxes.ParseLanguage("--language", rf.language); err != nil {
			return err
		}
	}
	if cmd.Flags().Changed("context") {
		if err := checkContextID(opts.ID, opts.Request.ContextID); err != nil {
			return err
		}
	}
	if opts.Request.EnvVars, err = parseCodeEnv(rf.env); err != nil {
		return err
	}
	if opts.Request.ContextID == "" && opts.Request.Language == "" {
		opts.Request.Language = sandboxes.DefaultLanguage
	}
	if cmd.Flags().Changed("timeout") {
		if opts.Timeout, err = cmdutil.ParseProcessTimeout("--timeout", rf.timeout); err != nil {
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
	err := opts.Sandboxes.RunCode(ctx, opts.ID, sandboxes.Code{Request: opts.Request, Timeout: opts.Timeout, Spool: sink}, sink.add)
	switch {
	case errors.Is(err, sandboxes.ErrStillRunning):
		return stillRunning(abxerr.From(err), opts)
	case err != nil && !errors.Is(err, sandboxes.ErrEnded):
		return contextHint(err, opts.ID)
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

// contextHint points a not-found error at the contexts that exist: the
// sandbox was found, so it is the context that is missing.
func contextHint(err error, id string) error {
	var e *abxerr.Error
	if errors.As(err, &e) && e.Code == abxerr.NotFound && e.Hint == "" {
		e.Hint = "run 'abx run-code contexts list " + id + "' to see its contexts"
	}
	return err
}
