package browsertest

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// recordingTB captures Errorf, Fatalf and Skip instead of acting on them, so
// the helpers' failure paths can be tested without failing this test.
type recordingTB struct {
	testing.TB
	errors, fatals, skips []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Skip(args ...any) { r.skips = append(r.skips, fmt.Sprint(args...)) }

// startSleep starts `sleep 30.<unique>` and returns it with the argument that
// identifies it.
func startSleep(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	arg := fmt.Sprintf("30.%d%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command("sleep", arg)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, arg
}

func TestProcessesMatching(t *testing.T) {
	cmd, arg := startSleep(t)

	if got, want := ProcessesMatching("sleep "+arg), []int{cmd.Process.Pid}; !slices.Equal(got, want) {
		t.Fatalf("ProcessesMatching(%q) = %v, want %v", "sleep "+arg, got, want)
	}

	// Kill without reaping: the process stays a zombie until Wait, and
	// zombies must not count.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	WaitNoProcesses(t, arg, ProcWait)
}

func TestProcessesMatchingExcludesSelf(t *testing.T) {
	if got := ProcessesMatching(os.Args[0]); slices.Contains(got, os.Getpid()) {
		t.Errorf("ProcessesMatching(os.Args[0]) = %v, includes own pid %d", got, os.Getpid())
	}
}

func TestWaitNoProcessesReportsSurvivors(t *testing.T) {
	cmd, arg := startSleep(t)

	rec := &recordingTB{TB: t}
	WaitNoProcesses(rec, arg, 100*time.Millisecond)
	if len(rec.errors) != 1 {
		t.Fatalf("got %d errors %q, want 1", len(rec.errors), rec.errors)
	}
	for _, want := range []string{fmt.Sprintf("pid %d:", cmd.Process.Pid), "sleep " + arg} {
		if !strings.Contains(rec.errors[0], want) {
			t.Errorf("error %q does not contain %q", rec.errors[0], want)
		}
	}
}

func TestProcState(t *testing.T) {
	tests := []struct {
		stat string
		want byte
	}{
		{"123 (sleep) S 1 123", 'S'},
		{"123 (sleep) Z 1 123", 'Z'},
		{"123 (a) Z (b) R 1 123", 'R'}, // command name with ") Z (" inside
		{"123 (sleep)", 0},
		{"garbage", 0},
	}
	for _, tt := range tests {
		if got := sysproc.State(tt.stat); got != tt.want {
			t.Errorf("State(%q) = %q, want %q", tt.stat, got, tt.want)
		}
	}
}

func TestExecPath(t *testing.T) {
	tests := []struct {
		name         string
		chromiumPath string
		require      string
		want         string
		wantFatal    bool
		wantSkip     bool
	}{
		{name: "env wins", chromiumPath: "/opt/chromium/chrome", want: "/opt/chromium/chrome"},
		{name: "missing skips", wantSkip: true},
		{name: "missing fails when required", require: "1", wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CHROMIUM_PATH", tt.chromiumPath)
			t.Setenv(RequireEnv, tt.require)
			t.Setenv("PATH", t.TempDir()) // no browser to find

			rec := &recordingTB{TB: t}
			if got := ExecPath(rec); got != tt.want {
				t.Errorf("ExecPath() = %q, want %q", got, tt.want)
			}
			if got := len(rec.fatals) > 0; got != tt.wantFatal {
				t.Errorf("fatal = %v (%q), want %v", got, rec.fatals, tt.wantFatal)
			}
			if got := len(rec.skips) > 0; got != tt.wantSkip {
				t.Errorf("skipped = %v (%q), want %v", got, rec.skips, tt.wantSkip)
			}
			for _, msg := range slices.Concat(rec.fatals, rec.skips) {
				if !strings.Contains(msg, "scripts/install-browser.sh") {
					t.Errorf("message %q does not name scripts/install-browser.sh", msg)
				}
			}
		})
	}
}

func TestServer(t *testing.T) {
	srv := Server(t, fstest.MapFS{
		"page.html": {Data: []byte("<p>hello</p>")},
	})
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q, want http://127.0.0.1:…", srv.URL)
	}

	tests := []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/page.html", http.StatusOK, "<p>hello</p>"},
		{"/missing.html", http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, body := get(t, srv.Client(), srv.URL+tt.path)
			if status != tt.wantStatus {
				t.Errorf("GET %s: status %d, want %d", tt.path, status, tt.wantStatus)
			}
			if tt.wantBody != "" && body != tt.wantBody {
				t.Errorf("GET %s: body %q, want %q", tt.path, body, tt.wantBody)
			}
		})
	}
}

func TestServerHandlerClosesOnCleanup(t *testing.T) {
	var url string
	var client *http.Client
	t.Run("serve", func(t *testing.T) {
		srv := ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		}))
		url, client = srv.URL, srv.Client()
		if status, body := get(t, client, url); status != http.StatusOK || body != "ok" {
			t.Errorf("GET /: %d %q, want 200 %q", status, body, "ok")
		}
	})

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("GET after subtest cleanup succeeded, want the server closed")
	}
}

func get(t *testing.T, client *http.Client, url string) (status int, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// TestEveryPackageChecksLeaks checks that each package of the module (not
// of a module nested in it, such as examples/) with
// tests has a TestMain that runs them through Main, so that the goroutine
// leak check covers packages added later too.
func TestEveryPackageChecksLeaks(t *testing.T) {
	root := filepath.Join("..", "..")
	tested := map[string]bool{} // dir → has a TestMain calling Main
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module (examples/): not this module's tests
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(b)
		has := strings.Contains(src, "func TestMain(") && (strings.Contains(src, "browsertest.Main(m") || strings.Contains(src, "{ Main(m"))
		tested[dir] = tested[dir] || has
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range tested {
		if !ok {
			t.Errorf("%s has tests but no TestMain running them through browsertest.Main (the goroutine-leak check)", dir)
		}
	}
}
