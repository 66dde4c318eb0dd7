package manager

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// send is fixture.do for other goroutines: it reports instead of failing.
func send(url, method, path, body string) (int, string, error) {
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("X-API-Key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// A hook that takes its time holds up the request whose change it hears,
// not the others: it runs without the server's lock.
func TestEventsAreHeardWithoutTheLock(t *testing.T) {
	heard := make(chan string, 16)
	release := make(chan struct{})
	f := newFixtureHearing(t, func(event string, s Sandbox) {
		heard <- event + " " + s.ID
		if event == "expired" {
			<-release
		}
	})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the server's Close
	gone := f.create(`{"templateID":"base","timeout":30}`)
	kept := f.create(`{"templateID":"base","timeout":3600}`)
	for _, want := range []string{"created " + gone, "created " + kept} {
		if got := <-heard; got != want {
			t.Fatalf("heard %q, want %q", got, want)
		}
	}

	f.advance(31 * time.Second)
	// The next request expires the sandbox, and the hook holds the event.
	answered := make(chan int, 1)
	go func() {
		status, _, err := send(f.url, "GET", "/sandboxes/"+gone, "")
		if err != nil {
			t.Error(err)
		}
		answered <- status
	}()
	if got := <-heard; got != "expired "+gone {
		t.Fatalf("heard %q, want the expiry of %s", got, gone)
	}

	// Meanwhile the server answers requests that change nothing.
	listed := make(chan string, 1)
	go func() {
		status, body, err := send(f.url, "GET", "/v2/sandboxes", "")
		if status != http.StatusOK || err != nil {
			body = fmt.Sprintf("%d %s %v", status, body, err)
		}
		listed <- body
	}()
	select {
	case body := <-listed:
		if strings.Contains(body, gone) || !strings.Contains(body, kept) {
			t.Errorf("list while the hook runs: %s", body)
		}
	case <-time.After(time.Minute): // only if the hook holds the lock
		t.Fatal("the list waited for the hook")
	}
	if status, body, _ := f.do("GET", "/sandboxes/"+kept, ""); status != http.StatusOK {
		t.Errorf("get while the hook runs: %d %s", status, body)
	}
	// The request that made the change answers once the hook has heard it.
	select {
	case status := <-answered:
		t.Fatalf("the request that expired the sandbox answered (%d) before the hook returned", status)
	default:
	}
	once.Do(func() { close(release) })
	if status := <-answered; status != http.StatusNotFound {
		t.Errorf("the expired sandbox: %d", status)
	}
}

// However requests race, the hook hears the changes in the order they were
// made: the last state it heard of is the sandbox's.
func TestEventsKeepTheirOrder(t *testing.T) {
	var mu sync.Mutex
	last := ""
	f := newFixtureHearing(t, func(_ string, s Sandbox) {
		mu.Lock()
		last = s.State
		mu.Unlock()
	})
	id := f.create(`{"templateID":"base"}`)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				var err error
				if (g+i)%2 == 0 {
					_, _, err = send(f.url, "POST", "/sandboxes/"+id+"/pause", "")
				} else {
					_, _, err = send(f.url, "POST", "/sandboxes/"+id+"/connect", `{"timeout":60}`)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if state := f.srv.Sandboxes()[0].State; last != state {
		t.Errorf("the hook last heard %q, the sandbox is %q", last, state)
	}
}

// Whoever loses a race to kill a sandbox gets the second delete's 404, and
// the hook hears of one kill.
func TestOneKill(t *testing.T) {
	var mu sync.Mutex
	kills := 0
	f := newFixtureHearing(t, func(event string, _ Sandbox) {
		if event == "killed" {
			mu.Lock()
			kills++
			mu.Unlock()
		}
	})
	id := f.create(`{"templateID":"base"}`)
	statuses := make(chan int, 8)
	var wg sync.WaitGroup
	for i := 0; i < cap(statuses); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, err := send(f.url, "DELETE", "/sandboxes/"+id, "")
			if err != nil {
				t.Error(err)
			}
			statuses <- status
		}()
	}
	wg.Wait()
	close(statuses)
	ok := 0
	for status := range statuses {
		switch status {
		case http.StatusNoContent:
			ok++
		case http.StatusNotFound:
		default:
			t.Errorf("delete: %d", status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if ok != 1 || kills != 1 {
		t.Errorf("%d deletes succeeded, the hook heard %d kills; want 1 and 1", ok, kills)
	}
}
