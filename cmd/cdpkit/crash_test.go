package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// browserPID returns the pid of the browser process c launched: the one
// process under c's TMPDIR that is no Chromium helper.
func browserPID(t *testing.T, c *child) int {
	t.Helper()
	for _, pid := range browsertest.ProcessesMatching(c.tmp) {
		if cmdline, err := sysproc.Cmdline(pid); err == nil && strings.Contains(cmdline, "--remote-debugging-pipe") && !strings.Contains(cmdline, "--type=") {
			return pid
		}
	}
	t.Fatalf("no browser process under %s", c.tmp)
	return 0
}

// waitExit waits for c's cdpkit to exit and checks it left no browser
// process and no profile.
func waitExit(t *testing.T, c *child) {
	t.Helper()
	waitExited(t, c)
	browsertest.WaitNoProcesses(t, c.tmp, browsertest.ProcWait)
	if left := profiles(t, c.tmp); len(left) > 0 {
		t.Errorf("profiles left behind: %v", left)
	}
}

// TestMCPBrowserCrash kills the browser under `cdpkit mcp`: the next call
// starts a new one and says so with sessionReset, once; SIGTERM afterwards
// still leaves nothing behind.
func TestMCPBrowserCrash(t *testing.T) {
	t.Parallel()
	// Debug logs say what the shutdown waited on, should it be slow.
	c := startMCP(t, "--log-level", "debug")
	if res := c.call(t, "list_pages", nil); res.IsError {
		t.Fatalf("list_pages: %s", text(t, res))
	}
	if err := sysproc.Kill(browserPID(t, c)); err != nil {
		t.Fatal(err)
	}
	// The kill closes the pipe; the next call sees a dead browser, or a
	// dying one whose calls fail with BROWSER_CRASHED.
	var got string
	for range 2 {
		res := c.call(t, "list_pages", nil)
		got = text(t, res)
		if !res.IsError {
			break
		}
		if !strings.HasPrefix(got, "[BROWSER_CRASHED]") {
			t.Fatalf("list_pages right after the kill = %s, want a result or BROWSER_CRASHED", got)
		}
	}
	if !strings.HasPrefix(got, "sessionReset: true\n") {
		t.Errorf("first result after the restart = %s, want it to start with sessionReset true", got)
	}
	if got := text(t, c.call(t, "list_pages", nil)); strings.Contains(got, "sessionReset") {
		t.Errorf("second result after the restart = %s, want no sessionReset", got)
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, c)
}

// TestMCPIdleShutdown checks that an idle `cdpkit mcp` stops its browser
// and removes its profile, stays up, and starts a browser on the next call.
func TestMCPIdleShutdown(t *testing.T) {
	t.Parallel()
	c := startMCPEnv(t, []string{"CDPKIT_IDLE_TIMEOUT=1s"})
	if res := c.call(t, "list_pages", nil); res.IsError {
		t.Fatalf("list_pages: %s", text(t, res))
	}
	browsertest.WaitNoProcesses(t, c.tmp, 20*time.Second)
	// The profile goes right after the processes.
	browsertest.Eventually(t, browsertest.ProcWait, func() error {
		if left := profiles(t, c.tmp); len(left) > 0 {
			return fmt.Errorf("profiles left after the idle shutdown: %v", left)
		}
		return nil
	})
	res := c.call(t, "list_pages", nil)
	if got := text(t, res); res.IsError || !strings.HasPrefix(got, "sessionReset: true\n") {
		t.Errorf("list_pages after the idle shutdown = %s, want a result with sessionReset", got)
	}
	c.session.Close()
	waitExit(t, c)
}
