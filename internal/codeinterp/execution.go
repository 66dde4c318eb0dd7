package codeinterp

import (
	"encoding/json"
	"maps"
	"slices"
)

// Result is one value the code produced: the cell's own value (the main
// result, of a trailing expression) or something it displayed. Each format
// is the representation the kernel gave; png, jpeg and pdf are base64.
type Result struct {
	IsMainResult bool                       `json:"isMainResult"`
	Text         string                     `json:"text,omitempty"`
	HTML         string                     `json:"html,omitempty"`
	Markdown     string                     `json:"markdown,omitempty"`
	SVG          string                     `json:"svg,omitempty"`
	PNG          string                     `json:"png,omitempty"`
	JPEG         string                     `json:"jpeg,omitempty"`
	PDF          string                     `json:"pdf,omitempty"`
	LaTeX        string                     `json:"latex,omitempty"`
	JSON         json.RawMessage            `json:"json,omitempty"`
	JavaScript   string                     `json:"javascript,omitempty"`
	Data         json.RawMessage            `json:"data,omitempty"`
	Chart        json.RawMessage            `json:"chart,omitempty"`
	Extra        map[string]json.RawMessage `json:"extra,omitempty"`
	// Files are where abx saved the formats (format name → path), when it
	// did: not part of the wire.
	Files map[string]string `json:"files,omitempty"`
}

// wireResult is a result line as the server words it.
type wireResult struct {
	Result
	IsMain bool `json:"is_main_result"`
}

func (w *wireResult) result(text string) Result {
	r := w.Result
	r.Text, r.IsMainResult = text, w.IsMain
	if len(r.Extra) == 0 {
		r.Extra = nil
	}
	return r
}

// Format is one representation of a result other than its text.
type Format struct {
	Name string // png, svg, html, ...
	Ext  string // the file extension it is saved with
	Data string // as sent: base64 when Base64
	// Base64 is set for the binary formats.
	Base64 bool
}

// Formats lists the rich representations of r, in a fixed order; text is
// not one of them.
func (r *Result) Formats() []Format {
	var out []Format
	add := func(name, ext, data string, b64 bool) {
		if data != "" && data != "null" {
			out = append(out, Format{Name: name, Ext: ext, Data: data, Base64: b64})
		}
	}
	add("png", "png", r.PNG, true)
	add("jpeg", "jpg", r.JPEG, true)
	add("svg", "svg", r.SVG, false)
	add("pdf", "pdf", r.PDF, true)
	add("html", "html", r.HTML, false)
	add("markdown", "md", r.Markdown, false)
	add("latex", "tex", r.LaTeX, false)
	add("json", "json", string(r.JSON), false)
	add("javascript", "js", r.JavaScript, false)
	add("chart", "chart.json", string(r.Chart), false)
	add("data", "data.json", string(r.Data), false)
	for _, k := range slices.Sorted(maps.Keys(r.Extra)) {
		add(k, "extra.json", string(r.Extra[k]), false)
	}
	return out
}

// Execution is everything one run produced, gathered from its events.
type Execution struct {
	Results        []Result   `json:"results"`
	Logs           Logs       `json:"logs"`
	Error          *ExecError `json:"error"`
	ExecutionCount int        `json:"executionCount,omitempty"`
}

// Logs are the chunks the code printed, in order.
type Logs struct {
	Stdout []string `json:"stdout"`
	Stderr []string `json:"stderr"`
}

// NewExecution returns an empty execution whose lists encode as [], not null.
func NewExecution() *Execution {
	return &Execution{Results: []Result{}, Logs: Logs{Stdout: []string{}, Stderr: []string{}}}
}

// Add gathers one event; it has Execute's callback shape.
func (x *Execution) Add(ev Event) error {
	switch {
	case ev.Stdout != nil:
		x.Logs.Stdout = append(x.Logs.Stdout, ev.Stdout.Text)
	case ev.Stderr != nil:
		x.Logs.Stderr = append(x.Logs.Stderr, ev.Stderr.Text)
	case ev.Result != nil:
		x.Results = append(x.Results, *ev.Result)
	case ev.Error != nil:
		x.Error = ev.Error
	case ev.ExecutionCount > 0:
		x.ExecutionCount = ev.ExecutionCount
	}
	return nil
}

// Text is the main result's text, or "" when the code had no value.
func (x *Execution) Text() string {
	for _, r := range x.Results {
		if r.IsMainResult {
			return r.Text
		}
	}
	return ""
}
