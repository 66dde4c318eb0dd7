package sandboxes

import (
	"math"
	"slices"
	"time"

	"github.com/abx-dev/abx/internal/provider"
)

// MinCreateLifetime is the shortest lifetime the server gives a new
// sandbox (docs/protocol.md, "Lifetimes"), which a lease never goes below.
const MinCreateLifetime = 30 * time.Second

// Inputs many operations share.
var (
	idInput = Input{Name: "id", Kind: Text, Required: true,
		Hint: "pass an ID as a listing of the sandboxes shows it"}
	// A sandbox's lifetime, as the server bounds it (docs/protocol.md,
	// "Lifetimes"): a new sandbox lives 30 s at least, a deadline set
	// later 1 s at least, and none more than 30 days.
	createLifetime = Input{Name: "timeout", Kind: Seconds, Min: int64(MinCreateLifetime / time.Second), Max: 30 * 24 * 3600,
		Hint: "the server refuses lifetimes outside that range"}
	lifetimeInput = Input{Name: "timeout", Kind: Seconds, Min: 1, Max: 30 * 24 * 3600,
		Hint: "the server refuses lifetimes outside that range"}
	// A process's time limit: abx's bound, not the server's. A day is
	// longer than any command a caller waits for; what runs longer runs in
	// the background, which no limit stops (docs/exec.md, "Time limits").
	processTimeout = Input{Name: "timeout", Kind: Seconds, Min: 1, Max: 24 * 3600,
		Hint: "a command that runs longer belongs in the background, which no time limit stops", Unset: "no limit"}
	templateInput = Input{Name: "template", Kind: Text, Required: true,
		Hint: "name the template to start from, e.g. base or code-interpreter"}
	envInput      = Input{Name: "env", Kind: Pairs}
	metadataInput = Input{Name: "metadata", Kind: Pairs}
	userInput     = Input{Name: "user", Kind: Text,
		Hint: "give a Linux user name in the sandbox, such as user or root"}
	pathInput    = Input{Name: "path", Kind: Text, Required: true, Hint: "give a path in the sandbox"}
	commandInput = Input{Name: "command", Kind: Text, Required: true, Hint: commandHint}
	portInput    = Input{Name: "port", Kind: Number, Required: true, Min: 1, Max: 65535,
		Hint: "give a port number between 1 and 65535"}
	pidInput = Input{Name: "pid", Kind: Number, Required: true, Min: 1, Max: 1<<32 - 1,
		Hint: "give a process ID as a listing of the sandbox's processes shows it"}
	// A directory listing's depth: 1 lists the directory's own entries,
	// each level more the entries one level further down. envd's depth
	// is unsigned and reads 0 as 1, so 0 or a negative number would list
	// one level, or (wrapped) the whole tree; 16 levels are deeper than
	// any tree a caller reads entry by entry.
	depthInput = Input{Name: "depth", Kind: Number, Min: 1, Max: 16,
		Hint: "give the levels to list: 1 for the directory's own entries, at most 16"}
	// Permission bits, as chmod takes them, in octal text ("755", "0640"):
	// 0 to 0777, no setuid, setgid or sticky bit (transfer.ParseMode).
	modeInput  = Input{Name: "mode", Kind: Text, Hint: "permission bits in octal, 0 to 0777"}
	stateInput = Input{Name: "state", Kind: Choice, Required: true, Enum: States,
		Hint: "use running or paused (comma-separated)"}
	languageInput = Input{Name: "language", Kind: Choice,
		Enum: []string{"python", "javascript", "js", "typescript", "ts", "r", "java", "bash"},
		Hint: "use python, javascript (js), typescript (ts), r, java or bash"}
	// How long a watch of a directory waits for changes: long enough to
	// wait, not to poll, and no longer than a sandbox lives.
	watchTimeout = Input{Name: "timeout", Kind: Duration, Min: 100, Max: 30 * 24 * 3600 * 1000,
		Hint: "a watch without a time limit runs until it is stopped"}
	// How many changes end a watch (0: none do).
	watchCount = Input{Name: "count", Kind: Number, Min: 0, Max: math.MaxInt32,
		Hint: "give the number of changes to wait for, or none to watch until stopped"}
	codeInput    = Input{Name: "code", Kind: Text, Required: true, Hint: "give the code to run"}
	contextInput = Input{Name: "context", Kind: Text}
)

// A command that runs nothing is refused (CheckCommand): bash -c "" exits
// 0, so a script's unset "$CMD" would pass for a command that succeeded.
const commandHint = "give a command that runs something; a variable that holds it may be unset"

