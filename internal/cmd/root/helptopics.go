package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/provider"
)

// Help topics are commands without a Run: cobra lists them under
// "Additional help topics" and 'abx help TOPIC' prints their text. The
// text is also the body of their reference page and man page, so blocks
// meant to keep their layout (tables, lists) are indented four spaces after
// a blank line, which Markdown and man both render as preformatted.
//
// A topic's text is built when the topic is shown, not with the tree:
// every run builds the tree, few read a topic.

const annotTopic = "abx/topic"

// topicShort is each topic's one-line summary, by name.
var topicShort = map[string]string{
	"environment": "Environment variables abx reads",
	"exit-codes":  "What abx's exit status means",
	"formatting":  "Output formats: tables, JSON, names, and --jq",
}

// helpTopics are the topics, as verbs of no group.
func helpTopics() []cmdutil.Verb {
	var topics []cmdutil.Verb
	for _, name := range []string{"environment", "exit-codes", "formatting"} {
		topics = append(topics, cmdutil.Verb{Names: []string{name},
			Build: func(f *cmdutil.Factory) *cobra.Command { return newHelpTopic(f, name) }})
	}
	return topics
}

// newHelpTopic builds a topic: environment, exit-codes or formatting.
func newHelpTopic(f *cmdutil.Factory, name string) *cobra.Command {
	t := &cobra.Command{Use: name, Short: topicShort[name], Annotations: map[string]string{annotTopic: "true"}}
	t.SetHelpFunc(func(c *cobra.Command, args []string) {
		expandTopic(c, f)
		c.Parent().HelpFunc()(c, args)
	})
	return t
}

// ExpandHelpTopics fills in the text of the tree's help topics, for what
// reads it without showing a topic (the reference pages).
func ExpandHelpTopics(tree *cobra.Command, f *cmdutil.Factory) {
	for _, c := range tree.Commands() {
		expandTopic(c, f)
	}
}

func expandTopic(c *cobra.Command, f *cmdutil.Factory) {
	if c.Annotations[annotTopic] == "" || c.Long != "" {
		return
	}
	switch c.Name() {
	case "environment":
		c.Long = environmentHelp(f.Registry)
	case "exit-codes":
		c.Long = exitCodesHelp()
	case "formatting":
		c.Long = formattingHelp
	}
}

// environmentHelp lists every variable abx reads. The providers' settings
// come from their descriptors, so the list follows the code.
func environmentHelp(r *provider.Registry) string {
	var b strings.Builder
	b.WriteString(`abx reads the environment variables below. A flag on the command line wins over its
variable, and a variable wins over the default; an empty variable counts as unset.
Secrets are not printed: 'abx config' says only whether they are set, and --debug
redacts them ('abx emulator env' is the exception: it prints the emulator's own key).

Which provider to use:

    ABX_PROVIDER
        the provider, as --provider does: ` + strings.Join(r.Names(), ", ") + `
`)
	for _, d := range r.All() {
		fmt.Fprintf(&b, "\nSettings of %s:\n\n", d.Name)
		for _, s := range d.Settings {
			fmt.Fprintf(&b, "    %s\n%s", s.Env, wrapIndented(settingSummary(s), "        ", 76))
		}
	}
	b.WriteString(`
Colour (docs/output.md):

    NO_COLOR
        any non-empty value turns colour off, as --no-color does
    TERM
        dumb turns colour off

Network, as every Go program reads them:

    HTTPS_PROXY, HTTP_PROXY (or https_proxy, http_proxy)
        the proxy for https and http requests; secret when its URL carries
        a password
    NO_PROXY (or no_proxy)
        comma-separated hosts, domains and CIDR ranges reached directly
    SSL_CERT_FILE, SSL_CERT_DIR
        a PEM file, and directories, of CA certificates trusted instead of
        the system's: how a private CA is added (on Unix but macOS)

Shell completion (docs/completion.md):

    ABX_COMPLETION_DESCRIPTIONS
        false leaves out the descriptions (template, state) beside IDs
    ABX_ACTIVE_HELP
        0 turns off the hints some shells show while completing

The emulator (docs/emulator.md):

    XDG_STATE_HOME
        'abx emulator start' and 'abx emulator env' keep their state in
        $XDG_STATE_HOME/abx/emulator, or in ~/.local/state/abx/emulator when
        it is unset or not an absolute path; --state-dir overrides both
    HOME
        where ~/.local/state is, when XDG_STATE_HOME does not say
    PATH
        the emulator's sandboxes run commands with abx's PATH;
        'abx emulator exec' puts the running abx first on its command's PATH

'abx emulator env' prints, and 'abx emulator exec' sets, ABX_PROVIDER and the
alicloud-container variables that point abx at the emulator, its API key included.
`)
	return b.String()
}

