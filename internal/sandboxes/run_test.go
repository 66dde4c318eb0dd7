//go:build linux

package sandboxes

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
)

// emulated is the operations over the emulator's cluster, started for the
// test, as abx's provider reaches it.
func emulated(t *testing.T) (*Service, *manager.Server) {
	t.Helper()
	srv, env := emutest.Cluster(t)
	p, err := alicloudcontainer.New(alicloudcontainer.Config{BaseURL: env["ABX_ALICLOUD_CONTAINER_BASE_URL"],
		APIKey: emutest.Key, Protocol: alicloudcontainer.ProtocolPrivate, EnvdPort: provider.EnvdPort,
		RequestTimeout: 30 * time.Second, Retries: 3, IdleTimeout: time.Minute}, provider.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return &Service{
		Descriptor: func() (*provider.Descriptor, error) { return alicloudcontainer.Descriptor(), nil },
		Provider:   func() (provider.Provider, error) { return p, nil },
		HTTPClient: func() *http.Client { return http.DefaultClient },
	}, srv
}

// steps records what a job's steps heard, in order.
type steps struct {
	mu  sync.Mutex
	log []string
	out bytes.Buffer
	// wrote, when set, hears each write of the command's stdout.
	wrote chan struct{}
}

func (s *steps) add(step string) {
	s.mu.Lock()
	s.log = append(s.log, step)
	s.mu.Unlock()
}

func (s *steps) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *steps) Started(uint32) error {
	s.add("started")
	return nil
}

func (s *steps) Stdout(b []byte) error {
	s.mu.Lock()
	s.out.Write(b)
	s.mu.Unlock()
	if s.wrote != nil {
		s.wrote <- struct{}{}
	}
	return nil
}

func (s *steps) Stderr([]byte) error { return nil }

// job is a job of the base template running line, whose steps record
// themselves in st: a file put in, the command's end, a file got out.
func (s *steps) job(line string) Job {
	return Job{Sandbox: provider.CreateRequest{Template: "base", Env: map[string]string{"GREETING": "hi"}},
		Command: Command{Argv: []string{line}}, Sink: s,
		Created: func(*provider.Sandbox) error { s.add("created"); return nil },
		Put: func(ctx context.Context, _ string, c *envd.Client) error {
			s.add("put")
			return c.Write(ctx, "in.txt", strings.NewReader("put\n"))
		},
		Ended: func(x *Execution, err error) error {
			if x != nil && x.Exit != nil {
				s.add("ended " + x.Exit.Status)
			} else {
				s.add("ended: " + string(abxerr.From(err).Code))
			}
			return nil
		},
		Get: func(ctx context.Context, _ string, c *envd.Client) {
			var b bytes.Buffer
			if _, err := c.Read(ctx, "out.txt", &b); err != nil {
				s.add("get: " + string(abxerr.From(err).Code))
				return
			}
			s.add("got " + strings.TrimSpace(b.String()))
		},
	}
}

