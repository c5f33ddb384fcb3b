package lighthouse

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// Categories are Lighthouse's four categories, in report order.
var Categories = []string{"performance", "accessibility", "best-practices", "seo"}

// Audit says what to audit and where.
type Audit struct {
	URL string
	// Port is the loopback debugging port of the browser to audit in; the
	// caller owns that browser, and Lighthouse opens its own tab there.
	Port int
	// Categories to run; empty means all four.
	Categories []string
	// FormFactor is "mobile" (the default) or "desktop".
	FormFactor string
	// OutDir receives report.report.json and report.report.html.
	OutDir string
}

// Files are the reports a run wrote.
type Files struct {
	JSON string
	HTML string
}

// Run runs Lighthouse's CLI with node against the browser at a.Port and
// returns the paths of its reports. The context bounds the run: when it
// ends, the node process (and its children) are killed. stage, if not
// nil, hears Lighthouse's own status lines ("Loading page & waiting for
// onload") as the run goes; it must not block.
func (r *Runner) Run(ctx context.Context, node, cli string, a Audit, stage func(string)) (*Files, error) {
	if a.Port <= 0 {
		return nil, errors.New("lighthouse: no debugging port")
	}
	base := filepath.Join(a.OutDir, "report")
	args := []string{cli, a.URL,
		"--port=" + strconv.Itoa(a.Port), "--hostname=127.0.0.1",
		"--output=json", "--output=html", "--output-path=" + base,
		"--no-enable-error-reporting", // no reports to Google from the node process
		"--max-wait-for-load=" + strconv.Itoa(maxWaitForLoad(ctx)),
	}
	if len(a.Categories) > 0 {
		args = append(args, "--only-categories="+strings.Join(a.Categories, ","))
	}
	if a.FormFactor == "desktop" {
		args = append(args, "--preset=desktop")
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = a.OutDir
	// CI keeps Lighthouse from prompting; HOME-less runs still write only
	// into OutDir.
	cmd.Env = append(os.Environ(), "CI=1")
	cmd.WaitDelay = 5 * time.Second
	// Node and whatever it starts form a group of their own, killed whole
	// when ctx ends.
	sysproc.SetGroup(cmd, syscall.SIGKILL)
	cmd.Cancel = func() error { return sysproc.KillGroup(cmd.Process.Pid) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &UnavailableError{Reason: "starting node: " + err.Error(), Hint: InstallHint}
	}
	tail := make([]string, 0, 8) // the last lines, for an error
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if len(tail) == cap(tail) {
			tail = append(tail[:0], tail[1:]...)
		}
		tail = append(tail, line)
		if s, ok := statusLine(line); ok && stage != nil {
			stage(s)
		}
	}
	err = cmd.Wait()
	sysproc.KillGroup(cmd.Process.Pid) // stragglers of a run that ended
	if ctx.Err() != nil {
		return nil, fmt.Errorf("lighthouse: auditing %s: %w", a.URL, ctx.Err())
	}
	if err != nil {
		return nil, &RunError{Err: err, Tail: strings.Join(tail, "\n")}
	}
	f := &Files{JSON: base + ".report.json", HTML: base + ".report.html"}
	for _, p := range []string{f.JSON, f.HTML} {
		if _, err := os.Stat(p); err != nil {
			return nil, &RunError{Err: fmt.Errorf("no report at %s", p), Tail: strings.Join(tail, "\n")}
		}
	}
	return f, nil
}

// RunError is a Lighthouse run that failed, with the last lines it wrote.
type RunError struct {
	Err  error
	Tail string
}

func (e *RunError) Error() string {
	msg := "lighthouse: the audit failed: " + e.Err.Error()
	if t := lastLines([]byte(e.Tail), 2); t != "" {
		msg += ": " + t
	}
	return msg
}

func (e *RunError) Unwrap() error { return e.Err }

// maxWaitForLoad is how long Lighthouse waits for the page to load, in ms:
// its default (45 s) or less, leaving room within ctx for the rest of the
// run.
func maxWaitForLoad(ctx context.Context) int {
	ms := 45000
	if d, ok := ctx.Deadline(); ok {
		ms = min(ms, max(5000, int(time.Until(d).Milliseconds()/2)))
	}
	return ms
}

// statusLine picks Lighthouse's status lines out of its log ("LH:status
// Loading page & waiting for onload").
func statusLine(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, "LH:status ")
	if !ok {
		return "", false
	}
	if rest = strings.TrimSpace(rest); rest == "" {
		return "", false
	}
	return "lighthouse: " + rest, true
}

// lastLines returns the last n non-empty lines of out, joined by " / ".
func lastLines(out []byte, n int) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	s := strings.Join(keep, " / ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
