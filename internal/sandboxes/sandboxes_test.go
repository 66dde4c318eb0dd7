package sandboxes

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/provider"
)

// fake is a provider that records every call, and whose sandboxes'
// servers are at url. It answers as sandbox-manager does, and counts the
// reads behind the endpoints. A method Provider gains and no test here
// calls is the embedded nil's, which panics.
type fake struct {
	provider.Provider
	url   string
	state string // what a read of any sandbox says; "" is running

	mu     sync.Mutex
	calls  []string
	reads  atomic.Int32
	resume bool // Connect resumes
}

func (f *fake) called(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fake) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fake) Create(_ context.Context, req provider.CreateRequest) (*provider.Sandbox, error) {
	f.called("create " + req.Template)
	return &provider.Sandbox{SandboxID: "sb-new", TemplateID: req.Template}, nil
}

func (f *fake) Connect(_ context.Context, id string, _ time.Duration) (*provider.ConnectResult, error) {
	f.called("connect " + id)
	return &provider.ConnectResult{Sandbox: provider.Sandbox{SandboxID: id}, Resumed: f.resume}, nil
}

func (f *fake) Get(_ context.Context, id string) (*provider.Sandbox, error) {
	f.called("get " + id)
	return &provider.Sandbox{SandboxID: id, State: f.state}, nil
}

func (f *fake) List(context.Context, provider.ListOptions) ([]provider.Sandbox, error) {
	f.called("list")
	return nil, nil
}

func (f *fake) Kill(_ context.Context, id string) error {
	f.called("kill " + id)
	return nil
}

func (f *fake) SetTimeout(_ context.Context, id string, _ time.Duration) error {
	f.called("timeout " + id)
	return nil
}

func (f *fake) Pause(_ context.Context, id string) error {
	f.called("pause " + id)
	return nil
}

func (f *fake) Resume(_ context.Context, id string, _ time.Duration) error {
	f.called("resume " + id)
	return nil
}

func (f *fake) PortURL(id string, _ int) (string, error) {
	f.called("url " + id)
	return f.url, nil
}

func (f *fake) Endpoint(_ context.Context, id string, port int) (*provider.Endpoint, error) {
	f.reads.Add(1)
	h := http.Header{}
	h.Set("X-Access-Token", "tok-"+id)
	state := f.state
	if state == "" {
		state = "running"
	}
	return &provider.Endpoint{SandboxID: id, Port: port, URL: f.url, Header: h, EnvdVersion: "0.2.10", State: state}, nil
}

// service is the operations over p with the capabilities caps, keeping
// clients for keep.
func service(p provider.Provider, keep time.Duration, caps ...provider.Capability) *Service {
	d := &provider.Descriptor{Name: "fake", Capabilities: caps}
	return &Service{
		Descriptor:  func() (*provider.Descriptor, error) { return d, nil },
		Provider:    func() (provider.Provider, error) { return p, nil },
		HTTPClient:  func() *http.Client { return http.DefaultClient },
		KeepClients: keep,
	}
}

// Every operation checks its capability before anything else: a provider
// without it gets E8004, and hears nothing (the engine offers kill and
// timeout through these, so it refuses them the same way).
func TestACapabilityIsCheckedBeforeAnyIO(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{}
	opened := 0
	s := service(p, 0)
	s.Provider = func() (provider.Provider, error) { opened++; return p, nil }
	for name, op := range map[string]func() error{
		"create":  func() error { _, err := s.Create(ctx, provider.CreateRequest{Template: "base"}); return err },
		"get":     func() error { _, err := s.Get(ctx, "sb"); return err },
		"list":    func() error { _, err := s.List(ctx, provider.ListOptions{}); return err },
		"kill":    func() error { return s.Kill(ctx, "sb") },
		"timeout": func() error { return s.SetTimeout(ctx, "sb", time.Minute) },
		"pause":   func() error { return s.Pause(ctx, "sb") },
		"resume":  func() error { return s.Resume(ctx, "sb", 0) },
		"connect": func() error { _, err := s.Connect(ctx, "sb", 0); return err },
		"url":     func() error { _, err := s.PortURL(ctx, "sb", 8080); return err },
		"endpoint": func() error {
			_, err := s.Endpoint(ctx, "sb", 8080)
			return err
		},
		"envd": func() error { _, err := s.Envd(ctx, "sb", "", provider.ExecRun); return err },
		"run code": func() error {
			return s.RunCode(ctx, "sb", Code{Request: codeinterp.Request{Code: "1"}}, func(codeinterp.Event) error { return nil })
		},
		"contexts":        func() error { _, err := s.Contexts(ctx, "sb"); return err },
		"create context":  func() error { _, err := s.CreateContext(ctx, "sb", "", ""); return err },
		"restart context": func() error { return s.RestartContext(ctx, "sb", "c1") },
		"delete context":  func() error { return s.DeleteContext(ctx, "sb", "c1") },
		"sample":          func() error { _, err := s.Sample(ctx, Target{ID: "sb"}); return err },
	} {
		err := op()
		if e := abxerr.From(err); e == nil || e.Code != abxerr.Unsupported || !strings.HasPrefix(e.Message, "provider fake does not support ") {
			t.Errorf("%s: %v, want E8004", name, err)
		}
	}
	if opened != 0 || len(p.log()) != 0 || p.reads.Load() != 0 {
		t.Errorf("the provider was opened %d times and heard %q (%d reads)", opened, p.log(), p.reads.Load())
	}
}

