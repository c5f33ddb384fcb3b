package lighthouse

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testdata/report.json is a Lighthouse 12.8.2 report of a page with a big
// render-blocking script, recorded by lighthouse_audit and cut to the
// fields cdpkit reads. The expectations were computed from it with an
// independent script.
func TestSummarizeReport(t *testing.T) {
	f, err := os.Open("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Summarize(f, 10)
	if err != nil {
		t.Fatal(err)
	}
	score := func(v int) *int { return &v }
	if diff := cmp.Diff(map[string]*int{"performance": score(84), "accessibility": score(60), "best-practices": score(93), "seo": score(75)}, s.Scores); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	if s.Version != "12.8.2" || !strings.HasPrefix(s.URL, "http://127.0.0.1:") || s.RuntimeError != "" {
		t.Errorf("version %q, url %q, runtime error %q", s.Version, s.URL, s.RuntimeError)
	}
	if len(s.Failing) != 10 {
		t.Fatalf("%d failing audits, want 10 (of 18)", len(s.Failing))
	}
	var ids []string
	for _, a := range s.Failing[:4] {
		ids = append(ids, a.ID)
	}
	if diff := cmp.Diff([]string{"render-blocking-resources", "uses-text-compression", "unminified-javascript", "cache-insight"}, ids); diff != "" {
		t.Errorf("heaviest failing audits (-want +got):\n%s", diff)
	}
	if a := s.Failing[1]; a.SavingsMs != 1800 || a.SavingsBytes != 377026 || a.Title == "" {
		t.Errorf("uses-text-compression = %+v, want 1800 ms and 377026 bytes saved", a)
	}
}

func TestSummarizeReportErrors(t *testing.T) {
	s, err := Summarize(strings.NewReader(`{"lighthouseVersion":"12.8.2","runtimeError":{"code":"ERRORED_DOCUMENT_REQUEST","message":"status 500"},
"categories":{"performance":{"score":null},"seo":{"score":1}},"audits":{"x":{"id":"x","score":0,"scoreDisplayMode":"informative"}}}`), 10)
	if err != nil {
		t.Fatal(err)
	}
	if s.Scores["performance"] != nil || s.Scores["seo"] == nil || *s.Scores["seo"] != 100 || len(s.Failing) != 0 ||
		s.RuntimeError != "ERRORED_DOCUMENT_REQUEST: status 500" {
		t.Errorf("summary %+v: want a null performance score, seo 100, no failing audits and the runtime error", s)
	}
	if _, err := Summarize(strings.NewReader("<html>"), 10); err == nil {
		t.Error("a non-JSON report: no error")
	}
}

func TestStatusLine(t *testing.T) {
	for _, tc := range []struct {
		line, want string
		ok         bool
	}{
		{"  LH:status Loading page & waiting for onload +1s", "lighthouse: Loading page & waiting for onload +1s", true},
		{"LH:ChromeLauncher Waiting for browser.", "", false},
		{"LH:status ", "", false},
	} {
		got, ok := statusLine(tc.line)
		if got != tc.want || ok != tc.ok {
			t.Errorf("statusLine(%q) = %q, %v; want %q, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMaxWaitForLoad(t *testing.T) {
	if got := maxWaitForLoad(context.Background()); got != 45000 {
		t.Errorf("without a deadline: %d, want 45000", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if got := maxWaitForLoad(ctx); got > 10000 || got < 5000 {
		t.Errorf("with 20 s left: %d, want half of it", got)
	}
}

func TestEnsureMissing(t *testing.T) {
	for _, missing := range []string{"node", "npm"} {
		r := &Runner{CacheDir: t.TempDir(), LookPath: func(file string) (string, error) {
			if file == missing {
				return "", exec.ErrNotFound
			}
			return "/usr/bin/" + file, nil
		}}
		_, _, err := r.Ensure(t.Context(), nil)
		var ue *UnavailableError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnavailable) || !strings.Contains(ue.Reason, missing) || ue.Hint == "" {
			t.Errorf("without %s: error %v, want an UnavailableError naming it, with a hint", missing, err)
		}
	}
}

// TestEnsureInstalls runs Ensure with a fake npm (a shell script that
// writes the CLI's file where npm would, and counts its runs): concurrent
// first calls share one install, which lands in the cache dir whole, and
// later calls find it there.
func TestEnsureInstalls(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	bin := t.TempDir()
	count := filepath.Join(bin, "runs")
	npm := filepath.Join(bin, "npm")
	script := `#!/bin/sh
echo run >> "` + count + `"
while [ "$1" != "--prefix" ]; do shift; done
mkdir -p "$2/node_modules/lighthouse/cli" && echo '// cli' > "$2/node_modules/lighthouse/cli/index.js"
`
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	r := &Runner{CacheDir: cache, LookPath: func(file string) (string, error) {
		if file == "npm" {
			return npm, nil
		}
		return "/usr/bin/" + file, nil
	}}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	clis := make([]string, 3)
	for i := range 3 {
		wg.Go(func() { _, clis[i], errs[i] = r.Ensure(t.Context(), nil) })
	}
	wg.Wait()
	want := filepath.Join(cache, Version, "node_modules", "lighthouse", "cli", "index.js")
	for i := range 3 {
		if errs[i] != nil || clis[i] != want {
			t.Errorf("Ensure #%d = %q, %v; want %q", i, clis[i], errs[i], want)
		}
	}
	if _, _, err := r.Ensure(t.Context(), func(string) { t.Error("installing again") }); err != nil {
		t.Error(err)
	}
	runs, _ := os.ReadFile(count)
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("npm ran %d times, want once", n)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "install-*"))
	if len(left) > 0 {
		t.Errorf("temporary install dirs left: %q", left)
	}
}
