package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// RunCodeArgs are run_code's arguments.
type RunCodeArgs struct {
	SandboxID      string `json:"sandbox_id" jsonschema:"the sandbox's ID (its template must have a code interpreter, e.g. code-interpreter)"`
	Code           string `json:"code" jsonschema:"the code to run, as one cell"`
	Language       string `json:"language,omitempty" jsonschema:"run in this language's default context (default python); not with context_id"`
	ContextID      string `json:"context_id,omitempty" jsonschema:"run in this context of the code interpreter; not with language"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"stop waiting after this many seconds (default 600); the code may run on until its context is restarted"`
}

// RunCodeResult is run_code's structured result.
type RunCodeResult struct {
	Stdout         string                `json:"stdout" jsonschema:"what the code printed to stdout, up to the cap"`
	Stderr         string                `json:"stderr" jsonschema:"what the code printed to stderr, up to the cap"`
	Results        []CodeResult          `json:"results" jsonschema:"the values the code produced: the cell's value and what it displayed"`
	Error          *codeinterp.ExecError `json:"error,omitempty" jsonschema:"the error the code raised (the call is then a tool error)"`
	ExecutionCount int                   `json:"executionCount,omitempty"`
	Truncated      bool                  `json:"truncated" jsonschema:"true when stdout, stderr or the results passed the cap and were cut or left out"`
}

// CodeResult is one value the code produced.
type CodeResult struct {
	IsMainResult bool     `json:"isMainResult" jsonschema:"true for the value of the cell's last expression"`
	Text         string   `json:"text,omitempty" jsonschema:"its text representation"`
	Formats      []string `json:"formats" jsonschema:"its other representations (png, jpeg, svg, html, …); png, jpeg and svg come as image content"`
}

// images are the formats run_code answers as image content.
var images = map[string]string{"png": "image/png", "jpeg": "image/jpeg", "svg": "image/svg+xml"}

func (s *server) addCodeTool(srv *mcp.Server) {
	add(s, srv, "code.run", &mcp.Tool{
		Name: "run_code",
		Description: "Run code in a sandbox's code interpreter (a Jupyter kernel; Python unless language says otherwise). " +
			"Variables live on between calls in the same context. Printed output and text results come as text, " +
			"PNG, JPEG and SVG results as images; an exception is a tool error with its traceback.",
		Annotations: &mcp.ToolAnnotations{Title: "Run code", DestructiveHint: ptr(true)},
	}, s.runCode)
}

func (s *server) runCode(ctx context.Context, call *mcp.CallToolRequest, in RunCodeArgs) (*mcp.CallToolResult, *RunCodeResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	req := codeinterp.Request{Code: in.Code, Language: in.Language, ContextID: in.ContextID}
	timeout := s.opts.ExecTimeout
	if in.TimeoutSeconds != 0 {
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	g := &codeGather{max: s.opts.MaxOutput, res: &RunCodeResult{Results: []CodeResult{}}}
	stop := heartbeat(ctx, call, s.opts.ProgressEvery, timeout, nil)
	err = s.opts.Sandboxes.RunCode(ctx, id, sandboxes.Code{Request: req, Timeout: timeout}, g.add)
	stop()
	if errors.Is(err, sandboxes.ErrStillRunning) {
		e := abxerr.From(err)
		e.Hint = "its context runs nothing else until the code ends; restarting the context stops it, and loses its variables"
		return nil, nil, s.fail(e)
	}
	if err != nil {
		return nil, nil, s.fail(err)
	}
	return g.result(), g.res, nil
}

// codeGather gathers a run's events into run_code's result, each stream
// capped at max bytes and the images at maxReadBytes in all.
type codeGather struct {
	max    int
	res    *RunCodeResult
	out    []byte
	errb   []byte
	images []mcp.Content
	// imageBytes counts the images kept.
	imageBytes int
}

func (g *codeGather) add(ev codeinterp.Event) error {
	switch {
	case ev.Stdout != nil:
		g.keep(&g.out, ev.Stdout.Text)
	case ev.Stderr != nil:
		g.keep(&g.errb, ev.Stderr.Text)
	case ev.Error != nil:
		// IPython colours its traceback for a terminal; an agent reads
		// the words, so the colour codes go (from the text and the
		// structured result alike).
		x := *ev.Error
		x.Name, x.Value, x.Traceback = human.StripANSI(x.Name), human.StripANSI(x.Value), human.StripANSI(x.Traceback)
		g.res.Error = &x
	case ev.ExecutionCount > 0:
		g.res.ExecutionCount = ev.ExecutionCount
	case ev.Result != nil:
		r := ev.Result
		cr := CodeResult{IsMainResult: r.IsMainResult, Text: r.Text, Formats: []string{}}
		if len(cr.Text) > g.max {
			cr.Text, g.res.Truncated = textOf([]byte(cr.Text[:g.max]), true), true
		}
		for _, f := range r.Formats() {
			cr.Formats = append(cr.Formats, f.Name)
			mt, ok := images[f.Name]
			if !ok {
				continue
			}
			data := []byte(f.Data)
			if f.Base64 {
				var err error
				if data, err = base64.StdEncoding.DecodeString(f.Data); err != nil {
					continue
				}
			}
			if g.imageBytes+len(data) > maxReadBytes {
				g.res.Truncated = true
				continue
			}
			g.imageBytes += len(data)
			g.images = append(g.images, &mcp.ImageContent{Data: data, MIMEType: mt})
		}
		g.res.Results = append(g.res.Results, cr)
	}
	return nil
}

func (g *codeGather) keep(to *[]byte, s string) {
	room := g.max - len(*to)
	if len(s) > room {
		g.res.Truncated = true
		s = s[:max(room, 0)]
	}
	*to = append(*to, s...)
}

// result is the content: printed output, the text results, the images,
// and for an exception its traceback, as a tool error.
func (g *codeGather) result() *mcp.CallToolResult {
	g.res.Stdout = textOf(g.out, g.res.Truncated)
	g.res.Stderr = textOf(g.errb, g.res.Truncated)
	var b strings.Builder
	if g.res.Stdout != "" {
		b.WriteString(g.res.Stdout)
		if !strings.HasSuffix(g.res.Stdout, "\n") {
			b.WriteString("\n")
		}
	}
	if g.res.Stderr != "" {
		b.WriteString("stderr:\n" + g.res.Stderr)
		if !strings.HasSuffix(g.res.Stderr, "\n") {
			b.WriteString("\n")
		}
	}
	for _, r := range g.res.Results {
		if r.Text != "" && (r.IsMainResult || !hasImage(r.Formats)) {
			b.WriteString(r.Text + "\n")
		}
	}
	if x := g.res.Error; x != nil {
		fmt.Fprintf(&b, "%s: %s\n%s", x.Name, x.Value, x.Traceback)
	}
	if g.res.Truncated {
		b.WriteString("(output truncated)\n")
	}
	out := &mcp.CallToolResult{IsError: g.res.Error != nil}
	switch t := strings.TrimRight(b.String(), "\n"); {
	case t != "":
		out.Content = append(out.Content, &mcp.TextContent{Text: t})
	case len(g.images) == 0:
		out.Content = append(out.Content, &mcp.TextContent{Text: "(no output)"})
	}
	out.Content = append(out.Content, g.images...)
	return out
}

func hasImage(formats []string) bool {
	for _, f := range formats {
		if images[f] != "" {
			return true
		}
	}
	return false
}
