package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// runIn is run from dir, as a CLI call made in that directory.
func (e *cliEnv) runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env, cmd.Dir = e.env, dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("cdpkit %s: no exit within 90s", strings.Join(args, " "))
	}
	if code = cmd.ProcessState.ExitCode(); err != nil && code < 0 {
		t.Fatalf("cdpkit %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// TestCLIRoughEdges checks the CLI rough edges of issue #24 item 13 end to
// end, on one daemon: upload roots follow each call's directory, not the
// one that started the daemon; forward and --timeout_ms; --params, with
// --json '{…}' still working with a deprecation note; tabs shows tab ids
// (and pageIds); a daemon flag on a running session and EVAL_DISABLED
// both say to run cdpkit close first.
func TestCLIRoughEdges(t *testing.T) {
	t.Parallel()
	e := newCLI(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Upload</title><input type=file id=f><a href="/two">two</a>`)
	})
	mux.HandleFunc("/two", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Second</title><h1>Two</h1>`)
	})
	url := browsertest.ServerHandler(t, mux).URL
	first, second := filepath.Join(e.tmp, "first"), filepath.Join(e.tmp, "second")
	for _, dir := range []string{first, second} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(dir)+".txt"), []byte(dir), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The daemon starts from first; a call from second uploads second's
	// file, and may no longer take first's.
	if _, stderr, code := e.runIn(t, first, "open", url); code != 0 {
		t.Fatalf("open from %s: exit %d: %s", first, code, stderr)
	}
	if _, stderr, code := e.runIn(t, second, "upload_file", "--selector", "#f", "--paths", "second.txt"); code != 0 {
		t.Errorf("upload of second.txt from %s: exit %d: %s", second, code, stderr)
	}
	_, stderr, code := e.runIn(t, second, "upload_file", "--selector", "#f", "--paths", filepath.Join(first, "first.txt"))
	if code != 1 || !strings.HasPrefix(stderr, "[UNSAFE_PATH]") {
		t.Errorf("upload of the starting directory's file from %s: exit %d, stderr %q; want [UNSAFE_PATH]", second, code, stderr)
	}
	if _, stderr, code := e.runIn(t, first, "upload_file", "--selector", "#f", "--paths", "first.txt"); code != 0 {
		t.Errorf("upload of first.txt from %s: exit %d: %s", first, code, stderr)
	}

	e.ok(t, "open", url+"/two")
	e.ok(t, "back", "--timeout_ms", "30000")
	if got := e.ok(t, "forward"); !strings.Contains(got, "title: Second") {
		t.Errorf("forward printed %q, want the second page", got)
	}

	out, stderr, code := e.run(t, "take_snapshot", "--json", `{"interactive":true}`)
	if code != 0 || !strings.Contains(out, "title: Second") || !strings.Contains(stderr, "deprecated") || !strings.Contains(stderr, "--params") {
		t.Errorf("take_snapshot --json {…}: exit %d, stdout %q, stderr %q; want the snapshot and a note naming --params", code, out, stderr)
	}
	out, stderr, code = e.run(t, "take_snapshot", "--params", `{"interactive":true}`)
	if code != 0 || !strings.Contains(out, "title: Second") || strings.Contains(stderr, "deprecated") {
		t.Errorf("take_snapshot --params {…}: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	var tabs struct {
		Pages []struct {
			ID     string `json:"id"`
			PageID int    `json:"pageId"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(e.ok(t, "tabs", "--json")), &tabs); err != nil || len(tabs.Pages) != 1 {
		t.Fatalf("tabs --json: %+v, %v; want one tab", tabs, err)
	}
	tab := tabs.Pages[0]
	if got := e.ok(t, "tabs"); tab.ID == "" || tab.PageID < 1 || !strings.Contains(got, tab.ID) || !strings.Contains(got, fmt.Sprintf("pageId:%d", tab.PageID)) {
		t.Errorf("tabs printed %q, want the tab's id %q and pageId %d", got, tab.ID, tab.PageID)
	}

	if _, stderr, code := e.run(t, "--allow-eval", "tabs"); code != 0 || !strings.Contains(stderr, "already running") || !strings.Contains(stderr, "cdpkit close") {
		t.Errorf("--allow-eval on a running session: exit %d, stderr %q; want a note to run cdpkit close first", code, stderr)
	}
	if _, stderr, code := e.run(t, "eval", "1+1"); code != 1 || !strings.HasPrefix(stderr, "[EVAL_DISABLED]") || !strings.Contains(stderr, "cdpkit close") {
		t.Errorf("eval without --allow-eval: exit %d, stderr %q; want EVAL_DISABLED with a hint to run cdpkit close", code, stderr)
	}
}

// TestDoctorNeverAdvisesDoctor checks that doctor's fixes never tell the
// user to run doctor (issue #24 item 13), for a browser that is missing and
// one that exits at once.
func TestDoctorNeverAdvisesDoctor(t *testing.T) {
	t.Parallel()
	for _, exe := range []string{filepath.Join(t.TempDir(), "no-such-chromium"), "/bin/true"} {
		var out, errb bytes.Buffer
		code := runDoctor(t.Context(), []string{"--executable-path", exe}, &out, &errb)
		if code != 1 || !strings.Contains(out.String(), "FAIL") {
			t.Errorf("doctor with %s: exit %d, output %q; want 1 and a FAIL line", exe, code, out.String())
		}
		if text := out.String() + errb.String(); strings.Contains(text, "doctor") {
			t.Errorf("doctor with %s mentions doctor:\n%s", exe, text)
		}
	}
}