// settingSummary is one line about a setting: its flag, default, secrecy
// and usage.
func settingSummary(s provider.Setting) string {
	parts := []string{"--" + s.Flag}
	if s.Default != "" {
		parts = append(parts, "default "+s.Default)
	}
	if s.Secret {
		parts = append(parts, "secret")
	}
	if s.FileOf != "" {
		parts = append(parts, "the file holds a secret")
	}
	return strings.Join(parts, ", ") + ": " + s.Usage
}

// wrapIndented breaks text into lines of at most width columns, each
// starting with indent.
func wrapIndented(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// exitCodesHelp is the table of docs/exit-codes.md, from the same rows
// (abxerr.StatusTable, PassThroughTable), so that a new code shows up with
// its status in both.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString(`abx's exit status says what happened, so a script can branch on it without reading
messages. The error itself is printed once, on stderr: one line, or one JSON object
with -o json (docs/errors.md). Each status is listed with the error codes that exit
with it:

`)
	for _, r := range abxerr.StatusTable() {
		writeStatusRow(&b, r)
		if len(r.Codes) > 0 {
			codes := make([]string, len(r.Codes))
			for i, c := range r.Codes {
				codes[i] = string(c)
			}
			b.WriteString(wrapIndented(strings.Join(codes, " "), "          ", 80))
		}
	}
	b.WriteString(`
A request the server refused (400, 405, 409) exits 1, not 2: status 2 means nothing
left the machine. 'abx kill' of several sandboxes exits with the worst outcome, a
failure (1) before a sandbox already gone (3).

Some commands pass another program's status through instead: abx exec, abx ps
attach, abx run-code, abx emulator exec and abx provider engine exec. Their statuses
belong to what they ran, so abx's own failures take one status of their own, as
docker's do:

`)
	for _, r := range abxerr.PassThroughTable() {
		writeStatusRow(&b, r)
	}
	b.WriteString(`
Details: docs/exit-codes.md, docs/exec.md, docs/run-code.md.
`)
	return b.String()
}

// writeStatusRow writes a status and its meaning, the meaning wrapped
// beside it and its Markdown marks dropped.
func writeStatusRow(b *strings.Builder, r abxerr.StatusRow) {
	meaning := strings.NewReplacer("`", "", "**", "").Replace(r.Meaning)
	if len(r.Status) > 5 {
		fmt.Fprintf(b, "    %s\n%s", r.Status, wrapIndented(meaning, "          ", 80))
		return
	}
	text := wrapIndented(meaning, "          ", 80)
	fmt.Fprintf(b, "    %-5s %s", r.Status, strings.TrimPrefix(text, "          "))
}

const formattingHelp = `One switch, -o/--output, chooses the form of every command's result. stdout carries
the data; stderr carries notes, prompts and errors.

    -o table    a table for people (the default)
    -o wide     the table with more columns
    -o json     the documented JSON shape, for jq and programs
    -o name     one name a line: what other commands take as an argument (a
                sandbox ID, a PID, a context ID, a path), for xargs

Tables adapt to where stdout goes. On a terminal: aligned columns, an upper-case
header, relative times (5m ago, in 2h) and state in colour. Through a pipe or into a
file: tab-separated columns, no header, times in RFC 3339 (UTC), no colour, nothing
truncated, so 'abx list | cut -f1' prints the IDs.

Colour is off when stdout is not a terminal, when NO_COLOR is set to anything, when
TERM=dumb, or with --no-color.

JSON is a contract: camelCase keys named as in the E2B API (sandboxID, templateID,
startedAt, endAt, exitCode); one object for one thing; an array for a list, [] when
empty; JSON Lines for streams (exec -o json, run-code --stream), one object a line with
a "type" field. Fields are added over time, never renamed or removed. Secrets never
appear. With -o json an error is one JSON object on stderr. The shapes are in
docs/json.md.

--jq EXPR implies -o json and filters the JSON through a jq expression, built in (no jq
needed); with another -o it is refused. A result that is a string prints raw, without
quotes; any other prints as JSON, one a line (indented on a terminal). An expression
that does not parse exits 2, before anything is sent; one that fails on the output
exits 1 (E5005), or 125 for the commands that pass a remote status through.
Commands that print no JSON (files read, emulator exec, provider engine exec,
completion) refuse --jq, and so does -q; help ignores it. Errors stay one line on
stderr. Object keys come out sorted, as gojq orders them.

    abx list --jq '.[].sandboxID'
    abx info "$id" --jq .endAt
`
