package abxerr

import (
	"slices"
	"strconv"
)

// Statuses a shell gives a program, which the commands that pass a remote
// status through keep (exec's command not found is 127, as in a shell),
// and which the emulator's sandbox init gives its command.
const (
	ExitCannotRun       = 126 // found, but could not be set up or run
	ExitCommandNotFound = 127 // no such command
)

// SignalStatus is the status of a process signal n ended, as a shell
// says: 128+n.
func SignalStatus(n int) int { return 128 + n }

// CodeRaised is run-code's status when the code raised an error: the code
// ran and failed, which is the code's outcome, not abx's.
const CodeRaised = Status(ExitFailure)

// CommandNotFound is a pass-through command's failure to find the command
// it was to run: it exits 127, as a shell would, not 125.
func CommandNotFound(err error) *Error {
	e := *From(err)
	e.Exit = ExitCommandNotFound
	return &e
}

// CannotRun is a local program's failure to run once found (no x bit, a
// directory, permission denied): it exits 126, as a shell would.
func CannotRun(err error) *Error {
	e := *From(err)
	e.Exit = ExitCannotRun
	return &e
}

// StatusRow is one row of the exit-status tables: docs/exit-codes.md and
// 'abx help exit-codes' are made from them (the generator and a test keep
// both in step). Meanings are written once, for both: `code` marks a
// flag or a value, which the help shows without the marks.
type StatusRow struct {
	Status  string // a number, or how it is found ("the remote status")
	Meaning string
	Codes   []Code // the error codes that exit with it; none for the remote side's
}

// meanings say what each status abx itself gives means.
var meanings = map[int]string{
	ExitOK:           "success",
	ExitFailure:      "the service or the network failed (a connection that broke, a stream that sent nothing for `--idle-timeout`), or the service refused the request; the service answered something abx will not use (an empty or malformed answer, a redirect to another origin, an answer over its size cap, a listing that leads outside a destination); `--jq` failed on the output; the sandbox refused a path to its user (E5007: the sandbox's own permissions, not the key); abx failed in a way it did not foresee",
	ExitUsage:        "bad usage, bad input or missing configuration: **nothing was sent**",
	ExitNotFound:     "not found: the sandbox does not exist (never did, was killed, or timed out), or another named thing: the template `create` names, a context, a running emulator or engine, a provider abx does not have (`provider install`, `uninstall`)",
	ExitAuth:         "authentication or authorization refused (wrong key, forbidden, quota)",
	ExitUnsupported:  "the provider does not support this capability (checked before any request)",
	ExitPaused:       "the sandbox is paused: nothing inside it answers until it is resumed (`abx resume ID`, or `abx connect ID`)",
	ExitTimeout:      "a deadline passed (`--request-timeout`, or a command's `--timeout`)",
	ExitInterrupted:  "interrupted: Ctrl-C or SIGTERM; SIGHUP too (a closed terminal, a dropped ssh) for the stream commands, which it stops as Ctrl-C does",
	ExitOutputClosed: "the reader of abx's output went away (a pipe closed by its reader, as `head` closes it), and **nothing is printed**, as `yes | head` prints nothing; a stream command first stops its remote work as Ctrl-C does (`run` still fetches its results and kills its sandbox); any other command ends as a program does on a closed pipe, with this status",
}

// StatusTable is every status abx gives, with the codes that give it, in
// order of status.
func StatusTable() []StatusRow {
	byStatus := map[int][]Code{ExitOK: nil}
	for _, c := range Codes() {
		byStatus[c.ExitCode()] = append(byStatus[c.ExitCode()], c)
	}
	statuses := make([]int, 0, len(byStatus))
	for s := range byStatus {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	rows := make([]StatusRow, len(statuses))
	for i, s := range statuses {
		rows[i] = StatusRow{Status: strconv.Itoa(s), Meaning: meanings[s], Codes: byStatus[s]}
	}
	return rows
}

// PassThroughTable is what the statuses of the commands that pass a
// remote status through (exec, terminal, ps attach, run-code, emulator
// exec, provider engine exec) mean: the rule Exit applies.
func PassThroughTable() []StatusRow {
	return []StatusRow{
		{Status: "the remote status", Meaning: "`exec`, `run`, `terminal`, `ps attach`, `emulator exec`, `provider engine exec`: the command's own, 128+n when signal n ended it; `run-code`: 0 when the code ran, **1 when it raised an error**; `run`: a sandbox that could not be made exits as `create` does (3, 4, 2)"},
		{Status: strconv.Itoa(ExitTimeout), Meaning: "a deadline passed: the command's `--timeout`, or `--request-timeout`"},
		{Status: strconv.Itoa(ExitOwnFailure), Meaning: "abx itself failed: bad usage or input, missing configuration, a sandbox or context that does not exist, a refused key, an unsupported capability, the service or the network, a cut-off or stalled stream (`--idle-timeout`), a remote exit status outside 0..255 (E5004: no process has one, and passing it on would wrap it modulo 256), a process that ended while its stream was cut, so that its status is unknown (E5006: abx never makes one up), a result that could not be saved. The error keeps its code (`E1002`, `E3001`, `E5001`, ...), so a script that needs the reason reads it from `-o json`'s `error.code`"},
		{Status: strconv.Itoa(ExitCannotRun), Meaning: "`emulator exec`, `provider engine exec`: the program is there but cannot run (no x bit, a directory, permission denied), as a shell says; the error names it. (`exec` passes on the 126 of the sandbox's shell as the remote status)"},
		{Status: strconv.Itoa(ExitCommandNotFound), Meaning: "`exec`: the sandbox found no such command; `emulator exec`, `provider engine exec`: no such program on this machine (not on `PATH`, or no such file), as a shell says; the error names it"},
		{Status: strconv.Itoa(ExitInterrupted), Meaning: "interrupted: Ctrl-C, SIGTERM or SIGHUP (a closed terminal, a dropped ssh), each of which stops the remote command as Ctrl-C does (`run`: its results fetched and its sandbox killed; `ps attach`: detached, the process left running); `emulator exec` and `provider engine exec` leave a Ctrl-C to the program and exit as it does (130 when it ends of it; 137 when they killed it, 5 s after a signal sent to abx alone that it outlived), and give 130 themselves only for one that comes before the program starts"},
		{Status: strconv.Itoa(ExitOutputClosed), Meaning: "the reader of abx's output went away (`abx exec ID -- yes | head -2`): `exec` stopped the remote command as Ctrl-C does, its stdin relay too; `run` stopped it, fetched the results and killed the sandbox; `ps attach` detached. Nothing is printed"},
	}
}

// Closed is the outcome of a write to abx's stdout or stderr that failed
// because its reader went away (the end of a pipe closed: 'abx exec ID --
// yes | head -2'). Nothing is printed for it, as 'yes | head' prints
// nothing: the reader left on purpose, and stderr may be gone too.
func Closed(cause error) *Error {
	return &Error{Code: OutputClosed, Message: "the reader of abx's output went away", Cause: cause}
}
