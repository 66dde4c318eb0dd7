package mcpserver

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// RunArgs are sandbox_run's arguments.
type RunArgs struct {
	Template       string            `json:"template" jsonschema:"the template to start from, e.g. base or code-interpreter"`
	Command        string            `json:"command" jsonschema:"a shell line, run by bash -l -c; stdin is /dev/null"`
	Files          map[string]string `json:"files,omitempty" jsonschema:"files to write before the command: path to text content (relative paths are under the user's home)"`
	Collect        []string          `json:"collect,omitempty" jsonschema:"files to read after the command, also when it failed: their text comes back in files (each capped)"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"working directory (default: the user's home)"`
	Envs           map[string]string `json:"envs,omitempty" jsonschema:"environment variables for the sandbox's processes"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" jsonschema:"bound the job, from its start to the command's end, to this many seconds: the command is killed then (default 600)"`
}

// RunResult is sandbox_run's structured result.
type RunResult struct {
	SandboxID string            `json:"sandboxID" jsonschema:"the sandbox the job ran in, killed since"`
	ExitCode  int               `json:"exitCode" jsonschema:"the command's exit status, 128+n when signal n ended it"`
	Status    string            `json:"status" jsonschema:"how the command ended, in envd's words"`
	Stdout    string            `json:"stdout" jsonschema:"what the command wrote to stdout, up to the cap"`
	Stderr    string            `json:"stderr" jsonschema:"what the command wrote to stderr, up to the cap"`
	Truncated bool              `json:"truncated" jsonschema:"true when stdout, stderr or a collected file passed the cap and was cut"`
	Files     map[string]string `json:"files" jsonschema:"each collected file's text, by the path asked for"`
	Missing   []string          `json:"missing,omitempty" jsonschema:"collected paths that could not be read, with why"`
	Killed    bool              `json:"killed" jsonschema:"true when the sandbox was killed afterwards (else its lease ends it within 60 s)"`
}

func (s *server) addRunTool(srv *mcp.Server) {
	add(s, srv, "sandbox.run", &mcp.Tool{
		Name: "sandbox_run",
		Description: "Run one job in a throwaway sandbox, in one call: create it from template, write files, run command, " +
			"read the collect files (also when the command failed), kill it. Its exit code, stdout, stderr and the files come " +
			"back. The sandbox lives on a 60 s lease renewed while the call runs: if the server dies, it ends by itself.",
		Annotations: &mcp.ToolAnnotations{Title: "Run a job in a throwaway sandbox", DestructiveHint: ptr(false)},
	}, s.run)
}

func (s *server) run(ctx context.Context, req *mcp.CallToolRequest, in RunArgs) (*mcp.CallToolResult, *RunResult, error) {
	if err := s.opts.Ready(); err != nil {
		return nil, nil, s.fail(err)
	}
	// files is the tool's own argument, read before anything is made as
	// the command line reads its --put.
	for p := range in.Files {
		if p == "" || strings.ContainsRune(p, 0) {
			return nil, nil, s.fail(abxerr.New(abxerr.InvalidInput, "invalid path %q in files", p))
		}
	}
	res := &RunResult{Files: map[string]string{}}
	out := &capture{max: s.opts.MaxOutput}
	// Signals is a channel of no signal: the host's cancellation, through
	// ctx, is the only stop.
	job := sandboxes.Job{Sandbox: provider.CreateRequest{Template: in.Template, Env: in.Envs},
		Timeout: time.Duration(in.TimeoutSeconds) * time.Second, Sink: out, Signals: make(chan os.Signal),
		Command: sandboxes.Command{Argv: []string{in.Command}, Cwd: in.Cwd},
		Created: func(sb *provider.Sandbox) error {
			res.SandboxID = sb.SandboxID
			return nil
		},
		Ended: func(x *sandboxes.Execution, _ error) error {
			if x != nil && x.Exit != nil {
				res.ExitCode, res.Status = x.Exit.Code, x.Exit.Status
			}
			res.Stdout, res.Stderr, res.Truncated = out.result()
			return nil
		},
	}
	if job.Timeout == 0 {
		job.Timeout = s.opts.ExecTimeout
	}
	if len(in.Files) > 0 {
		job.Put = func(ctx context.Context, _ string, c *envd.Client) error { return putFiles(ctx, c, in.Files) }
	}
	if len(in.Collect) > 0 {
		job.Get = func(ctx context.Context, _ string, c *envd.Client) { s.collect(ctx, c, in.Collect, res) }
	}
	stop := heartbeat(ctx, req, s.opts.ProgressEvery, job.Timeout, out.status)
	ran, err := s.opts.Sandboxes.Run(ctx, job)
	stop()
	if ran.End != nil && ran.End.Err == nil {
		res.Killed = true
	}
	if err != nil {
		return nil, nil, s.fail(out.annotate(err))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: runText(res, s.opts.MaxOutput)}}}, res, nil
}

// putFiles writes the files a job is given, path by path in order.
func putFiles(ctx context.Context, c *envd.Client, files map[string]string) error {
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := c.Write(ctx, p, strings.NewReader(files[p])); err != nil {
			return err
		}
	}
	return nil
}

// collect reads the collect files of a job into res: each capped, as
// text; what it could not read is said in res.Missing.
func (s *server) collect(ctx context.Context, c *envd.Client, paths []string, res *RunResult) {
	for _, p := range paths {
		data, cut, err := readCapped(s.opts.MaxOutput, func(w io.Writer) (int64, error) { return c.Read(ctx, p, w) })
		if err != nil {
			// envd's error names the path already; another (the
			// network's) does not.
			msg := abxerr.From(err).Message
			if !strings.HasPrefix(msg, p+": ") {
				msg = p + ": " + msg
			}
			res.Missing = append(res.Missing, msg)
			continue
		}
		res.Truncated = res.Truncated || cut
		if !isText(data, cut) {
			res.Missing = append(res.Missing, p+": not text (read it with files_read from a sandbox of your own)")
			continue
		}
		res.Files[p] = string(data)
	}
}

// runText is the result for hosts that show text only.
func runText(r *RunResult, limit int) string {
	var b strings.Builder
	b.WriteString(execText(&ExecResult{ExitCode: r.ExitCode, Stdout: r.Stdout, Stderr: r.Stderr, Truncated: r.Truncated}, limit))
	for _, p := range slices.Sorted(maps.Keys(r.Files)) {
		fmt.Fprintf(&b, "\nfile %s:\n%s", p, r.Files[p])
	}
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "\nnot collected: %s", m)
	}
	fmt.Fprintf(&b, "\nsandbox %s ", r.SandboxID)
	if r.Killed {
		b.WriteString("killed")
	} else {
		b.WriteString("left to its lease")
	}
	return b.String()
}
