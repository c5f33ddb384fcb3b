package webdriver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestLedgerKeepsNoPassword: the crash-cleanup file of a session on a
// grid reached with user:password@ holds no password (issue #40 item 14);
// the next start deletes a killed process's session with the credentials
// of its own WebDriver URL when the host is the same, and without any for
// another host.
func TestLedgerKeepsNoPassword(t *testing.T) {
	t.Parallel()
	const password = "s3cr3t-grid-pass"
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		user, pass, _ := req.BasicAuth()
		mu.Lock()
		auths = append(auths, req.Method+" "+req.URL.Path+" "+user+":"+pass)
		mu.Unlock()
		io.WriteString(w, `{"value":null}`)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("ada", password)
	withCreds := u.String()

	l := Ledger{Dir: t.TempDir()}
	c, err := NewClient(withCreds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Add(&Session{ID: "s1", c: c}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(l.Dir, "*"))
	if len(files) != 1 {
		t.Fatalf("ledger files: %v, want one", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), password) || strings.Contains(string(b), "ada") {
			t.Errorf("%s holds the credentials: %s", filepath.Base(f), b)
		}
	}

	// Entries of a killed process, reaped as the next start would: with
	// the same --webdriver-url, then with another grid's.
	os.Remove(files[0])
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := func(id string) {
		b, _ := json.Marshal(entry{URL: srv.URL, ID: id, PID: dead.Process.Pid})
		if err := os.WriteFile(l.file(dead.Process.Pid, id), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	orphan("same-host")
	if n := (Ledger{Dir: l.Dir, Credentials: withCreds}).Reap(t.Context(), log); n != 1 {
		t.Errorf("Reap with the same grid's URL = %d, want 1", n)
	}
	orphan("other-host")
	if n := (Ledger{Dir: l.Dir, Credentials: "http://bob:other@elsewhere.invalid:4444/"}).Reap(t.Context(), log); n != 1 {
		t.Errorf("Reap with another grid's URL = %d, want 1", n)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"DELETE /session/same-host ada:" + password, "DELETE /session/other-host :"}
	if strings.Join(auths, "\n") != strings.Join(want, "\n") {
		t.Errorf("the grid saw:\n%s\nwant:\n%s", strings.Join(auths, "\n"), strings.Join(want, "\n"))
	}
}
