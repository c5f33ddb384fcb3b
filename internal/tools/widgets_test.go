package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// The widget suite (issue #36 item 5): tasks on pages built from real,
// unmodified widget libraries, each driven through the tools by a scripted
// policy that reads refs only from snapshots and action results, as an
// agent does, and then checked by reading the page's state.

// widgetLibs are the npm packages the widget pages load, pinned here and
// nowhere else: the install's cache dir is named after this list.
var widgetLibs = []string{
	"flatpickr@4.6.13",
	"tom-select@2.6.2",
	"@shoelace-style/shoelace@2.20.1",
	"sortablejs@1.15.7",
	"quill@2.0.3",
	"tabulator-tables@6.5.3",
	"nouislider@15.8.1",
	"bootstrap@5.3.9",
}

// npmSet is a pinned list of npm packages that a test suite serves to its
// pages, installed once per package run.
type npmSet struct {
	name string   // names the cache dir: npm-<name>-<hash of libs>
	libs []string // name@version, pinned here and nowhere else
	once sync.Once
	dir  string // node_modules
	err  error
	skip string // why the suite cannot run here
}

// widgetNPM holds the result of the package's one install of widgetLibs.
var widgetNPM = &npmSet{name: "widgets", libs: widgetLibs}

// widgetModules returns the node_modules dir holding widgetLibs.
func widgetModules(t *testing.T) string {
	t.Helper()
	return widgetNPM.modules(t)
}

// modules returns the node_modules dir holding s's packages, installing
// them with npm on first use into the user cache dir (outside the repo;
// later runs reuse it). It skips the test when npm is absent, unless
// CDPKIT_REQUIRE_BROWSER=1 (CI), where that is a failure.
func (s *npmSet) modules(t *testing.T) string {
	t.Helper()
	s.once.Do(func() {
		if _, err := exec.LookPath("npm"); err != nil {
			s.skip = fmt.Sprintf("npm not found: %v", err)
			return
		}
		s.dir, s.err = s.install()
	})
	if s.skip != "" {
		if os.Getenv(browsertest.RequireEnv) == "1" {
			t.Fatalf("npm is required (%s=1): %s", browsertest.RequireEnv, s.skip)
		}
		t.Skip(s.skip)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.dir
}

// install installs s.libs into
// <cache>/cdpkit-test/npm-<name>-<hash of the list>, unless it is there.
func (s *npmSet) install() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(strings.Join(s.libs, "\n")))
	parent := filepath.Join(cache, "cdpkit-test")
	dir := filepath.Join(parent, "npm-"+s.name+"-"+hex.EncodeToString(sum[:6]))
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(modules); err == nil {
		return modules, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	// Install beside it and rename into place, so that a concurrent or
	// interrupted install never leaves a half-filled dir behind.
	tmp, err := os.MkdirTemp(parent, "npm-install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--prefix", tmp}, s.libs...)
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v\n%s", strings.Join(s.libs, " "), err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(modules); statErr != nil {
			return "", fmt.Errorf("installing %s into %s: %w", strings.Join(s.libs, " "), dir, err)
		}
	}
	return modules, nil
}

// widgetSite serves the widget pages (testdata/widgets), the libraries
// under /npm/, and an attachment under /download/, on loopback only. The
// same server reached as localhost is another origin (checkout.html's
// payment frame).
func widgetSite(t *testing.T) string {
	t.Helper()
	modules := widgetModules(t)
	mux := http.NewServeMux()
	mux.Handle("/npm/", http.StripPrefix("/npm/", http.FileServerFS(os.DirFS(modules))))
	mux.HandleFunc("/download/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="`+filepath.Base(r.URL.Path)+`"`)
		w.Header().Set("Content-Type", "text/csv")
		io.WriteString(w, "item,price\nTrail shoe,89\n")
	})
	mux.Handle("/", http.FileServerFS(os.DirFS(filepath.Join("testdata", "widgets"))))
	return browsertest.ServerHandler(t, mux).URL
}

// widgetAgent is the scripted policy's view of one task: it calls tools
// as an agent would and counts the calls and the characters of their
// results' text (what a model would read). Checks of the page's state
// (check) are the test's, not the agent's, and are not counted.
type widgetAgent struct {
	t     *testing.T
	h     *harness
	calls int
	chars int
	// peer, if set, runs the calls through Playwright MCP instead, for
	// comparison (widgets_peer_test.go); focused is the ref it last
	// clicked or typed into.
	peer    *playwrightPeer
	focused string
}