// A sandbox ID that could move the URL it goes into is refused by every
// operation on one sandbox, before the provider hears of it.
func TestAnIDThatMovesThePathIsRefused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{}
	s := service(p, 0, provider.SandboxLifecycle, provider.SandboxTimeout, provider.SandboxPause, provider.PortsURL,
		provider.ExecRun, provider.CodeInterpret, provider.SandboxMetrics)
	for _, id := range []string{"..", ".", "a/b", "", "a\nb"} {
		for name, err := range map[string]error{
			"get":      func() error { _, err := s.Get(ctx, id); return err }(),
			"kill":     s.Kill(ctx, id),
			"timeout":  s.SetTimeout(ctx, id, time.Minute),
			"pause":    s.Pause(ctx, id),
			"resume":   s.Resume(ctx, id, 0),
			"connect":  func() error { _, err := s.Connect(ctx, id, 0); return err }(),
			"url":      func() error { _, err := s.PortURL(ctx, id, 80); return err }(),
			"envd":     func() error { _, err := s.Envd(ctx, id, "", provider.ExecRun); return err }(),
			"run code": s.RunCode(ctx, id, Code{Request: codeinterp.Request{Code: "1"}}, nil),
			"contexts": func() error { _, err := s.Contexts(ctx, id); return err }(),
			"restart":  s.RestartContext(ctx, id, "c1"),
			"port":     func() error { _, err := s.Endpoint(ctx, id, 8080); return err }(),
			"sample":   func() error { _, err := s.Sample(ctx, Target{ID: "sb"}, Target{ID: id}); return err }(),
		} {
			if abxerr.From(err).Code != abxerr.InvalidInput {
				t.Errorf("%s of %q: %v, want E1002", name, id, err)
			}
		}
	}
	if len(p.log()) != 0 || p.reads.Load() != 0 {
		t.Errorf("the provider heard %q", p.log())
	}
}

