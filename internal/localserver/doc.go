// Package localserver is what the commands that run a server on this
// machine share (emulator start and exec, provider engine serve and
// exec): start it, print the lines that point programs at it, serve until
// interrupted or run one program with them, stop it; and where abx keeps
// the state of such servers (StateHome). It knows no cobra.
package localserver
