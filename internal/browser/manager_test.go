package browser

import (
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

func TestManager(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	srv := browsertest.Server(t, os.DirFS("testdata"))
	// Every profile the Manager creates lands here, so its processes are
	// the ones whose command line names this dir.
	tmp := privateTempDir(t)

	m := NewManager(&Options{ExecPath: exe, tempDir: tmp})
	closed := false
	defer func() {
		if !closed {
			m.Close()
		}
	}()

	if b := m.Current(); b != nil {
		t.Fatalf("Current() before any Browser call = %p, want nil", b)
	}
	// The behaviour under test is that nothing starts, which no event
	// signals: give a wrongly started browser time to appear.
	time.Sleep(100 * time.Millisecond)
	if pids := browsertest.ProcessesMatching(tmp); len(pids) > 0 {
		t.Fatalf("processes under %s before any Browser call: %v, want none", tmp, pids)
	}

	// Concurrent first calls share one start.
	const callers = 5
	var wg sync.WaitGroup
	got := make([]*Browser, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { got[i], errs[i] = m.Browser(t.Context()) })
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("Browser call %d: %v", i, errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("Browser call %d = %p, call 0 = %p; want the same *Browser", i, got[i], got[0])
		}
	}
	first := got[0]
	if profiles := profilesIn(t, tmp); len(profiles) != 1 {
		t.Errorf("profiles after %d concurrent first calls = %v, want exactly one", callers, profiles)
	}
	if m.Current() != first {
		t.Errorf("Current() = %p, want the started browser %p", m.Current(), first)
	}
	if again, err := m.Browser(t.Context()); err != nil || again != first {
		t.Errorf("Browser() again = %p, %v; want %p, nil", again, err, first)
	}

	// Kill the browser behind the Manager's back.
	oldPID, oldProfile := first.PID(), first.ProfileDir()
	if err := sysproc.KillGroup(oldPID); err != nil {
		t.Fatalf("killing process group %d: %v", oldPID, err)
	}
	select {
	case <-first.Done():
	case <-time.After(waitLimit):
		t.Fatalf("Done not closed %v after the browser was killed", waitLimit)
	}
	second, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser after the kill: %v", err)
	}
	if second == first || second.PID() == oldPID {
		t.Fatalf("Browser after the kill = %p (pid %d), want a new browser", second, second.PID())
	}
	if second.ProfileDir() != oldProfile {
		t.Errorf("new browser's profile = %s, want the dead one's %s", second.ProfileDir(), oldProfile)
	}
	tab, err := second.NewTab(t.Context())
	if err != nil {
		t.Fatalf("NewTab on the new browser: %v", err)
	}
	res, err := tab.Navigate(t.Context(), srv.URL+"/charlie.html")
	if err != nil || res.Title != "Charlie page" {
		t.Errorf("Navigate on the new browser = %+v, %v; want title %q", res, err, "Charlie page")
	}
	// Replacing the dead browser reaped it.
	waitNoProcs(t, "the dead browser's process group", inGroup(oldPID), browsertest.ProcWait)

	newProfile := second.ProfileDir()
	closed = true
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	if _, err := os.Stat(newProfile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile %s after Close: stat err = %v, want not exist", newProfile, err)
	}
	if b, err := m.Browser(t.Context()); !errors.Is(err, driver.ErrClosed) {
		t.Errorf("Browser after Close = %p, %v; want ErrClosed", b, err)
	}
	if b := m.Current(); b != nil {
		t.Errorf("Current after Close = %p, want nil", b)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if left := profilesIn(t, tmp); len(left) > 0 {
		t.Errorf("profiles left after Close: %v", left)
	}
}

// TestManagerStartError checks that a failed start is not cached: the next
// call tries again, and returns the same kind of error.
func TestManagerStartError(t *testing.T) {
	t.Parallel()
	tmp := privateTempDir(t)
	m := NewManager(&Options{ExecPath: "/bin/true", tempDir: tmp})
	defer m.Close()
	for i := range 2 {
		b, err := m.Browser(t.Context())
		if !errors.Is(err, driver.ErrNoBrowser) {
			t.Errorf("call %d: Browser = %p, %v; want ErrNoBrowser", i, b, err)
		}
	}
	if m.Current() != nil {
		t.Errorf("Current after failed starts = %p, want nil", m.Current())
	}
	if left := profilesIn(t, tmp); len(left) > 0 {
		t.Errorf("profiles left after failed starts: %v", left)
	}
}