// try calls a tool and returns its result's text.
func (a *widgetAgent) try(tool, args string) (string, error) {
	a.t.Helper()
	if a.peer != nil {
		a.calls++
		return a.peer.call(a, tool, args)
	}
	res, err := a.h.result(a.t, tool, args)
	a.calls++
	if err != nil {
		a.chars += len(err.Error())
		a.t.Logf("%s %s → error %v", tool, args, err)
		return "", err
	}
	text, err := res.Render()
	if err != nil {
		a.t.Fatal(err)
	}
	a.chars += len(text)
	a.t.Logf("%s %s →\n%s", tool, args, text)
	return text, nil
}

// do is try failing the task on an error.
func (a *widgetAgent) do(tool, args string) string {
	a.t.Helper()
	text, err := a.try(tool, args)
	if err != nil {
		a.t.Fatalf("%s %s: %v", tool, args, err)
	}
	return text
}

// snapshot takes a snapshot.
func (a *widgetAgent) snapshot() string {
	a.t.Helper()
	return a.do("take_snapshot", `{}`)
}

// ref returns the ref of the first line of text (a snapshot or an
// action's result) naming role "name" (any role if role is ""), failing
// the task if there is none.
func (a *widgetAgent) ref(text, role, name string) string {
	a.t.Helper()
	if r := a.findRef(text, role, name); r != "" {
		return r
	}
	a.t.Fatalf("no ref for %s %q in:\n%s", role, name, text)
	return ""
}

// find is ref where a person would look again: when text (an action's
// result) does not show role "name", take a snapshot and look for it, then
// for anything else showing the name (a label); when there is none, wait
// for the name's text to appear and take another.
func (a *widgetAgent) find(text, role, name string) string {
	a.t.Helper()
	if r := a.findRef(text, role, name); r != "" {
		return r
	}
	snap := a.snapshot()
	if r := a.findRef(snap, role, name); r != "" {
		return r
	}
	// What shows the name without the role, such as a control's label.
	if r := a.findRef(snap, "", name); r != "" && role != "" {
		return r
	}
	if _, err := a.try("wait_for", fmt.Sprintf(`{"text":[%q]}`, name)); err != nil {
		a.t.Fatalf("no %s %q on the page", role, name)
	}
	// The text is in the page, but what shows it may still be opening
	// (an accordion's collapse animation): look again a few times, as an
	// agent would.
	for range 10 {
		snap = a.snapshot()
		if r := a.findRef(snap, role, name); r != "" {
			return r
		}
		if _, err := a.try("wait_for", `{"time":300}`); err != nil {
			break
		}
	}
	return a.ref(a.snapshot(), role, name)
}

// findRef returns the ref of the first line of text naming role "name",
// or "", in the snapshot format of the tools the agent uses.
func (a *widgetAgent) findRef(text, role, name string) string {
	if a.peer != nil {
		return pwRef(text, role, name)
	}
	return findRef(text, role, name)
}

// findRef returns the ref of the first line of cdpkit's text naming role
// "name", or "".
func findRef(text, role, name string) string {
	r := `\S+`
	if role != "" {
		r = regexp.QuoteMeta(role)
	}
	// A ref starts a line, after a change mark and indentation, or
	// follows its container's role and ">".
	m := regexp.MustCompile(`(?m)^[-+~ ]*(?:[a-z]+ > )*(e\d+) ` + r + ` "` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

// uid is the JSON arguments naming ref, plus the members kv (key, raw
// JSON value, ...).
func uid(ref string, kv ...string) string {
	s := fmt.Sprintf(`{"uid":%q`, ref)
	for i := 0; i+1 < len(kv); i += 2 {
		s += fmt.Sprintf(`,%q:%s`, kv[i], kv[i+1])
	}
	return s + "}"
}

// check evaluates expr in the active tab and returns its value as text.
func (a *widgetAgent) check(expr string) string {
	a.t.Helper()
	if a.peer != nil {
		return a.peer.check(a, expr)
	}
	data, err := a.h.callCtx(a.t.Context(), "evaluate_script", fmt.Sprintf(`{"function":%q}`, "() => "+expr))
	if err != nil {
		a.t.Fatalf("checking %s: %v", expr, err)
	}
	return fmt.Sprint(data["value"])
}

// wantState fails the task unless expr comes to evaluate to want: the
// page may still be finishing what the last action began (a toast fading
// out), as a person would wait to see.
func (a *widgetAgent) wantState(expr, want string) {
	a.t.Helper()
	got := ""
	err := browsertest.Poll(30*time.Second, func() error {
		if got = a.check(expr); got != want {
			return fmt.Errorf("%s = %q, want %q", expr, got, want)
		}
		return nil
	})
	a.t.Logf("check %s = %q", expr, got)
	if err != nil {
		a.t.Error(err)
	}
}

// wantSaid fails the task unless the result text mentions what a person
// would have seen on the page after the action.
func (a *widgetAgent) wantSaid(text, seen string) {
	a.t.Helper()
	if !strings.Contains(text, seen) {
		a.t.Errorf("the result does not say %q:\n%s", seen, text)
	}
}
