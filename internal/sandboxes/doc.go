// Package sandboxes is abx's sandbox operations, each written once, under
// the three doors that offer them: the command line (internal/cmd), the
// MCP tools (internal/mcpserver) and the E2B API engine (internal/engine).
//
// An operation checks the capability it needs before any I/O, refuses
// input outside its bounds, calls the provider or a sandbox's servers, and
// returns a plain Go value. The clients of a sandbox's servers are made
// here and nowhere else: one wiring from the provider's endpoint to a
// client, one redirect rule, one cache with one rule of when a client is
// forgotten. A door reads its own input, calls the operation and renders
// the result in its own form; what it adds is its own (a flag, a hint that
// names one of its commands or tools, an E2B status code):
// docs/architecture.md.
//
// It knows no cobra, pflag, viper or output.
package sandboxes