var cwdInput = Input{Name: "cwd", Kind: Text}

// catalogue is every operation abx offers, control plane and data plane,
// then those it declares but does not offer yet (unoffered).
var catalogue []*Operation

func init() {
	catalogue = append(operations(), declared...)
	for _, op := range unoffered {
		if !slices.ContainsFunc(declared, func(d *Operation) bool { return d.Name == op.Name }) {
			catalogue = append(catalogue, op)
		}
	}
}

// declared are the operations declared in files of their own, beside
// their functions (declare).
var declared []*Operation

// declare adds operations to the catalogue from the file that holds their
// function, as the value of a package-level variable (`var _ =
// declare(...)`), which is set before the catalogue is made: an operation
// is then one file of this package, its declaration and its function
// together. One that E2B's API has and abx did not offer replaces its
// entry of unoffered.
func declare(ops ...*Operation) bool {
	declared = append(declared, ops...)
	return true
}

// operations are the operations abx offers. (A function, not a variable's
// value: their calls name the functions that look them up.)
func operations() []*Operation {
	return []*Operation{
		// The sandboxes themselves.
		{Name: "sandbox.create", Capability: provider.SandboxLifecycle, Func: "Create", Lifecycle: true,
			Inputs: []Input{templateInput, createLifetime, metadataInput, envInput,
				{Name: "auto_pause", Kind: Flag}, {Name: "no_internet", Kind: Flag}}},
		{Name: "sandbox.list", Capability: provider.SandboxLifecycle, Func: "List", Lifecycle: true, ReadOnly: true,
			Inputs: []Input{stateInput, metadataInput, {Name: "limit", Kind: Number}}},
		{Name: "sandbox.info", Capability: provider.SandboxLifecycle, Func: "Get", ReadOnly: true,
			Inputs: []Input{idInput}},
		{Name: "sandbox.connect", Capability: provider.SandboxLifecycle, Func: "Connect",
			Inputs: []Input{idInput, lifetimeInput}},
		{Name: "sandbox.kill", Capability: provider.SandboxLifecycle, Func: "Kill", Lifecycle: true,
			Inputs: []Input{idInput}},
		{Name: "sandbox.timeout", Capability: provider.SandboxTimeout, Func: "SetTimeout",
			Inputs: []Input{idInput, withRequired(lifetimeInput)}},
		{Name: "sandbox.pause", Capability: provider.SandboxPause, Func: "Pause", Lifecycle: true,
			Inputs: []Input{idInput}},
		{Name: "sandbox.resume", Capability: provider.SandboxPause, Func: "Resume", Lifecycle: true,
			Inputs: []Input{idInput, lifetimeInput}},
		{Name: "sandbox.metrics", Capability: provider.SandboxMetrics, Func: "Sample", ReadOnly: true,
			Inputs: []Input{idInput}},
		{Name: "sandbox.port", Capability: provider.PortsURL, Func: "Endpoint", ReadOnly: true,
			Inputs: []Input{idInput, portInput}},
		// A throwaway job: a sandbox made, a command run in it, the sandbox
		// killed. Its timeout bounds the job, from its start to the command's
		// end; its env is the sandbox's; the lease is the sandbox's lifetime
		// while the job runs (as a new sandbox's, 30 s at least); keep leaves
		// it running afterwards, for that long (as a deadline set later).
		{Name: "sandbox.run", Capability: provider.SandboxLifecycle, Func: "Run", Lifecycle: true,
			Inputs: []Input{templateInput, commandInput, processTimeout, envInput, cwdInput, userInput,
				{Name: "lease", Kind: Seconds, Min: 30, Max: 30 * 24 * 3600,
					Hint: "the server refuses lifetimes outside that range", Unset: "the default lease"},
				{Name: "keep", Kind: Seconds, Min: 1, Max: 30 * 24 * 3600,
					Hint: "the server refuses lifetimes outside that range"}}},

		// Files.
		{Name: "files.list", Capability: provider.FilesRW, Func: "ListDir", ReadOnly: true,
			Inputs: []Input{idInput, {Name: "path", Kind: Text}, depthInput, userInput}},
		{Name: "files.stat", Capability: provider.FilesRW, Func: "Stat", ReadOnly: true,
			Inputs: []Input{idInput, pathInput, userInput}},
		{Name: "files.read", Capability: provider.FilesRW, Func: "ReadFile", ReadOnly: true,
			Inputs: []Input{idInput, pathInput, userInput}},
		{Name: "files.write", Capability: provider.FilesRW, Func: "WriteFile",
			Inputs: []Input{idInput, pathInput, modeInput, userInput}},
		{Name: "files.mkdir", Capability: provider.FilesRW, Func: "MakeDir",
			Inputs: []Input{idInput, pathInput, userInput, {Name: "parents", Kind: Flag}}},
		{Name: "files.remove", Capability: provider.FilesRW, Func: "Remove",
			Inputs: []Input{idInput, pathInput, userInput}},
		{Name: "files.move", Capability: provider.FilesRW, Func: "Move",
			Inputs: []Input{idInput, pathInput, {Name: "to", Kind: Text, Required: true}, userInput}},
		{Name: "files.copy", Capability: provider.FilesRW, Func: "Copier",
			Inputs: []Input{idInput, userInput, {Name: "path", Kind: Text}}},
		{Name: "files.watch", Capability: provider.FilesWatch, Func: "Watch", ReadOnly: true,
			Inputs: []Input{idInput, pathInput, userInput, {Name: "recursive", Kind: Flag}, watchTimeout, watchCount}},

		// Processes.
		{Name: "process.exec", Capability: provider.ExecRun, Func: "Exec",
			Inputs: []Input{idInput, commandInput, processTimeout, envInput, userInput, cwdInput}},
		{Name: "process.list", Capability: provider.ProcessManage, Func: "Processes", ReadOnly: true,
			Inputs: []Input{idInput}},
		{Name: "process.signal", Capability: provider.ProcessManage, Func: "Signal",
			Inputs: []Input{idInput, pidInput, {Name: "signal", Kind: Choice, Enum: []string{"TERM", "KILL"},
				Hint: "envd delivers TERM (15) and KILL (9) only"}}},
		{Name: "process.stdin", Capability: provider.ProcessManage, Func: "Stdin",
			Inputs: []Input{idInput, pidInput}},
		{Name: "process.attach", Capability: provider.ProcessManage, Func: "Attach",
			Inputs: []Input{idInput, pidInput}},
		{Name: "process.terminal", Capability: provider.PTY, Func: "Terminal",
			Inputs: []Input{idInput, userInput, envInput, cwdInput}},

		// Code.
		{Name: "code.run", Capability: provider.CodeInterpret, Func: "RunCode",
			Inputs: []Input{idInput, codeInput, languageInput, contextInput, processTimeout, envInput}},
		{Name: "code.contexts", Capability: provider.CodeInterpret, Func: "Contexts", ReadOnly: true,
			Inputs: []Input{idInput}},
		{Name: "code.context.create", Capability: provider.CodeInterpret, Func: "CreateContext",
			Inputs: []Input{idInput, languageInput, {Name: "cwd", Kind: Text}}},
		{Name: "code.context.restart", Capability: provider.CodeInterpret, Func: "RestartContext",
			Inputs: []Input{idInput, withRequired(contextInput)}},
		{Name: "code.context.delete", Capability: provider.CodeInterpret, Func: "DeleteContext",
			Inputs: []Input{idInput, withRequired(contextInput)}},
	}
}

