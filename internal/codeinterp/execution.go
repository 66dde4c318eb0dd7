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
	// Spooled are the formats whose values went to the Spool of
	// ExecuteSpooled instead of these fields: not part of the wire.
	Spooled []string `json:"-"`
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
	// Spooled is set when the value went to a Spool: Data is empty.
	Spooled bool
}

// formats are the formats of a result with a field of their own, in the
// order Formats lists them.
var formats = []Format{
	{Name: "png", Ext: "png", Base64: true},
	{Name: "jpeg", Ext: "jpg", Base64: true},
	{Name: "svg", Ext: "svg"},
	{Name: "pdf", Ext: "pdf", Base64: true},
	{Name: "html", Ext: "html"},
	{Name: "markdown", Ext: "md"},
	{Name: "latex", Ext: "tex"},
	{Name: "json", Ext: "json"},
	{Name: "javascript", Ext: "js"},
	{Name: "chart", Ext: "chart.json"},
	{Name: "data", Ext: "data.json"},
}

// formatNamed is the format of a field.
func formatNamed(name string) Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return Format{Name: name, Ext: name}
}

// str is where the value of a format sent as a JSON string is held; nil
// for the others, which are JSON values.
func (r *Result) str(name string) *string {
	switch name {
	case "png":
		return &r.PNG
	case "jpeg":
		return &r.JPEG
	case "svg":
		return &r.SVG
	case "pdf":
		return &r.PDF
	case "html":
		return &r.HTML
	case "markdown":
		return &r.Markdown
	case "latex":
		return &r.LaTeX
	case "javascript":
		return &r.JavaScript
	}
	return nil
}

// SetFormat puts the value of a spooled format back into r.
func (r *Result) SetFormat(name, data string) {
	if p := r.str(name); p != nil {
		*p = data
		r.Spooled = slices.DeleteFunc(slices.Clone(r.Spooled), func(s string) bool { return s == name })
		if len(r.Spooled) == 0 {
			r.Spooled = nil
		}
	}
}

// Formats lists the rich representations of r, in a fixed order; text is
// not one of them.
func (r *Result) Formats() []Format {
	var out []Format
	add := func(f Format, data string) {
		if data != "" && data != "null" {
			f.Data = data
			out = append(out, f)
		}
	}
	for _, f := range formats {
		switch p := r.str(f.Name); {
		case p != nil && slices.Contains(r.Spooled, f.Name):
			f.Spooled = true
			out = append(out, f)
		case p != nil:
			add(f, *p)
		case f.Name == "json":
			add(f, string(r.JSON))
		case f.Name == "chart":
			add(f, string(r.Chart))
		case f.Name == "data":
			add(f, string(r.Data))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Extra)) {
		add(Format{Name: k, Ext: "extra.json"}, string(r.Extra[k]))
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
