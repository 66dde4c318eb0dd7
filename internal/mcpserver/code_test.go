package mcpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// IPython colours a traceback for a terminal; an agent reads text, so the
// colour codes are taken out of the tool error and of the structured
// result, and the words stay.
func TestRunCodeTracebackHasNoColourCodes(t *testing.T) {
	t.Parallel()
	g := &codeGather{max: 1 << 10, res: &RunCodeResult{Results: []CodeResult{}}}
	tb := "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n" +
		"\x1b[0;31mZeroDivisionError\x1b[0m                         Traceback (most recent call last)\n" +
		"Cell \x1b[0;32mIn[1], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m \x1b[38;5;241m1\x1b[39m \x1b[38;5;241m/\x1b[39m \x1b[38;5;241m0\x1b[39m\n" +
		"\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"
	_ = g.add(codeinterp.Event{Error: &codeinterp.ExecError{Name: "ZeroDivisionError", Value: "division by zero", Traceback: tb}})
	res := g.result()
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || strings.Contains(text, "\x1b") || !strings.Contains(text, "----> 1 1 / 0") || !strings.Contains(text, "ZeroDivisionError: division by zero") {
		t.Errorf("tool error %q", text)
	}
	if strings.Contains(g.res.Error.Traceback, "\x1b") || !strings.Contains(g.res.Error.Traceback, "Traceback (most recent call last)") {
		t.Errorf("structured traceback %q", g.res.Error.Traceback)
	}
}

// run_code's schema shows the catalogue's bounds: its languages (with
// their aliases) and its time limit; context_id is the operation's
// context.
func TestRunCodeSchemaShowsTheCatalogue(t *testing.T) {
	t.Parallel()
	s := &server{shown: map[string]*jsonschema.Schema{}}
	s.addCodeTool(mcp.NewServer(&mcp.Implementation{Name: "test"}, nil))
	shown := s.shown["run_code"]
	if shown == nil {
		t.Fatal("run_code is not offered")
	}
	lang, timeout := shown.Properties["language"], shown.Properties["timeout_seconds"]
	if !slices.Contains(lang.Enum, any("python")) || !slices.Contains(lang.Enum, any("js")) {
		t.Errorf("language's enum %v", lang.Enum)
	}
	if timeout.Minimum == nil || *timeout.Minimum != 1 || timeout.Maximum == nil || *timeout.Maximum != 86400 {
		t.Errorf("timeout_seconds %v to %v", timeout.Minimum, timeout.Maximum)
	}
	if in := argument(sandboxes.Op("code.run"), "context_id"); in == nil || in.Name != "context" {
		t.Errorf("context_id is the input %+v", in)
	}
}
