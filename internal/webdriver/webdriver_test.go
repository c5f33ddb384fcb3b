package webdriver

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// remote is a WebDriver remote end that records the requests it gets and
// answers POST /session with answer.
type remote struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string // guarded by mu; "METHOD /path"
}

func newRemote(t *testing.T, status int, answer string) *remote {
	r := &remote{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.Path)
		r.mu.Unlock()
		if req.Method == http.MethodPost {
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(status)
			io.WriteString(w, answer)
			return
		}
		io.WriteString(w, `{"value":null}`)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *remote) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

func TestNewSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		status        int
		answer        string
		wantCDP, addr string
		wantErr       func(error) bool
		wantReqs      []string
	}{
		{name: "grid", status: 200, answer: `{"value":{"sessionId":"s1","capabilities":{"se:cdp":"ws://grid/session/s1/se/cdp"}}}`,
			wantCDP: "ws://grid/session/s1/se/cdp", wantReqs: []string{"POST /session"}},
		{name: "chromedriver", status: 200, answer: `{"value":{"sessionId":"s2","capabilities":{"goog:chromeOptions":{"debuggerAddress":"localhost:4242"}}}}`,
			addr: "localhost:4242", wantReqs: []string{"POST /session"}},
		{name: "no cdp address", status: 200, answer: `{"value":{"sessionId":"s3","capabilities":{}}}`,
			wantErr:  func(err error) bool { return err != nil },
			wantReqs: []string{"POST /session", "DELETE /session/s3"}},
		{name: "session not created", status: 500, answer: `{"value":{"error":"session not created","message":"no slot\nBuild info: x"}}`,
			wantErr: func(err error) bool {
				var e *Error
				return errors.As(err, &e) && e.Code == "session not created" && e.Message == "no slot" && !e.Busy()
			}, wantReqs: []string{"POST /session"}},
		{name: "busy", status: 429, answer: ``,
			wantErr: func(err error) bool {
				var e *Error
				return errors.As(err, &e) && e.Busy() && e.RetryAfter == "5"
			}, wantReqs: []string{"POST /session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRemote(t, tt.status, tt.answer)
			c, err := NewClient(r.URL+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.NewSession(t.Context(), map[string]json.RawMessage{"browserName": json.RawMessage(`"chrome"`)})
			switch {
			case tt.wantErr != nil && !tt.wantErr(err):
				t.Errorf("NewSession error = %v, not the one wanted", err)
			case tt.wantErr == nil && err != nil:
				t.Fatalf("NewSession: %v", err)
			case tt.wantErr == nil && (s.CDP != tt.wantCDP || s.DebuggerAddress != tt.addr):
				t.Errorf("session = %+v, want CDP %q, debugger address %q", s, tt.wantCDP, tt.addr)
			}
			if got := r.requests(); !slices.Equal(got, tt.wantReqs) {
				t.Errorf("requests = %v, want %v", got, tt.wantReqs)
			}
		})
	}
}

func TestNewClientRejects(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "ws://h:1", "127.0.0.1:9515", "http://"} {
		if _, err := NewClient(u, nil); err == nil {
			t.Errorf("NewClient(%q) succeeded, want an error", u)
		}
	}
}

// TestLedgerReap records sessions of a dead process and of this one: Reap
// deletes only the dead one's, and its file.
func TestLedgerReap(t *testing.T) {
	t.Parallel()
	r := newRemote(t, 200, `{}`)
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	l := Ledger{Dir: t.TempDir()}
	write := func(pid int, id string) string {
		data, _ := json.Marshal(entry{URL: r.URL, ID: id, PID: pid})
		name := l.file(pid, id)
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	orphan := write(dead.Process.Pid, "orphan")
	c, _ := NewClient(r.URL, nil)
	mine := &Session{ID: "mine", c: c}
	if err := l.Add(mine); err != nil {
		t.Fatal(err)
	}
	if n := l.Reap(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil))); n != 1 {
		t.Errorf("Reap = %d, want 1", n)
	}
	if got := r.requests(); !slices.Equal(got, []string{"DELETE /session/orphan"}) {
		t.Errorf("requests = %v, want only the orphan's DELETE", got)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the orphan's ledger file is still there: %v", err)
	}
	if err := l.Remove(mine); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(l.Dir, "*"))
	if len(left) != 0 {
		t.Errorf("ledger files left: %v", left)
	}
}

// TestKeepAliveLost pings a session the remote end has forgotten: lost is
// called once, and stop still returns.
func TestKeepAliveLost(t *testing.T) {
	t.Parallel()
	var pings sync.WaitGroup
	pings.Add(1)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/session/s1/timeouts" {
			once.Do(pings.Done)
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"value":{"error":"invalid session id","message":"gone"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := NewClient(srv.URL, nil)
	s := &Session{ID: "s1", c: c}
	lost := make(chan struct{})
	stop := s.KeepAlive(time.Millisecond, func() { close(lost) })
	<-lost
	stop()
	pings.Wait()
	if err := s.Ping(t.Context()); !errors.Is(err, ErrSessionLost) {
		t.Errorf("Ping = %v, want ErrSessionLost", err)
	}
}
