package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

const recordPage = `<!doctype html><title>Moving</title>
<style>#b { width: 80px; height: 80px; background: #36c; animation: m .8s linear infinite alternate }
@keyframes m { to { transform: translateX(300px) } }</style><div id=b></div>`

func recordServer(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, recordPage) })
	return browsertest.ServerHandler(t, mux).URL
}

func needFFmpeg(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg is not installed (scripts/install-deps.sh installs it)")
	}
	return path
}

// TestCLIRecord records across separate `cdpkit record` invocations: the
// daemon keeps the recording between them.
func TestCLIRecord(t *testing.T) {
	needFFmpeg(t)
	t.Parallel() // each has its own state dir, TMPDIR and session
	url := recordServer(t)
	e := newCLI(t)
	e.ok(t, "open", url)
	if _, stderr, code := e.run(t, "record", "stop"); code != 1 || !strings.Contains(stderr, "NO_RECORDING") {
		t.Errorf("record stop without start: exit %d, stderr %q; want 1 and NO_RECORDING", code, stderr)
	}
	if out := e.ok(t, "record", "start"); !strings.Contains(out, "spoolDir") {
		t.Errorf("record start printed %q, want the spool dir", out)
	}
	if _, stderr, code := e.run(t, "record", "start"); code != 1 || !strings.Contains(stderr, "RECORDING_ACTIVE") {
		t.Errorf("second record start: exit %d, stderr %q; want 1 and RECORDING_ACTIVE", code, stderr)
	}
	e.ok(t, "wait_for", "--time", "1000")
	// A path on the command line is put where it says, as screenshot's
	// is; the artifact dir keeps no second copy.
	want := filepath.Join(e.tmp, "out", "flow.mp4")
	out := e.ok(t, "record", "stop", want)
	if !strings.Contains(out, want) {
		t.Errorf("record stop printed %q, want the path %s", out, want)
	}
	if fi, err := os.Stat(want); err != nil || fi.Size() == 0 {
		t.Errorf("no video at %s: %v", want, err)
	}
	if left, _ := filepath.Glob(filepath.Join(e.tmp, "artifacts", "recordings", "*.mp4")); len(left) > 0 {
		t.Errorf("the artifact dir keeps a copy: %v", left)
	}
	if _, stderr, code := e.run(t, "record", "stop"); code != 1 || !strings.Contains(stderr, "NO_RECORDING") {
		t.Errorf("second record stop: exit %d, stderr %q; want 1 and NO_RECORDING", code, stderr)
	}
	if _, stderr, code := e.run(t, "record"); code != 2 || !strings.Contains(stderr, "start, stop") {
		t.Errorf("bare record: exit %d, stderr %q; want a usage error naming start, stop", code, stderr)
	}
}

// TestCLIKillEncode kills the daemon with SIGKILL while
// ffmpeg encodes: ffmpeg goes with it. The ffmpeg reads its input at a
// twentieth of real time, so the encode is still running at the kill.
func TestCLIKillEncode(t *testing.T) {
	real := needFFmpeg(t)
	t.Parallel()
	url := recordServer(t)
	e := newCLI(t)
	slow := filepath.Join(e.tmp, "slow-ffmpeg")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec "+real+" -readrate 0.05 \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "CDPKIT_FFMPEG="+slow)
	e.ok(t, "open", url)
	e.ok(t, "record", "start")
	e.ok(t, "wait_for", "--time", "1000")
	pid := e.daemonPID(t)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	stop := exec.CommandContext(ctx, binary, "record", "stop")
	stop.Env = e.env
	var stderr bytes.Buffer
	stop.Stderr = &stderr
	if err := stop.Start(); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(e.tmp, "artifacts", "recordings") // in every encode's arguments
	browsertest.Eventually(t, 30*time.Second, func() error {
		if len(browsertest.ProcessesMatching(manifest)) == 0 {
			return fmt.Errorf("no ffmpeg encoding from %s yet", manifest)
		}
		return nil
	})
	sysproc.Kill(pid)
	waitGone(t, pid, browsertest.ProcWait)
	browsertest.WaitNoProcesses(t, manifest, browsertest.ProcWait)
	if err := stop.Wait(); err == nil {
		t.Errorf("record stop succeeded though its daemon was killed mid-encode")
	}
}

// TestMCPShutdownSavesRecording stops cdpkit while it records: the
// recording is encoded before the browser goes.
func TestMCPShutdownSavesRecording(t *testing.T) {
	needFFmpeg(t)
	t.Parallel()
	url := recordServer(t)
	c := startMCP(t)
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"navigate_page", map[string]any{"url": url}},
		{"start_screen_recording", nil},
		{"wait_for", map[string]any{"time": 1000}},
	} {
		if res := c.call(t, step.tool, step.args); res.IsError {
			t.Fatalf("%s: %s", step.tool, text(t, res))
		}
	}
	c.session.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("cdpkit did not exit within 90s")
	}
	dir := filepath.Join(c.tmp, "artifacts", "recordings")
	videos, _ := filepath.Glob(filepath.Join(dir, "screen-recording-*.mp4"))
	spools, _ := filepath.Glob(filepath.Join(dir, "spool-*"))
	if len(videos) != 1 || len(spools) != 0 {
		t.Errorf("after shutdown: videos %v, spools %v; want one video and no spool", videos, spools)
	}
}
