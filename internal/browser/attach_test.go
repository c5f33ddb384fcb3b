package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// external is a Chromium the test starts itself, as a user would, for
// cdpkit to attach to.
type external struct {
	cmd         *exec.Cmd
	userDataDir string
	port        int
	wsPath      string // /devtools/browser/<id>
}

// startExternal starts a headless Chromium with a DevTools port and waits
// for its DevToolsActivePort file. Cleanup kills its process group and
// waits for every process using its user-data-dir to exit.
func startExternal(t *testing.T) *external {
	t.Helper()
	exe := browsertest.ExecPath(t)
	dir, err := os.MkdirTemp("", "cdpkit-attach-test-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe,
		"--headless", "--remote-debugging-port=0", "--no-sandbox",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps",
		"--user-data-dir="+dir, "about:blank")
	sysproc.SetGroup(cmd, 0)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Cleanup(func() {
		sysproc.KillGroup(cmd.Process.Pid)
		cmd.Wait()
		browsertest.WaitNoProcesses(t, userDataDirArg(dir), browsertest.ProcWait)
		if err := removeProfile(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})

	e := &external{cmd: cmd, userDataDir: dir}
	browsertest.Eventually(t, time.Minute, func() error {
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if err != nil {
			return fmt.Errorf("no DevToolsActivePort in %s: %w", dir, err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 {
			return fmt.Errorf("DevToolsActivePort in %s = %q, want two lines", dir, b)
		}
		if e.port, err = strconv.Atoi(lines[0]); err != nil {
			return fmt.Errorf("DevToolsActivePort in %s: %w", dir, err)
		}
		e.wsPath = lines[1]
		return nil
	})
	return e
}

// alive reports whether the external browser is still running: not exited,
// and not a zombie waiting for us to reap it.
func (e *external) alive() bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(e.cmd.Process.Pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	return s[strings.LastIndexByte(s, ')')+2] != 'Z'
}

func TestAttach(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, os.DirFS("testdata"))
	ext := startExternal(t)
	addr := "127.0.0.1:" + strconv.Itoa(ext.port)

	tests := []struct {
		name string
		opts Options
	}{
		{"BrowserURL", Options{BrowserURL: "http://" + addr}},
		{"BrowserURL trailing slash", Options{BrowserURL: "http://" + addr + "/"}},
		{"AutoConnect", Options{AutoConnect: ext.userDataDir}},
		{"WSEndpoint", Options{WSEndpoint: "ws://" + addr + ext.wsPath}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Start(t.Context(), &tt.opts)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			defer b.Close()
			if b.Launched() || b.PID() != 0 || b.ProfileDir() != "" {
				t.Errorf("Launched() = %v, PID() = %d, ProfileDir() = %q; want false, 0, \"\" when attached",
					b.Launched(), b.PID(), b.ProfileDir())
			}

			pages, err := b.Pages(t.Context())
			if err != nil {
				t.Fatalf("Pages: %v", err)
			}
			blank := false
			for _, p := range pages {
				blank = blank || p.URL == "about:blank"
			}
			if !blank {
				t.Errorf("Pages = %+v, want the about:blank tab among them", pages)
			}

			tab, err := b.NewTab(t.Context())
			if err != nil {
				t.Fatalf("NewTab: %v", err)
			}
			res, err := tab.Navigate(t.Context(), srv.URL+"/bravo.html")
			if err != nil {
				t.Fatalf("Navigate: %v", err)
			}
			if res.Title != "Bravo page" || res.Status != 200 {
				t.Errorf("Navigate = %+v, want title %q, status 200", res, "Bravo page")
			}
			if err := b.CloseTab(t.Context(), tab); err != nil {
				t.Errorf("CloseTab: %v", err)
			}

			if err := b.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			select {
			case <-b.Done():
			case <-time.After(waitLimit):
				t.Errorf("Done not closed after Close")
			}
			// The behaviour under test is that the browser survives, which
			// no event signals: give a wrongly sent Browser.close or kill
			// time to act.
			time.Sleep(200 * time.Millisecond)
			if !ext.alive() {
				t.Fatalf("Close of an attached browser killed it (pid %d)", ext.cmd.Process.Pid)
			}
		})
	}

	// The browser still serves a new client after all those Closes.
	b, err := Start(t.Context(), &Options{BrowserURL: "http://" + addr})
	if err != nil {
		t.Fatalf("Start after the subtests: %v", err)
	}
	if _, err := b.Version(t.Context()); err != nil {
		t.Errorf("Version: %v", err)
	}
	b.Close()
}

func TestAttachErrors(t *testing.T) {
	tests := []struct {
		name     string
		opts     func(t *testing.T) Options
		wantHint string
	}{
		{
			name:     "AutoConnect without DevToolsActivePort",
			opts:     func(t *testing.T) Options { return Options{AutoConnect: t.TempDir()} },
			wantHint: "remote-debugging",
		},
		{
			name:     "AutoConnect malformed DevToolsActivePort",
			wantHint: "restart",
			opts: func(t *testing.T) Options {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), []byte("9222\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				return Options{AutoConnect: dir}
			},
		},
		{
			name:     "AutoConnect stale DevToolsActivePort",
			wantHint: "remote debugging",
			opts: func(t *testing.T) Options {
				dir := t.TempDir()
				_, port, _ := strings.Cut(closedPort(t), ":")
				content := port + "\n/devtools/browser/00000000-0000-0000-0000-000000000000\n"
				if err := os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				return Options{AutoConnect: dir}
			},
		},
		{
			name:     "BrowserURL closed port",
			opts:     func(t *testing.T) Options { return Options{BrowserURL: "http://" + closedPort(t)} },
			wantHint: "--remote-debugging-port",
		},
		{
			name:     "BrowserURL not http",
			opts:     func(t *testing.T) Options { return Options{BrowserURL: "127.0.0.1:9222"} },
			wantHint: "--browser-url",
		},
		{
			name:     "BrowserURL not DevTools",
			wantHint: "DevTools endpoint",
			opts: func(t *testing.T) Options {
				return Options{BrowserURL: browsertest.Server(t, os.DirFS("testdata")).URL}
			},
		},
		{
			name: "WSEndpoint closed port",
			opts: func(t *testing.T) Options {
				return Options{WSEndpoint: "ws://" + closedPort(t) + "/devtools/browser/x"}
			},
			wantHint: "remote debugging",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts(t)
			o.LaunchTimeout = 20 * time.Second
			b, err := Start(t.Context(), &o)
			if err == nil {
				b.Close()
				t.Fatalf("Start(%+v) succeeded, want an error", o)
			}
			if !errors.Is(err, driver.ErrNoBrowser) {
				t.Errorf("err = %v, want one matching ErrNoBrowser", err)
			}
			var nb *driver.NoBrowserError
			if !errors.As(err, &nb) {
				t.Fatalf("err = %T, want *NoBrowserError", err)
			}
			if !strings.Contains(nb.Hint, tt.wantHint) {
				t.Errorf("Hint = %q, want it to contain %q", nb.Hint, tt.wantHint)
			}
			// Failed on what it found, not at its launch timeout.
			if strings.Contains(err.Error(), "deadline exceeded") {
				t.Errorf("Start failed at its %v launch timeout (%v), want at once on what it found", o.LaunchTimeout, err)
			}
		})
	}
}
