//go:build linux

package emulator

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	client "github.com/abx-dev/abx/internal/envd"
)

// envdOf is a client of a sandbox's envd through the emulator's gateway.
func envdOf(t *testing.T, e *Emulator, id string) *client.Client {
	t.Helper()
	token := ""
	for _, s := range e.Manager.Sandboxes() {
		if s.ID == id {
			token = s.EnvdAccessToken
		}
	}
	h := http.Header{}
	h.Set("X-Access-Token", token)
	return client.New(http.DefaultClient, client.Endpoint{URL: e.URL + "/kruise/" + id + "/49983", Header: h, Version: "0.2.10"}, "")
}

// sh runs a shell line in the sandbox and returns its output.
func sh(t *testing.T, c *client.Client, line string) string {
	t.Helper()
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	end, err := c.Start(ctx, client.Command{Cmd: "/bin/bash", Args: []string{"-c", line}},
		func(ev client.Event) error { out.Write(ev.Stdout); out.Write(ev.Stderr); return nil })
	if err != nil || end.ExitCode != 0 {
		t.Fatalf("%q: %v, exit %v, %q", line, err, end, out.String())
	}
	return out.String()
}

// sleepersOf lists the pids, on this machine, of `sleep MARK`.
func sleepersOf(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		// sleep MARK, or the server's python3 -c CODE MARK.
		if cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil &&
			(string(cmdline) == "sleep\x00"+mark+"\x00" || strings.HasPrefix(string(cmdline), "python3\x00") && strings.HasSuffix(string(cmdline), "\x00"+mark+"\x00")) {
			pid, _ := strconv.Atoi(e.Name())
			pids = append(pids, pid)
		}
	}
	return pids
}

// detach starts, in the sandbox, three processes that leave the command
// that starts them (a new session, a double fork, nohup), each `sleep`
// of a length no other test uses, and a server on a port of the
// sandbox's, started the first way; it returns their marks.
func detach(t *testing.T, e *Emulator, id string, n int) []string {
	t.Helper()
	c := envdOf(t, e, id)
	var marks []string
	for i, line := range []string{
		"setsid sleep %s >/dev/null 2>&1 < /dev/null &",
		"( (sleep %s >/dev/null 2>&1 < /dev/null &) & )",
		"nohup sleep %s >/dev/null 2>&1 < /dev/null &",
		"setsid python3 -c 'import socket,time; s=socket.socket(); s.bind((\"127.0.0.1\",28765)); s.listen(); time.sleep(600)' %s >/dev/null 2>&1 < /dev/null &",
	} {
		mark := fmt.Sprintf("8%d%02d.%d", n, i, os.Getpid()%100000)
		marks = append(marks, mark)
		sh(t, c, fmt.Sprintf(line, mark))
	}
	for _, mark := range marks {
		eventually(t, "process "+mark+" started", func() bool { return len(sleepersOf(mark)) == 1 })
	}
	eventually(t, "the server listens", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := e.Gateway.Envd(id).DialPort(ctx, 28765)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	})
	return marks
}

// gone waits, 2 s at most (and a margin for a loaded machine), until
// every process detach started has ended.
func gone(t *testing.T, since time.Time, marks []string) {
	t.Helper()
	deadline := since.Add(2*time.Second + time.Second)
	for _, mark := range marks {
		for len(sleepersOf(mark)) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("process %s still runs %s after the sandbox ended", mark, time.Since(since))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// Every process of a sandbox, however it detached, ends when the sandbox
// does: killed, expired, or with the emulator.
func TestASandboxEndsWithEveryProcessOfIt(t *testing.T) {
	jailtest.Need(t)
	t.Parallel()
	for n, how := range []string{"killed", "expired", "emulator stopped"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, Options{TimeScale: 30})
			id := createSandbox(t, e, `{"templateID":"base","timeout":3600}`)
			marks := detach(t, e, id, n)
			start := time.Now()
			switch how {
			case "killed":
				if status, body := call(t, e, "DELETE", "/kruise/api/sandboxes/"+id, ""); status != http.StatusNoContent {
					t.Fatalf("kill: %d %s", status, body)
				}
			case "expired":
				if status, body := call(t, e, "POST", "/kruise/api/sandboxes/"+id+"/timeout", `{"timeout":30}`); status != http.StatusNoContent {
					t.Fatalf("timeout: %d %s", status, body)
				}
				eventually(t, "the sandbox expired", func() bool { return e.Gateway.Envd(id) == nil })
				start = time.Now()
			case "emulator stopped":
				_ = e.Close()
			}
			gone(t, start, marks)
		})
	}
}