// Operations of E2B's API that abx does not offer yet: declared so that
// a door that meets one (the engine's routes) refuses it by name, with the
// capability it would need where the family has one (`abx capabilities`
// lists it). They have no function. One
// of a single route declares it (Door.Route), which the engine refuses
// until the operation is offered; families of routes (templates, volumes)
// are the engine's table's.
var unoffered = []*Operation{
	{Name: "templates.list", Capability: provider.TemplatesRead, ReadOnly: true},
	{Name: "templates.build", Capability: provider.TemplatesBuild},
	{Name: "sandbox.logs", ReadOnly: true},
	{Name: "sandbox.refresh", Capability: provider.SandboxTimeout, Door: &Door{Route: "POST /sandboxes/{id}/refreshes"}},
	{Name: "sandbox.snapshot", Door: &Door{Route: "POST /sandboxes/{id}/snapshots"}},
	{Name: "sandbox.fork", Door: &Door{Route: "POST /sandboxes/{id}/fork"}},
	// Egress rules replaced on a running sandbox.
	{Name: "sandbox.network", Door: &Door{Route: "PUT /sandboxes/{id}/network"}},
	// The snapshots themselves: listed, deleted.
	{Name: "snapshots"},
	{Name: "volumes", Capability: provider.StorageMount},
	{Name: "files.upload-url", Capability: provider.FilesTransfer},
	{Name: "files.download-url", Capability: provider.FilesTransfer, ReadOnly: true},
}

// positional is in as a built command's argument, with its description.
func positional(in Input, usage string) Input {
	in.Positional, in.Usage = true, usage
	return in
}

func withRequired(in Input) Input {
	in.Required = true
	return in
}