// A lifetime is a sandbox's (30 days at most; a new one 30 s at least);
// a process's time limit is a day at most: two bounds, never one for both.
func TestLifetimesAndProcessTimeoutsHaveTheirOwnBounds(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{}
	s := service(p, 0, provider.SandboxLifecycle, provider.SandboxTimeout, provider.CodeInterpret)
	if _, err := s.Create(ctx, provider.CreateRequest{Template: "base", Timeout: 10 * time.Second}); abxerr.From(err).Code != abxerr.InvalidInput {
		t.Errorf("create for 10s: %v", err)
	}
	if err := s.SetTimeout(ctx, "sb", 31*24*time.Hour); abxerr.From(err).Code != abxerr.InvalidInput {
		t.Errorf("timeout of 31 days: %v", err)
	}
	if err := s.SetTimeout(ctx, "sb", 7*24*time.Hour); err != nil {
		t.Errorf("a week's lifetime: %v", err)
	}
	err := s.RunCode(ctx, "sb", Code{Request: codeinterp.Request{Code: "1"}, Timeout: 48 * time.Hour}, nil)
	if e := abxerr.From(err); e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, "between 1s and 24h") {
		t.Errorf("run code for two days: %v", err)
	}
	limit := Op("process.exec").Input("timeout")
	for _, d := range []time.Duration{time.Second, 24 * time.Hour} {
		if err := limit.CheckSeconds(ctx, d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	typed := WithSpelling(ctx, Spelling{Shown: map[string]string{"timeout": "0"}})
	for _, d := range []time.Duration{500 * time.Millisecond, 25 * time.Hour, 30 * 24 * time.Hour} {
		if limit.CheckSeconds(ctx, d) == nil {
			t.Errorf("%s was taken as a process's time limit", d)
		}
	}
	if limit.CheckSeconds(typed, 0) == nil {
		t.Errorf("a 0 typed was taken as a process's time limit")
	}
	if got := p.log(); len(got) != 1 || got[0] != "timeout sb" {
		t.Errorf("the provider heard %q, want the week's timeout only", got)
	}
}

// The one cache: a client is kept for KeepClients, per sandbox and user,
// and dropped when its sandbox is killed, paused or resumed through the
// service, when a connect resumed it, or when a door forgets it.
func TestKeptClientsAndWhenTheyAreForgotten(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, time.Minute, provider.SandboxLifecycle, provider.SandboxPause, provider.ExecRun)
	now := time.Unix(1000, 0)
	s.now = func() time.Time { return now }
	envdOf := func(id, user string) any {
		t.Helper()
		c, err := s.Envd(ctx, id, user, provider.ExecRun)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := envdOf("sb-a", "")
	if envdOf("sb-a", "") != a || p.reads.Load() != 1 {
		t.Fatalf("a second call read the sandbox again (%d reads)", p.reads.Load())
	}
	if envdOf("sb-a", "root"); p.reads.Load() != 1 {
		t.Errorf("another user's client read the sandbox again (%d reads): the endpoint is kept", p.reads.Load())
	}
	if envdOf("sb-a", "root") == a {
		t.Error("another user shares the client")
	}
	if envdOf("sb-ab", ""); p.reads.Load() != 2 {
		t.Errorf("another sandbox shares the endpoint (%d reads)", p.reads.Load())
	}
	for _, change := range []struct {
		name string
		do   func() error
	}{
		{"resume", func() error { return s.Resume(ctx, "sb-a", 0) }},
		{"pause", func() error { return s.Pause(ctx, "sb-a") }},
		{"kill", func() error { return s.Kill(ctx, "sb-a") }},
		{"a connect that resumed", func() error { p.resume = true; _, err := s.Connect(ctx, "sb-a", 0); return err }},
		{"the door", func() error { s.Forget("sb-a"); return nil }},
	} {
		before := p.reads.Load()
		if err := change.do(); err != nil {
			t.Fatal(err)
		}
		if c := envdOf("sb-a", ""); c == a || p.reads.Load() != before+1 {
			t.Errorf("after %s the client was kept (%d reads)", change.name, p.reads.Load()-before)
		}
		a = envdOf("sb-a", "")
		if envdOf("sb-ab", ""); p.reads.Load() != before+1 {
			t.Errorf("%s of sb-a dropped sb-ab's client", change.name)
		}
	}
	p.resume = false
	before := p.reads.Load()
	if _, err := s.Connect(ctx, "sb-a", 0); err != nil {
		t.Fatal(err)
	}
	if envdOf("sb-a", "") != a || p.reads.Load() != before {
		t.Error("a connect that found the sandbox running dropped its client")
	}
	now = now.Add(time.Minute)
	if envdOf("sb-a", "") == a || p.reads.Load() != before+1 {
		t.Error("a client outlived KeepClients")
	}
}

// The command line keeps nothing: each call reads the sandbox.
func TestNothingIsKeptWithoutKeepClients(t *testing.T) {
	t.Parallel()
	p := &fake{url: "http://127.0.0.1:1"}
	s := service(p, 0, provider.FilesRW)
	for range 2 {
		if _, err := s.Envd(t.Context(), "sb", "", provider.FilesRW); err != nil {
			t.Fatal(err)
		}
	}
	if p.reads.Load() != 2 {
		t.Errorf("%d reads, want 2", p.reads.Load())
	}
}

// A paused sandbox's data plane is refused before anything is sent to
// it, with E2001 and no hint: the hint names the door's way to resume.
func TestAPausedSandboxsServersAreNotCalled(t *testing.T) {
	t.Parallel()
	p := &fake{url: "http://127.0.0.1:1", state: provider.StatePaused}
	s := service(p, 0, provider.ExecRun)
	_, err := s.Envd(t.Context(), "sb", "", provider.ExecRun)
	if e := abxerr.From(err); e.Code != abxerr.Paused || e.Hint != "" {
		t.Errorf("got %v (hint %q)", err, e.Hint)
	}
}

// One redirect rule for every client of a sandbox's servers, whatever
// client the door hands the service: a redirect to another origin is not
// followed, so the sandbox's token stays where it was sent.
func TestOneRedirectRule(t *testing.T) {
	t.Parallel()
	var heard atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		heard.Add(1)
		_, _ = w.Write([]byte(`{"ts":1,"cpu_count":1}`))
	}))
	t.Cleanup(elsewhere.Close)
	envd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(envd.Close)
	p := &fake{url: envd.URL}
	s := service(p, 0, provider.SandboxMetrics, provider.CodeInterpret, provider.FilesRW)
	// A door's client that follows every redirect: the service's rule
	// holds anyway.
	s.HTTPClient = func() *http.Client { return &http.Client{} }
	sm, err := s.Sample(t.Context(), Target{ID: "sb"})
	if err != nil {
		t.Fatal(err)
	}
	if e := abxerr.From(sm[0].Err); e == nil || e.Code != abxerr.BadResponse || !strings.Contains(e.Message, "another origin") {
		t.Errorf("metrics through a redirect: %v", sm[0].Err)
	}
	if _, err := s.Contexts(t.Context(), "sb"); abxerr.From(err).Code != abxerr.BadResponse {
		t.Errorf("the interpreter through a redirect: %v", err)
	}
	if heard.Load() != 0 {
		t.Errorf("the other origin heard %d requests", heard.Load())
	}
}

