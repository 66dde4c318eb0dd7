//go:build unix

package code

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
)

// TestFakeContexts goes through a context's life in the fake code
// interpreter: create, list, run in it, restart, delete, and what is
// printed in each format.
func TestFakeContexts(t *testing.T) {
	t.Parallel()
	fk := newFake(t)

	f, streams, ctx := fk.contexts(t, output.Table)
	err := runContextsCreate(ctx, &ContextsCreateOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, Cwd: "~"})
	cx := strings.TrimSuffix(streams.Out.String(), "\n")
	if err != nil || cx == "" || strings.Contains(cx, "\n") {
		t.Fatalf("create: %v, stdout %q: want the ID alone", err, streams.Out.String())
	}
	if want := "context " + cx + " created (python, ~)\n"; streams.ErrOut.String() != want {
		t.Errorf("create: stderr %q, want %q", streams.ErrOut.String(), want)
	}

	f, streams, ctx = fk.contexts(t, output.Name)
	if err := runContextsList(ctx, &ContextsListOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id}); err != nil {
		t.Fatal(err)
	}
	if names := strings.Fields(streams.Out.String()); len(names) != 2 || !slices.Contains(names, cx) {
		t.Errorf("list -o name: %q, want the default context and %s, bare", streams.Out.String(), cx)
	}
	f, streams, ctx = fk.contexts(t, output.JSON)
	if err := runContextsList(ctx, &ContextsListOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id}); err != nil {
		t.Fatal(err)
	}
	var list []codeinterp.Context
	if err := json.Unmarshal(streams.Out.Bytes(), &list); err != nil ||
		!slices.Contains(list, codeinterp.Context{ID: cx, Language: "python", Cwd: "~"}) {
		t.Errorf("list -o json: %v\n%s", err, streams.Out.String())
	}
	f, streams, ctx = fk.contexts(t, output.Table)
	if err := runContextsList(ctx, &ContextsListOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(streams.Out.String(), cx+"\tpython\t~\n") {
		t.Errorf("list piped: %q", streams.Out.String())
	}

	// A context has variables of its own.
	if _, err := fk.run(t, output.Table, codeinterp.Request{Code: "y = 1"}); err != nil {
		t.Fatal(err)
	}
	out, err := fk.run(t, output.Table, codeinterp.Request{Code: "y", ContextID: cx})
	if exitOf(err) != 1 || !strings.Contains(out.ErrOut.String(), "NameError") {
		t.Errorf("the context saw the default one's y: exit %d, stderr %q", exitOf(err), out.ErrOut.String())
	}

	f, streams, ctx = fk.contexts(t, output.Name)
	err = runContextsRestart(ctx, &ContextsRestartOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, ContextID: cx})
	if err != nil || streams.Out.String() != cx+"\n" || streams.ErrOut.String() != "" {
		t.Errorf("restart -o name: %v, stdout %q (want the bare ID), stderr %q", err, streams.Out.String(), streams.ErrOut.String())
	}

	f, streams, ctx = fk.contexts(t, output.JSON)
	err = runContextsDelete(ctx, &ContextsDeleteOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, ContextID: cx})
	if want := "{\n  \"id\": \"" + cx + "\",\n  \"action\": \"deleted\"\n}\n"; err != nil || streams.Out.String() != want {
		t.Errorf("delete -o json: %v, %s, want %s", err, streams.Out.String(), want)
	}

	// Gone: not found (exit 3, these are not pass-through), with a hint.
	f, streams, ctx = fk.contexts(t, output.Table)
	err = runContextsRestart(ctx, &ContextsRestartOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, ContextID: cx})
	if e := abxerr.From(err); abxerr.Exit(err, false) != abxerr.ExitNotFound || !strings.Contains(e.Hint, "abx run-code contexts list "+fk.id) {
		t.Errorf("restart of a deleted context: exit %d, %q (hint %q)", abxerr.Exit(err, false), e.Message, e.Hint)
	}
	if streams.Out.String() != "" || streams.ErrOut.String() != "" {
		t.Errorf("a failure printed %q / %q: the root prints the error", streams.Out.String(), streams.ErrOut.String())
	}
}

// TestFakeContextsNotes: restart and delete say what they did on stderr
// for people, and print nothing on stdout.
func TestFakeContextsNotes(t *testing.T) {
	t.Parallel()
	fk := newFake(t)
	f, streams, ctx := fk.contexts(t, output.JSON)
	if err := runContextsCreate(ctx, &ContextsCreateOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id}); err != nil {
		t.Fatal(err)
	}
	var x codeinterp.Context
	if err := json.Unmarshal(streams.Out.Bytes(), &x); err != nil || x.ID == "" || x.Language != "python" || streams.ErrOut.String() != "" {
		t.Fatalf("create -o json: %v\n%s\nstderr %q", err, streams.Out.String(), streams.ErrOut.String())
	}
	f, streams, ctx = fk.contexts(t, output.Table)
	if err := runContextsRestart(ctx, &ContextsRestartOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, ContextID: x.ID}); err != nil {
		t.Fatal(err)
	}
	if streams.Out.String() != "" || streams.ErrOut.String() != "context "+x.ID+" restarted\n" {
		t.Errorf("restart: stdout %q, stderr %q", streams.Out.String(), streams.ErrOut.String())
	}
	f, streams, ctx = fk.contexts(t, output.Wide)
	if err := runContextsDelete(ctx, &ContextsDeleteOptions{Printer: f.Printer, Interp: f.InterpreterClient, ID: fk.id, ContextID: x.ID}); err != nil {
		t.Fatal(err)
	}
	if streams.Out.String() != "" || streams.ErrOut.String() != "context "+x.ID+" deleted\n" {
		t.Errorf("delete: stdout %q, stderr %q", streams.Out.String(), streams.ErrOut.String())
	}
}