// left lists the sandboxes the cluster still runs.
func left(t *testing.T, s *Service) []provider.Sandbox {
	t.Helper()
	list, err := s.List(t.Context(), provider.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// A job goes in its order: the sandbox made with its environment and the
// lease, the file put in, the command run, its end said, the results got,
// the sandbox killed. A failing command's status is the job's result, not
// its failure.
func TestRunRunsAJobInItsOrder(t *testing.T) {
	t.Parallel()
	s, _ := emulated(t)
	st := &steps{}
	ran, err := s.Run(t.Context(), st.job("cat in.txt; echo $GREETING > out.txt; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"created", "put", "started", "ended exit status 3", "got hi"}
	if got := st.seen(); !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	if st.out.String() != "put\n" {
		t.Errorf("stdout %q", st.out.String())
	}
	if ran.SandboxID == "" || ran.Execution == nil || ran.Execution.Exit.Code != 3 {
		t.Errorf("ran %+v", ran)
	}
	if e := ran.End; e == nil || e.Kept || e.Gone || e.Err != nil {
		t.Errorf("end %+v, want killed", e)
	}
	if l := left(t, s); len(l) != 0 {
		t.Errorf("left running: %+v", l)
	}
}

// Whatever stops a job, its sandbox is killed: a step of the door's that
// fails (the command not run), the job's bound (the results still got), a
// signal (the command stopped as a Ctrl-C stops it, the results still
// got).
func TestRunKillsTheSandboxWhateverStopsTheJob(t *testing.T) {
	t.Parallel()
	s, _ := emulated(t)
	t.Run("a put fails", func(t *testing.T) {
		st := &steps{}
		job := st.job("touch ran")
		refused := abxerr.New(abxerr.InvalidInput, "no such local file")
		job.Put = func(context.Context, string, *envd.Client) error { return refused }
		ran, err := s.Run(t.Context(), job)
		if !errors.Is(err, refused) {
			t.Errorf("error %v, want the put's", err)
		}
		if got := st.seen(); !slices.Equal(got, []string{"created"}) {
			t.Errorf("steps %q: the command ran after a failed put", got)
		}
		if ran.End == nil || ran.End.Err != nil || ran.End.Kept {
			t.Errorf("end %+v, want killed", ran.End)
		}
	})
	t.Run("the bound passes", func(t *testing.T) {
		st := &steps{}
		job := st.job("echo partial > out.txt; sleep 30")
		job.Timeout = 2 * time.Second
		ctx := WithSpelling(t.Context(), Spelling{Names: map[string]string{"timeout": "timeout_seconds"}})
		ran, err := s.Run(ctx, job)
		if e := abxerr.From(err); e.Code != abxerr.Timeout || e.Message != "the job did not finish within 2s (timeout_seconds): the command was killed" {
			t.Errorf("error %v", err)
		}
		if got := st.seen(); len(got) != 5 || got[4] != "got partial" {
			t.Errorf("steps %q, want the results got after the bound", got)
		}
		if ran.End == nil || ran.End.Err != nil {
			t.Errorf("end %+v, want killed", ran.End)
		}
	})
	t.Run("a signal", func(t *testing.T) {
		st := &steps{wrote: make(chan struct{}, 1)}
		job := st.job("trap 'echo stopped > out.txt; exit 1' TERM; echo ready; sleep 30 & wait")
		signals := make(chan os.Signal, 1)
		job.Signals = signals
		go func() {
			<-st.wrote // once the trap is set
			signals <- os.Interrupt
		}()
		ran, err := s.Run(t.Context(), job)
		if e := abxerr.From(err); e.Code != abxerr.Interrupted {
			t.Errorf("error %v, want E7001", err)
		}
		if got := st.seen(); len(got) != 5 || got[4] != "got stopped" {
			t.Errorf("steps %q, want the command stopped by SIGTERM and the results got", got)
		}
		if ran.End == nil || ran.End.Err != nil {
			t.Errorf("end %+v, want killed", ran.End)
		}
	})
	if l := left(t, s); len(l) != 0 {
		t.Errorf("left running: %+v", l)
	}
}

// Everything a job is given is checked before anything is made, the
// capabilities of its steps included.
func TestRunRefusesBeforeAnythingIsMade(t *testing.T) {
	t.Parallel()
	s, srv := emulated(t)
	st := &steps{}
	for _, tc := range []struct {
		name string
		set  func(*Job)
		want string
	}{
		{"no template", func(j *Job) { j.Sandbox.Template = " " }, "the template is required"},
		{"an empty command", func(j *Job) { j.Command.Argv = []string{""} }, "the command is empty"},
		{"a short lease", func(j *Job) { j.Lease = 10 * time.Second }, "invalid lease 10: must be between 30s and 30 days"},
		{"a long bound", func(j *Job) { j.Timeout = 25 * time.Hour }, "invalid timeout 90000: must be between 1s and 24h"},
		{"a bad variable", func(j *Job) { j.Sandbox.Env = map[string]string{"": "x"} }, "invalid env: a variable has an empty name"},
		{"a bad user", func(j *Job) { j.Command.User = "a:b" }, `invalid user "a:b"`},
	} {
		job := st.job("true")
		tc.set(&job)
		ran, err := s.Run(t.Context(), job)
		if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %v, want E1002 saying %q", tc.name, err, tc.want)
		}
		if ran.End != nil || ran.SandboxID != "" {
			t.Errorf("%s: ran %+v", tc.name, ran)
		}
	}
	// A provider without exec.run gets nothing made for a job that could
	// not run.
	noExec := &Service{Provider: s.Provider, HTTPClient: s.HTTPClient}
	noExec.Descriptor = func() (*provider.Descriptor, error) {
		d := *alicloudcontainer.Descriptor()
		d.Capabilities = slices.DeleteFunc(slices.Clone(d.Capabilities), func(c provider.Capability) bool { return c == provider.ExecRun })
		return &d, nil
	}
	if _, err := noExec.Run(t.Context(), st.job("true")); abxerr.From(err).Code != abxerr.Unsupported {
		t.Errorf("without exec.run: %v, want E8004", err)
	}
	if got := st.seen(); len(got) != 0 {
		t.Errorf("steps %q ran", got)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the cluster heard %d requests", n)
	}
}