// A sample takes one order: envd first, then (only when envd could not be
// asked) a read of the sandbox to say why.
func TestASampleAsksEnvdFirst(t *testing.T) {
	t.Parallel()
	envd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"ts":1767366005,"cpu_count":2,"cpu_used_pct":12.5,"mem_total":1032871936,"mem_used":221249536,"disk_used":1,"disk_total":2}`))
	}))
	t.Cleanup(envd.Close)
	p := &fake{url: envd.URL}
	s := service(p, time.Minute, provider.SandboxMetrics)
	for range 2 {
		if sm, err := s.Sample(t.Context(), Target{ID: "sb"}); err != nil || sm[0].State != Running || sm[0].Figures == nil || sm[0].CPUUsedPct != 12.5 {
			t.Fatalf("sample %+v, %v", sm, err)
		}
	}
	if got := p.log(); len(got) != 0 || p.reads.Load() != 1 {
		t.Errorf("a running sandbox was read %d times and asked %q: one read for its endpoint, kept", p.reads.Load(), got)
	}
	if sm, err := s.Sample(t.Context(), Target{ID: "sb", State: Paused}); err != nil || sm[0].State != Paused || sm[0].Err != nil {
		t.Errorf("a sandbox listed as paused: %+v, %v", sm, err)
	}
}

// Run-code's rules: code to run, a language or a context (none is the
// default language), the interpreter's own error lines end the run with
// E5002 after every event was handed on.
func TestRunCodeRules(t *testing.T) {
	t.Parallel()
	var bodies []string
	var mu sync.Mutex
	interp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(b)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		_, _ = w.Write([]byte(`{"type":"stdout","text":"hi\n"}` + "\n" +
			`{"type":"error","name":"ContextRestarting","value":"Context was restarted","traceback":""}` + "\n" +
			`{"type":"end_of_execution"}` + "\n"))
	}))
	t.Cleanup(interp.Close)
	s := service(&fake{url: interp.URL}, 0, provider.CodeInterpret)
	ctx := t.Context()
	for _, tc := range []struct {
		req  codeinterp.Request
		want string
	}{
		{codeinterp.Request{Code: "  "}, "the code is required"},
		{codeinterp.Request{Code: "1", Language: "python", ContextID: "c1"}, "give language or context, not both"},
		{codeinterp.Request{Code: "1", Language: "cobol"}, `invalid language cobol`},
		{codeinterp.Request{Code: "1", ContextID: "../x"}, `invalid context "../x"`},
		{codeinterp.Request{Code: "1", EnvVars: map[string]string{"A=B": "c"}}, "cannot hold '='"},
		{codeinterp.Request{Code: "1", EnvVars: map[string]string{"A": "it's"}}, "quotes, backslashes and line breaks cannot be passed"},
	} {
		err := s.RunCode(ctx, "sb", Code{Request: tc.req}, nil)
		if e := abxerr.From(err); e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%+v: %v, want E1002 saying %q", tc.req, err, tc.want)
		}
	}
	var events []codeinterp.Event
	err := s.RunCode(ctx, "sb", Code{Request: codeinterp.Request{Code: "print('hi')", Language: "JS"}}, func(ev codeinterp.Event) error {
		events = append(events, ev)
		return nil
	})
	if e := abxerr.From(err); e.Code != abxerr.Server || e.Message != "the code interpreter ended the run: ContextRestarting: Context was restarted" {
		t.Errorf("a run the interpreter ended: %v", err)
	}
	if len(events) != 2 || !ServerEnded(events[1].Error) {
		t.Errorf("events %+v, want the output and the interpreter's error", events)
	}
	if err := s.RunCode(ctx, "sb", Code{Request: codeinterp.Request{Code: "1"}}, func(codeinterp.Event) error { return nil }); err == nil {
		t.Error("no error for a run the interpreter ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || !strings.Contains(bodies[0], `"language":"javascript"`) || !strings.Contains(bodies[1], `"language":"python"`) {
		t.Errorf("bodies %q: the language, or the default one, is always sent", bodies)
	}
}