// Paused, a sandbox runs nothing: a loop that writes the time stops, also
// one in a session of its own, and goes on once resumed (by resume, or
// by connect); meanwhile its ports answer as the cluster's gateway
// answers. An auto-pause sandbox whose time runs out is paused the same
// way.
func TestAPausedSandboxRunsNothing(t *testing.T) {
	jailtest.Need(t)
	t.Parallel()
	for _, how := range []string{"resume", "connect", "auto-pause"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, Options{TimeScale: 30})
			body := `{"templateID":"base","timeout":3600}`
			if how == "auto-pause" {
				body = `{"templateID":"base","timeout":3600,"autoPause":true}`
			}
			id := createSandbox(t, e, body)
			c := envdOf(t, e, id)
			sh(t, c, "setsid bash -c 'while :; do date +%s%N >> /tmp/ticks; sleep 0.05; done' >/dev/null 2>&1 < /dev/null &")
			ticks := filepath.Join(e.StateDir, "sandboxes", id, "tmp", "ticks")
			count := func() int {
				data, _ := os.ReadFile(ticks)
				return strings.Count(string(data), "\n")
			}
			eventually(t, "the loop ticks", func() bool { return count() >= 3 })
			if how == "auto-pause" {
				if status, reply := call(t, e, "POST", "/kruise/api/sandboxes/"+id+"/timeout", `{"timeout":30}`); status != http.StatusNoContent {
					t.Fatalf("timeout: %d %s", status, reply)
				}
				eventually(t, "the sandbox paused itself", func() bool {
					_, reply := call(t, e, "GET", "/kruise/api/sandboxes/"+id, "")
					return strings.Contains(reply, `"state":"paused"`)
				})
			} else if status, reply := call(t, e, "POST", "/kruise/api/sandboxes/"+id+"/pause", ""); status != http.StatusNoContent {
				t.Fatalf("pause: %d %s", status, reply)
			}
			paused := count()
			time.Sleep(600 * time.Millisecond)
			if now := count(); now != paused {
				t.Errorf("paused, the loop went on from %d to %d ticks", paused, now)
			}
			status, reply := call(t, e, "GET", "/kruise/"+id+"/49983/health", "")
			if status != http.StatusBadGateway || strings.TrimSpace(reply) != "healthy sandbox not found: "+id {
				t.Errorf("envd of a paused sandbox: %d %q", status, reply)
			}
			switch how {
			case "connect":
				status, reply = call(t, e, "POST", "/kruise/api/sandboxes/"+id+"/connect", `{"timeout":300}`)
				if status != http.StatusCreated {
					t.Fatalf("connect: %d %s", status, reply)
				}
			default:
				if status, reply = call(t, e, "POST", "/kruise/api/sandboxes/"+id+"/resume", `{"timeout":300}`); status/100 != 2 {
					t.Fatalf("resume: %d %s", status, reply)
				}
			}
			eventually(t, "the loop goes on", func() bool { return count() >= paused+3 })
			if out := sh(t, c, "echo back"); out != "back\n" {
				t.Errorf("after the resume: %q", out)
			}
		})
	}
}

// Inside, ps lists the sandbox's own processes, with its own low pids;
// envd reports those pids too.
func TestASandboxSeesItsOwnProcesses(t *testing.T) {
	jailtest.Need(t)
	t.Parallel()
	e := startEmulator(t, Options{})
	a := createSandbox(t, e, `{"templateID":"base"}`)
	b := createSandbox(t, e, `{"templateID":"base"}`)
	mark := fmt.Sprintf("8900.%d", os.Getpid()%100000)
	sh(t, envdOf(t, e, a), "setsid sleep "+mark+" >/dev/null 2>&1 < /dev/null &")
	out := sh(t, envdOf(t, e, b), "ps -e -o pid=,args=")
	if strings.Contains(out, mark) {
		t.Errorf("another sandbox's process is listed:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if pid, err := strconv.Atoi(strings.Fields(line)[0]); err != nil || pid > 200 {
			t.Errorf("not a pid of the sandbox's own: %q", line)
		}
	}
	c := envdOf(t, e, a)
	var pid uint32
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	_, err := c.Start(ctx, client.Command{Cmd: "/bin/bash", Args: []string{"-c", "echo $$"}}, func(ev client.Event) error {
		if ev.Started != nil {
			pid = *ev.Started
		}
		if len(ev.Stdout) > 0 && strings.TrimSpace(string(ev.Stdout)) != strconv.Itoa(int(pid)) {
			t.Errorf("envd says pid %d, the process says %q", pid, ev.Stdout)
		}
		return nil
	})
	if err != nil || pid == 0 || pid > 200 {
		t.Errorf("the started process's pid %d (%v)", pid, err)
	}
}
