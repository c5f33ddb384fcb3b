package firefox

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// TestLaunchCloseLeavesNothing launches and closes its own Firefoxes: each
// close leaves no process of it and no profile. CDPKIT_FIREFOX_CYCLES sets
// how many (the leak check runs 20).
func TestLaunchCloseLeavesNothing(t *testing.T) {
	exe := browsertest.FirefoxPath(t)
	cycles := 2
	if n, err := strconv.Atoi(os.Getenv("CDPKIT_FIREFOX_CYCLES")); err == nil && n > 0 {
		cycles = n
	}
	for i := range cycles {
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		b, err := Launch(ctx, &Options{ExecPath: exe, LaunchTimeout: 90 * time.Second})
		cancel()
		if err != nil {
			t.Fatalf("cycle %d: Launch: %v", i, err)
		}
		pid, profile := b.PID(), b.Profile()
		if pid == 0 || profile == "" {
			t.Fatalf("cycle %d: got pid %d profile %q", i, pid, profile)
		}
		if b.Version() == "" {
			t.Errorf("cycle %d: no browser version from session.new", i)
		}
		if err := b.Close(); err != nil {
			t.Fatalf("cycle %d: Close: %v", i, err)
		}
		if sysproc.Alive(pid) {
			t.Errorf("cycle %d: firefox pid %d alive after Close", i, pid)
		}
		browsertest.WaitNoProcesses(t, profile, browsertest.ProcWait)
		if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cycle %d: profile %s still there after Close (%v)", i, profile, err)
		}
		if err := b.conn.Call(t.Context(), "session.status", nil, nil); !errors.Is(err, bidi.ErrDisconnected) {
			t.Errorf("cycle %d: call after Close: got %v, want ErrDisconnected", i, err)
		}
	}
}

// TestBackendRelaunchesAfterCrash kills a Backend's Firefox: the next
// Driver call starts a new one.
func TestBackendRelaunchesAfterCrash(t *testing.T) {
	exe := browsertest.FirefoxPath(t)
	be := NewBackend(&Options{ExecPath: exe, LaunchTimeout: 90 * time.Second})
	defer be.Close()
	first, err := be.Browser(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	pid := first.PID()
	first.proc.tree.Kill()
	<-first.Done()
	second, err := be.Browser(t.Context())
	if err != nil {
		t.Fatalf("after the crash: %v", err)
	}
	if second == first || second.PID() == pid {
		t.Fatalf("got the dead browser back")
	}
	if sysproc.Alive(pid) {
		t.Errorf("the crashed firefox %d was not reaped", pid)
	}
	if err := be.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := be.Browser(t.Context()); err == nil {
		t.Error("Browser after Close: got nil error")
	}
}

// TestAttachWSEndpoint attaches to a Firefox cdpkit did not launch (here
// one launched and let go): tabs work, and Close ends the session but
// leaves Firefox running.
func TestAttachWSEndpoint(t *testing.T) {
	exe := browsertest.FirefoxPath(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	p, conn, err := launch(ctx, &Options{ExecPath: exe, LaunchTimeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close(nil)
	// Let go of the launch's session: Firefox allows one at a time.
	if err := conn.Call(ctx, "session.end", nil, nil); err != nil {
		t.Fatalf("session.end: %v", err)
	}
	conn.Close()

	b, err := Launch(ctx, &Options{WSEndpoint: p.url})
	if err != nil {
		t.Fatalf("attaching to %s: %v", p.url, err)
	}
	if b.PID() != 0 || b.Profile() != "" {
		t.Errorf("attached browser reports pid %d profile %q; want none", b.PID(), b.Profile())
	}
	srv := browsertest.Server(t, testPages)
	td, err := b.NewTab(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nav, err := td.Navigate(ctx, srv.URL+"/other.html"); err != nil || nav.Title != "Other" {
		t.Fatalf("Navigate on an attached Firefox: %+v, %v", nav, err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-p.exited:
		t.Fatal("closing an attached Firefox stopped it")
	default:
	}
}

// TestManagerIdleStopsFirefox: a Manager over the Firefox backend stops
// Firefox after IdleTimeout without a call, and the next call starts one.
func TestManagerIdleStopsFirefox(t *testing.T) {
	exe := browsertest.FirefoxPath(t)
	be := NewBackend(&Options{ExecPath: exe, LaunchTimeout: 90 * time.Second})
	m := browser.NewManager(&browser.Options{Backend: be, IdleTimeout: 200 * time.Millisecond})
	defer m.Close()
	release := m.Use()
	if _, err := m.Driver(t.Context()); err != nil {
		t.Fatal(err)
	}
	first, _ := be.Browser(t.Context())
	pid := first.PID()
	release()
	browsertest.Eventually(t, 30*time.Second, func() error {
		if sysproc.Alive(pid) {
			return errors.New("firefox still running after the idle timeout")
		}
		return nil
	})
	release = m.Use()
	defer release()
	d, err := m.Driver(t.Context())
	if err != nil {
		t.Fatalf("Driver after the idle stop: %v", err)
	}
	if d.(*Browser).PID() == pid {
		t.Error("got the stopped Firefox back")
	}
}
