package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// exitCodeRaised is run-code's status when the code raised an error; abx's
// own failures that would exit 1 exit 125 instead (exitExecFailed), so that
// a script can tell "my code failed" from "abx could not run it".
const exitCodeRaised = 1

// RunCodeOptions are the inputs of `abx run-code`.
type RunCodeOptions struct {
	IO     *output.Streams
	Interp func(ctx context.Context, id string) (*codeinterp.Client, error)
	Format output.Format

	ID      string
	Request codeinterp.Request
	Timeout time.Duration
	SaveDir string
	// Stream prints JSON Lines events as they arrive instead of one
	// Execution object at the end.
	Stream bool
}

// languages the code interpreter knows (PROTOCOL.md §4), with their
// aliases.
var languages = map[string]string{
	"python": "python", "javascript": "javascript", "js": "javascript",
	"typescript": "typescript", "ts": "typescript", "r": "r", "java": "java", "bash": "bash",
}

// NewCmdRunCode builds `abx run-code` and its contexts subcommands.
func NewCmdRunCode(f *Factory, runF func(context.Context, *RunCodeOptions) error) *cobra.Command {
	opts := &RunCodeOptions{IO: f.IO, Interp: f.InterpreterClient}
	var (
		file, timeout, language string
		env                     []string
	)
	cmd := &cobra.Command{
		Use:   "run-code ID [CODE | -f FILE | -]",
		Short: "Run code in a sandbox's code interpreter",
		Long: `Run a snippet in the sandbox's code interpreter (a Jupyter kernel; Python unless
--language says otherwise) and print what it produced.

The code comes from the argument, from a file (-f FILE), or from stdin ('-' or -f -).
What it prints streams to abx's stdout and stderr as it runs; the value of its last
expression is printed on stdout. Rich results (images, HTML, charts…) are written under
--save-dir, one file each, and their paths noted on stderr; without --save-dir abx says
on stderr what it skipped.

Variables live on between runs in the same context: the language's default context
unless --context names one (see 'abx run-code contexts').

--timeout and Ctrl-C make abx stop waiting and close the request, but the code
interpreter lets the code run on, and its context runs nothing else until it ends:
restart the context to stop it ('abx run-code contexts restart').

Exit status: 0 when the code ran; 1 when it raised an error (its name, value and
traceback go to stderr); 124 when --timeout passed; 130 after Ctrl-C; 2, 3, 4 or 5 as
for every command; 125 when abx could not run it or get its results: the service or the
network failed, the output was cut off, the context was restarted or deleted meanwhile,
or a result could not be saved.

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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || len(args) > 2 {
				return argsError(cmd, len(args), []string{"ID", "[CODE]"})
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID = f.Format, args[0]
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			var code string
			if len(args) == 2 {
				code = args[1]
			}
			var err error
			if opts.Request.Code, err = readCode(cmd, opts.IO.In, code, file); err != nil {
				return err
			}
			if language != "" {
				if opts.Request.ContextID != "" {
					return usageError(cmd, "--language and --context exclude each other: a context has its language")
				}
				if opts.Request.Language, err = parseLanguage(language); err != nil {
					return err
				}
			}
			if opts.Request.EnvVars, err = parseCodeEnv(env); err != nil {
				return err
			}
			if opts.Request.ContextID == "" && opts.Request.Language == "" {
				// The default context is found by its language: the server's
				// bare default does not survive a restart of that context.
				opts.Request.Language = "python"
			}
			if cmd.Flags().Changed("timeout") {
				if opts.Timeout, err = parseTimeout("--timeout", timeout, time.Second); err != nil {
					return err
				}
			}
			if err := checkSaveDir(opts.SaveDir); err != nil {
				return err
			}
			if opts.Stream {
				opts.Format = output.JSON
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRunCode(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&file, "file", "f", "", "read the code from FILE ('-' for stdin)")
	fl.StringVarP(&language, "language", "l", "", "language of the default context to run in: python, javascript (js), typescript (ts), r, java, bash")
	fl.StringVarP(&opts.Request.ContextID, "context", "c", "", "run in this context (see 'abx run-code contexts')")
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE for this run (repeatable)")
	fl.StringVar(&timeout, "timeout", "", "stop waiting for the code after this long (default: no limit)")
	fl.StringVar(&opts.SaveDir, "save-dir", "", "write rich results (png, svg, html, …) to files in this directory")
	fl.BoolVar(&opts.Stream, "stream", false, "print JSON Lines events as they arrive (implies -o json)")
	cmd.AddCommand(newCmdContexts(f))
	cmd.Annotations = map[string]string{annotOwnStatus: "true"}
	return needs(cmd, provider.CodeInterpret)
}

// readCode takes the code from exactly one place: the argument, -f FILE,
// or stdin ('-').
func readCode(cmd *cobra.Command, stdin io.Reader, arg, file string) (string, error) {
	switch {
	case arg != "" && file != "":
		return "", usageError(cmd, "give the code once: as an argument or with -f, not both")
	case arg == "" && file == "":
		return "", usageError(cmd, "abx run-code needs code: as an argument, with -f FILE, or '-' to read stdin")
	}
	var raw []byte
	var err error
	switch src := arg + file; {
	case src == "-":
		raw, err = io.ReadAll(stdin)
	case file != "":
		raw, err = os.ReadFile(file)
	default:
		raw = []byte(arg)
	}
	if err != nil {
		return "", abxerr.New(abxerr.InvalidInput, "cannot read the code: %v", err)
	}
	if strings.TrimSpace(string(raw)) == "" {
		return "", abxerr.New(abxerr.InvalidInput, "the code is empty").
			WithHint("check the argument, file or stdin you meant to run")
	}
	return string(raw), nil
}

// parseCodeEnv reads --env for run-code. The code interpreter pastes each
// pair into the code it runs (os.environ['K'] = 'V'), so a value with a
// quote, a backslash or a line break would break that code: refused here.
func parseCodeEnv(items []string) (map[string]string, error) {
	env, err := parseKeyValues("--env", items)
	if err != nil {
		return nil, err
	}
	for k, v := range env {
		if strings.ContainsAny(k+v, "'\"\\\n\r") {
			return nil, abxerr.New(abxerr.InvalidInput, "invalid --env %s: quotes, backslashes and line breaks cannot be passed to the code interpreter", k).
				WithHint("set it in the code instead, or write it to a file with 'abx files write'")
		}
	}
	return env, nil
}

func parseLanguage(s string) (string, error) {
	if l, ok := languages[strings.ToLower(strings.TrimSpace(s))]; ok {
		return l, nil
	}
	return "", abxerr.New(abxerr.InvalidInput, "unknown --language %q", s).
		WithHint("use python, javascript (js), typescript (ts), r, java or bash")
}

// checkSaveDir refuses a --save-dir that cannot be a directory before any
// request; a missing one is made when the first result is saved.
func checkSaveDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return abxerr.New(abxerr.InvalidInput, "invalid --save-dir %q: %v", dir, err)
	case !st.IsDir():
		return abxerr.New(abxerr.InvalidInput, "invalid --save-dir %q: it is a file", dir).
			WithHint("name a directory (it is created if missing)")
	}
	return nil
}

// runCodeFailed gives abx's own failures status 125 where they would
// share status 1 with code that raised.
func runCodeFailed(err error) error {
	e := abxerr.From(err)
	if e.ExitCode() != abxerr.ExitFailure {
		return e
	}
	cp := *e
	cp.Exit = exitExecFailed
	return &cp
}

func runRunCode(ctx context.Context, opts *RunCodeOptions) error {
	c, err := opts.Interp(ctx, opts.ID)
	if err != nil {
		return runCodeFailed(err)
	}
	runCtx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	sink := newCodeSink(opts)
	err = c.Execute(runCtx, opts.Request, sink.add)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return stillRunning(abxerr.New(abxerr.Interrupted, "interrupted: abx stopped waiting, but the code may still be running"), opts)
	case runCtx.Err() != nil:
		return stillRunning(abxerr.New(abxerr.Timeout, "the code did not finish within %s: abx stopped waiting, but it may still be running", opts.Timeout), opts)
	default:
		return contextHint(runCodeFailed(err), opts.ID)
	}
	if err := sink.finish(); err != nil {
		return runCodeFailed(err)
	}
	switch {
	case sink.ended != nil:
		return &abxerr.Error{Code: abxerr.Server, Exit: exitExecFailed,
			Message: fmt.Sprintf("the code interpreter ended the run: %s: %s", sink.ended.Name, sink.ended.Value),
			Hint:    "its context was restarted or deleted meanwhile, or its kernel died; its variables may be gone"}
	case sink.saveErr != nil:
		e := *abxerr.From(sink.saveErr)
		e.Message = "some results were not saved: " + e.Message
		e.Exit = exitExecFailed
		return &e
	case sink.raised:
		return exitStatus(exitCodeRaised)
	}
	return nil
}

// stillRunning says how to stop code abx stopped waiting for. Closing the
// request does not stop it: the code interpreter lets the cell run to its
// end, and the context runs nothing else until then.
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
