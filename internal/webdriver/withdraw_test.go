package webdriver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
)

// queueingGrid is a remote end whose POST /session waits, as a Grid's
// queue does while every slot is busy, until free is closed (then it
// creates session "late") or its client hangs up.
type queueingGrid struct {
	*httptest.Server
	queued chan struct{} // receives once per request that reached the queue
	free   chan struct{} // close to let queued requests through
	mu     sync.Mutex
	caps   []map[string]json.RawMessage // guarded by mu; each request's alwaysMatch
	reqs   []string                     // guarded by mu; "METHOD /path" after the queue
}

func newQueueingGrid(t *testing.T) *queueingGrid {
	g := &queueingGrid{queued: make(chan struct{}, 8), free: make(chan struct{})}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/session" {
			var body struct {
				Capabilities struct {
					AlwaysMatch map[string]json.RawMessage `json:"alwaysMatch"`
				} `json:"capabilities"`
			}
			json.NewDecoder(r.Body).Decode(&body)
			g.mu.Lock()
			g.caps = append(g.caps, body.Capabilities.AlwaysMatch)
			g.mu.Unlock()
			g.queued <- struct{}{}
			select {
			case <-g.free:
			case <-r.Context().Done():
				return
			}
			g.record(r)
			io.WriteString(w, `{"value":{"sessionId":"late","capabilities":{"se:cdp":"ws://grid/cdp"}}}`)
			return
		}
		g.record(r)
		io.WriteString(w, `{"value":null}`)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *queueingGrid) record(r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reqs = append(g.reqs, r.Method+" "+r.URL.Path)
}

func (g *queueingGrid) requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.reqs)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestNewSessionWithdrawn gives up on a queued request: NewSession says
// so at once, and the session the Grid creates later is deleted, not left
// to hold a slot for nobody.
func TestNewSessionWithdrawn(t *testing.T) {
	g := newQueueingGrid(t)
	c, _ := NewClient(g.URL, nil)
	c.Logger = quiet()
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-g.queued; cancel() }()
	_, err := c.NewSession(ctx, map[string]json.RawMessage{"browserName": json.RawMessage(`"chrome"`)})
	var we *WithdrawnError
	if !errors.As(err, &we) || !errors.Is(err, ErrWithdrawn) {
		t.Fatalf("NewSession = %v, want a WithdrawnError", err)
	}
	close(g.free) // a slot frees: the Grid creates the session
	if left := Drain(t.Context()); left != 0 {
		t.Errorf("Drain = %d requests left, want 0", left)
	}
	if got, want := g.requests(), []string{"POST /session", "DELETE /session/late"}; !slices.Equal(got, want) {
		t.Errorf("requests = %v, want %v", got, want)
	}
	g.mu.Lock()
	owner := g.caps[0][OwnerCapability]
	g.mu.Unlock()
	var o Owner
	if err := json.Unmarshal(owner, &o); err != nil || o != Self() {
		t.Errorf("the request's %s = %s, want %+v", OwnerCapability, owner, Self())
	}
}

// TestDrainCancels exits while a withdrawn request is still queued:
// Drain cancels it once its context ends, and says so.
func TestDrainCancels(t *testing.T) {
	g := newQueueingGrid(t)
	c, _ := NewClient(g.URL, nil)
	c.Logger = quiet()
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-g.queued; cancel() }()
	if _, err := c.NewSession(ctx, nil); !errors.Is(err, ErrWithdrawn) {
		t.Fatalf("NewSession = %v, want ErrWithdrawn", err)
	}
	ended, stop := context.WithCancel(t.Context())
	stop()
	if left := Drain(ended); left != 1 {
		t.Errorf("Drain = %d, want 1 request left", left)
	}
	if got := g.requests(); len(got) != 0 {
		t.Errorf("requests after the queue = %v, want none", got)
	}
}

// TestReapOrphans lists sessions on a Grid's /status: only the one whose
// owner is a cdpkit on this host that has exited is deleted.
func TestReapOrphans(t *testing.T) {
	t.Parallel()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	self := Self()
	owner := func(host string, pid int) string {
		b, _ := json.Marshal(Owner{Host: host, PID: pid})
		return `{"cdpkit:owner":` + string(b) + `}`
	}
	status := `{"value":{"ready":true,"nodes":[{"slots":[
		{"session":{"sessionId":"orphan","capabilities":` + owner(self.Host, dead.Process.Pid) + `}},
		{"session":{"sessionId":"mine","capabilities":` + owner(self.Host, self.PID) + `}},
		{"session":{"sessionId":"elsewhere","capabilities":` + owner("another-host", dead.Process.Pid) + `}},
		{"session":{"sessionId":"foreign","capabilities":{"browserName":"chrome"}}},
		{"session":null}]}]}}`
	var mu sync.Mutex
	var deleted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			io.WriteString(w, status)
		case http.MethodDelete:
			mu.Lock()
			deleted = append(deleted, r.URL.Path)
			mu.Unlock()
			io.WriteString(w, `{"value":null}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	if n := c.ReapOrphans(t.Context(), quiet()); n != 1 {
		t.Errorf("ReapOrphans = %d, want 1", n)
	}
	if want := []string{"/session/orphan"}; !slices.Equal(deleted, want) {
		t.Errorf("deleted %v, want %v", deleted, want)
	}
	busy, slots, ok := c.Capacity(t.Context())
	if !ok || busy != 4 || slots != 5 {
		t.Errorf("Capacity = %d of %d (ok %v), want 4 of 5", busy, slots, ok)
	}
}
