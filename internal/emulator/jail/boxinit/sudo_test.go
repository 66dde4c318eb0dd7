//go:build linux

package boxinit

import (
	"slices"
	"testing"
)

func TestSudoOptions(t *testing.T) {
	for _, c := range []struct {
		args       []string
		argv       []string
		done       bool
		status     int
		login, env bool
	}{
		{args: []string{"id", "-u"}, argv: []string{"id", "-u"}},
		{args: []string{"-E", "--", "ls", "-l"}, argv: []string{"ls", "-l"}, env: true},
		{args: []string{"-nE", "-u", "root", "true"}, argv: []string{"true"}, env: true},
		{args: []string{"-uroot", "true"}, argv: []string{"true"}},
		{args: []string{"--preserve-env", "--login"}, env: true, login: true},
		{args: []string{"-i", "pip", "install", "x"}, argv: []string{"pip", "install", "x"}, login: true},
		{args: []string{"-k"}, done: true},
		{args: []string{"-v"}, done: true},
		{args: nil, done: true, status: 1},
		{args: []string{"-u", "nobody", "true"}, done: true, status: 1},
		{args: []string{"-u"}, done: true, status: 1},
		{args: []string{"-x", "true"}, done: true, status: 1},
		{args: []string{"--bogus"}, done: true, status: 1},
	} {
		req, done, status := parseSudo(c.args)
		if done != c.done || status != c.status || (!done && (!slices.Equal(req.argv, c.argv) || req.login != c.login || req.keepEnv != c.env)) {
			t.Errorf("sudo %q: %+v, done %v, status %d", c.args, req, done, status)
		}
	}
}

// The command's environment is sudo's env_reset, or the caller's with -E;
// root's own variables win either way.
func TestSudoEnvironment(t *testing.T) {
	caller := []string{"TERM=xterm", "SECRET=1", "HOME=/home/user", "PATH=/x", "LC_ALL=C"}
	_, env, _ := sudoRequest{argv: []string{"env"}}.command(caller, UserUID)
	for _, want := range []string{"TERM=xterm", "LC_ALL=C", "HOME=/root", "USER=root", "SUDO_USER=user", "SUDO_UID=1000", "PATH=" + securePath} {
		if !slices.Contains(env, want) {
			t.Errorf("env_reset: %q lacks %s", env, want)
		}
	}
	if slices.Contains(env, "SECRET=1") || slices.Contains(env, "HOME=/home/user") {
		t.Errorf("env_reset kept the caller's: %q", env)
	}
	_, env, _ = sudoRequest{argv: []string{"env"}, keepEnv: true}.command(caller, UserUID)
	if !slices.Contains(env, "SECRET=1") || !slices.Contains(env, "HOME=/root") {
		t.Errorf("-E: %q", env)
	}
}
