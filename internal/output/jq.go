package output

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/itchyny/gojq"

	"github.com/abx-dev/abx/internal/abxerr"
)

// JQ is a compiled --jq expression, applied to abx's own JSON output as gh
// does: no jq install needed, strings printed raw.
type JQ struct {
	code *gojq.Code
}

// CompileJQ checks expr before anything is sent: a bad one is bad input.
func CompileJQ(expr string) (*JQ, error) {
	q, err := gojq.Parse(expr)
	if err == nil {
		var code *gojq.Code
		if code, err = gojq.Compile(q); err == nil {
			return &JQ{code: code}, nil
		}
	}
	return nil, abxerr.New(abxerr.InvalidInput, "invalid --jq expression %q: %v", expr, err).
		WithHint("test it with: abx ... -o json | jq '<expression>'")
}

// JQWriter takes the JSON a command writes and writes what the expression
// makes of each value, as soon as the value is complete, so JSON Lines
// streams stay streams.
type JQWriter struct {
	pw   *io.PipeWriter
	done chan error
}

// Filter returns a writer applying the expression to out: strings raw, one
// a line, as jq -r prints them; other values as JSON, one a line. On a
// terminal (tty) the JSON is indented, and a string's controls are escaped
// as a table's are (line breaks and tabs kept): a string selected from a
// server's data could otherwise drive the terminal (docs/output.md).
func (j *JQ) Filter(ctx context.Context, out io.Writer, tty bool) *JQWriter {
	pr, pw := io.Pipe()
	w := &JQWriter{pw: pw, done: make(chan error, 1)}
	go func() {
		err := j.run(ctx, pr, out, tty)
		if Closed(err) {
			// Nobody reads the output: the command writing it is told so,
			// as it would be without the filter.
			pr.CloseWithError(err)
		}
		// Whatever comes after a failure is read and dropped, so that the
		// command writing it does not block.
		_, _ = io.Copy(io.Discard, pr)
		w.done <- err
	}()
	return w
}

func (w *JQWriter) Write(b []byte) (int, error) { return w.pw.Write(b) }

// Close ends the input and returns the first error of the filter. An
// expression still running when ctx ends (Ctrl-C) is abandoned.
func (w *JQWriter) Close(ctx context.Context) error {
	_ = w.pw.Close()
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
	}
	// Interrupted (a server's Ctrl-C is its normal end): the filter has
	// its whole input, and an expression still running stops with ctx;
	// give it a moment to say how it ended.
	select {
	case err := <-w.done:
		return err
	case <-time.After(time.Second):
		return abxerr.New(abxerr.Interrupted, "interrupted")
	}
}

func (j *JQ) run(ctx context.Context, in io.Reader, out io.Writer, tty bool) error {
	dec := json.NewDecoder(in)
	dec.UseNumber()
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return abxerr.New(abxerr.FilterFailed, "--jq: the output is not JSON: %v", err)
		}
		iter := j.code.RunWithContext(ctx, jqValue(v))
		for {
			r, ok := iter.Next()
			if !ok {
				break
			}
			if err, isErr := r.(error); isErr {
				return abxerr.New(abxerr.FilterFailed, "--jq: %v", err)
			}
			if err := writeJQResult(out, r, tty); err != nil {
				if err := closed(err); Closed(err) {
					return err
				}
				return abxerr.New(abxerr.FilterFailed, "--jq: %v", err)
			}
		}
	}
}

func writeJQResult(out io.Writer, r any, tty bool) error {
	if s, ok := r.(string); ok {
		if tty {
			s = escapeKeepLayout(s)
		}
		_, err := fmt.Fprintln(out, s)
		return err
	}
	// gojq's encoder, as jq's: no HTML escaping, jq's words for infinities;
	// the controls it leaves raw are escaped as in abx's own JSON.
	b, err := gojq.Marshal(r)
	if err != nil {
		return err
	}
	b = escapeJSONControls(b)
	if tty {
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "", "  "); err != nil {
			return err
		}
		b = ind.Bytes()
	}
	_, err = fmt.Fprintln(out, string(b))
	return err
}

// jqValue turns decoded JSON numbers into the int or float64 gojq works
// with, keeping integers exact.
func jqValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = jqValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = jqValue(x[k])
		}
	}
	return v
}
