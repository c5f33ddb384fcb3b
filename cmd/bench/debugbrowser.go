package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// debugBrowser is a Chromium the bench launched with
// --remote-debugging-port=0, for cdpkit's websocket attach to reach.
//
// # Lifetime
//
// It runs in its own process group from startDebugBrowser until Close,
// which kills the whole group. Its user-data-dir is the caller's to remove.
type debugBrowser struct {
	cmd    *exec.Cmd
	dir    string
	exited chan struct{} // closed once the process is reaped
	stderr *sysproc.Tail

	closeOnce sync.Once
}

// startDebugBrowser launches exe with user-data-dir dir and waits until
// the browser has written dir/DevToolsActivePort. The context bounds the
// wait.
func startDebugBrowser(ctx context.Context, exe, dir string, extra ...string) (*debugBrowser, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command(exe,
		"--headless", "--no-sandbox", "--remote-debugging-port=0", "--user-data-dir="+dir,
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps")
	cmd.Args = append(append(cmd.Args, extra...), "about:blank")
	// Its own group, so Close reaches renderers and helpers too; if the
	// bench dies without closing, take the browser with it.
	sysproc.SetGroup(cmd, syscall.SIGKILL)
	d := &debugBrowser{cmd: cmd, dir: dir, exited: make(chan struct{}), stderr: &sysproc.Tail{Max: 2 << 10}}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	go func() {
		cmd.Wait()
		close(d.exited)
	}()
	if err := d.waitActivePort(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// waitActivePort polls for a complete DevToolsActivePort file: the port on
// line 1, the browser's websocket path on line 2.
func (d *debugBrowser) waitActivePort(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	path := filepath.Join(d.dir, "DevToolsActivePort")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil && len(strings.Split(strings.TrimSpace(string(b)), "\n")) >= 2 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w; browser stderr: %s", path, ctx.Err(), d.stderr)
		case <-d.exited:
			return fmt.Errorf("browser exited before writing %s: %v; stderr: %s", path, d.cmd.ProcessState, d.stderr)
		case <-tick.C:
		}
	}
}

// Close kills the browser's process group and waits, a few seconds at
// most, for the browser to be reaped. It is safe to call more than once.
func (d *debugBrowser) Close() {
	d.closeOnce.Do(func() {
		// The group outlives its leader while renderers remain, so kill
		// it even when the leader has gone.
		sysproc.KillGroup(d.cmd.Process.Pid)
		select {
		case <-d.exited:
		case <-time.After(5 * time.Second):
		}
	})
}
