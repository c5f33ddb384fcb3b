package tools

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// The MiniWoB++ tier (issue #36's regression check): unmodified MiniWoB++
// task pages (testdata/miniwob, with their MIT license and SOURCE), each
// solved by a scripted policy that reads the task's utterance from a
// snapshot and acts only through refs and the tools, as TestWidgets does.
// The page's own reward (core.js's WOB_RAW_REWARD_GLOBAL) scores it.

// miniwobNPM are the libraries the pages load from ../core/ that are not
// copied into testdata: MiniWoB++ ships d3 v3 and a jQuery UI 1.12.1
// build (with jQuery 1.12.4) whose files jquery-ui-dist has, path for path.
var miniwobNPM = &npmSet{name: "miniwob", libs: []string{"d3@3.5.17", "jquery-ui-dist@1.12.1"}}

// miniwobSite serves testdata/miniwob and, at the paths the pages load,
// d3 and jQuery UI from npm, on loopback only.
func miniwobSite(t *testing.T) string {
	t.Helper()
	modules := miniwobNPM.modules(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/core/d3.v3.min.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(modules, "d3", "d3.min.js"))
	})
	mux.Handle("/core/jquery-ui/", http.StripPrefix("/core/jquery-ui/", http.FileServerFS(os.DirFS(filepath.Join(modules, "jquery-ui-dist")))))
	mux.Handle("/", http.FileServerFS(os.DirFS(filepath.Join("testdata", "miniwob"))))
	return browsertest.ServerHandler(t, mux).URL
}

// miniwobTask is one MiniWoB++ task and the policy that solves it from
// its utterance (the text of the page's #query) and a snapshot taken
// once the episode has begun.
type miniwobTask struct {
	name string
	// firefoxGap, if set, says what the Firefox backend lacks for this
	// task; the task is skipped there, with this reason.
	firefoxGap string
	run        func(a *widgetAgent, query, snap string)
}

// quoted returns the double-quoted strings of s, in order.
func quoted(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// arg returns the i-th double-quoted string of the utterance q, failing
// the task without one.
func (a *widgetAgent) arg(q string, i int) string {
	a.t.Helper()
	parts := quoted(q)
	if i >= len(parts) {
		a.t.Fatalf("the utterance %q has no quoted string number %d", q, i+1)
	}
	return parts[i]
}

// refsOf returns the refs of the lines of text whose role is role (with
// or without a name), in order.
func refsOf(text, role string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^[-+~ ]*(?:[a-z]+ > )*(e\d+) `+regexp.QuoteMeta(role)+`\b`).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// nth returns the i-th ref of role in text, failing the task without one.
func (a *widgetAgent) nth(text, role string, i int) string {
	a.t.Helper()
	refs := refsOf(text, role)
	if i >= len(refs) {
		a.t.Fatalf("no %s number %d in:\n%s", role, i+1, text)
	}
	return refs[i]
}

var miniwobTasks = []miniwobTask{
	{name: "click-button", run: func(a *widgetAgent, q, snap string) {
		a.do("click", uid(a.find(snap, "button", a.arg(q, 0))))
	}},
	{name: "click-button-sequence", run: func(a *widgetAgent, q, snap string) {
		a.do("click", uid(a.find(snap, "button", "ONE")))
		a.do("click", uid(a.find(snap, "button", "TWO")))
	}},
	{name: "click-link", run: func(a *widgetAgent, q, snap string) {
		a.do("click", uid(a.find(snap, "clickable", a.arg(q, 0))))
	}},
	{name: "click-checkboxes", run: func(a *widgetAgent, q, snap string) {
		list := strings.TrimSuffix(strings.TrimPrefix(q, "Select "), " and click Submit.")
		if list != "nothing" {
			for _, name := range strings.Split(list, ", ") {
				a.do("click", uid(a.find(snap, "checkbox", name)))
			}
		}
		a.do("click", uid(a.find(snap, "button", "Submit")))
	}},
	{name: "click-option", run: func(a *widgetAgent, q, snap string) {
		name := strings.TrimSuffix(strings.TrimPrefix(q, "Select "), " and click Submit.")
		a.do("click", uid(a.find(snap, "radio", name)))
		a.do("click", uid(a.find(snap, "button", "Submit")))
	}},
	{name: "click-tab", run: func(a *widgetAgent, q, snap string) {
		a.do("click", uid(a.find(snap, "tab", strings.TrimSuffix(strings.TrimPrefix(q, "Click on "), "."))))
	}},
	{name: "click-collapsible", run: func(a *widgetAgent, q, snap string) {
		a.do("click", uid(a.nth(snap, "tab", 0)))
		a.do("click", uid(a.find(a.snapshot(), "button", "Submit")))
	}},
	{name: "click-dialog", run: func(a *widgetAgent, q, snap string) {
		// The "x" is jQuery UI's title-bar button, named "Close".
		a.do("click", uid(a.find(snap, "button", "Close")))
	}},
	{name: "choose-list", run: func(a *widgetAgent, q, snap string) {
		item := strings.TrimSuffix(strings.TrimPrefix(q, "Select "), " from the list and click Submit.")
		a.do("select_option", uid(a.nth(snap, "combobox", 0), "values", fmt.Sprintf("[%q]", item)))
		a.do("click", uid(a.find(snap, "button", "Submit")))
	}},
	{name: "enter-text", run: func(a *widgetAgent, q, snap string) {
		a.do("fill", uid(a.nth(snap, "textbox", 0), "value", strconv.Quote(a.arg(q, 0))))
		a.do("click", uid(a.find(snap, "button", "Submit")))
	}},
	{name: "enter-password", run: func(a *widgetAgent, q, snap string) {
		pw := strconv.Quote(a.arg(q, 0))
		a.do("fill", uid(a.nth(snap, "textbox", 0), "value", pw))
		a.do("fill", uid(a.nth(snap, "textbox", 1), "value", pw))
		a.do("click", uid(a.find(snap, "button", "Submit")))
	}},
	{name: "login-user", run: func(a *widgetAgent, q, snap string) {
		user, pw := a.arg(q, 0), a.arg(q, 1)
		a.do("fill_form", fmt.Sprintf(`{"elements":[{"uid":%q,"value":%q},{"uid":%q,"value":%q}]}`,
			a.nth(snap, "textbox", 0), user, a.nth(snap, "textbox", 1), pw))
		a.do("click", uid(a.find(snap, "button", "Login")))
	}},
	{name: "focus-text", run: func(a *widgetAgent, q, snap string) {
		a.do("click", uid(a.nth(snap, "textbox", 0)))
	}},
	{name: "use-autocomplete",
		firefoxGap: "in 1 of 3 full-suite runs on 2 cores the suggestion the result showed was gone by the time the click looked for it (ELEMENT_NOT_VISIBLE after 5 s); Chromium holds",
		run: func(a *widgetAgent, q, snap string) {
			// "starts with "F" [and ends with "E"]": type the start, then
			// pick the suggestion that fits.
			start, end := a.arg(q, 0), ""
			if len(quoted(q)) > 1 {
				end = a.arg(q, 1)
			}
			box := a.nth(snap, "textbox", 0)
			shown := a.do("type_text", uid(box, "text", strconv.Quote(start)))
			fits := regexp.MustCompile(`(?m)^[-+~ ]*(e\d+) [a-z]+ "(` + regexp.QuoteMeta(start) + `[^"]*` + regexp.QuoteMeta(end) + `)"`)
			m := fits.FindStringSubmatch(shown)
			if m == nil {
				if _, err := a.try("wait_for", `{"time":300}`); err != nil {
					a.t.Fatal(err)
				}
				shown = a.snapshot()
				m = fits.FindStringSubmatch(shown)
			}
			if m == nil {
				a.t.Fatalf("no suggestion starting %q and ending %q in:\n%s", start, end, shown)
			}
			a.do("click", uid(m[1]))
			a.do("click", uid(a.find(snap, "button", "Submit")))
		}},
}

// TestMiniWoB solves 14 MiniWoB++ tasks on each backend and logs the
// table of reward, calls and characters per task (go test -v -run
// TestMiniWoB ./internal/tools).
func TestMiniWoB(t *testing.T) {
	t.Parallel()
	base := miniwobSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		skipFirefoxWebApps(t, backend)
		type row struct {
			task         string
			reward       string
			calls, chars int
			failed, done bool
		}
		rows := make([]*row, len(miniwobTasks))
		t.Cleanup(func() {
			var b strings.Builder
			fmt.Fprintf(&b, "| task | reward | calls | characters | passed |\n|---|---:|---:|---:|---|\n")
			for _, r := range rows {
				if r != nil && r.done {
					fmt.Fprintf(&b, "| %s | %s | %d | %d | %v |\n", r.task, r.reward, r.calls, r.chars, !r.failed)
				}
			}
			t.Logf("MiniWoB++ on %s:\n%s", backend, b.String())
		})
		for i, task := range miniwobTasks {
			t.Run(task.name, func(t *testing.T) {
				t.Parallel()
				if backend == BackendFirefox && task.firefoxGap != "" {
					t.Skipf("Firefox backend: %s", task.firefoxGap)
				}
				a := &widgetAgent{t: t, h: backendHarness(t, backend)}
				r := &row{task: task.name}
				rows[i] = r
				t.Cleanup(func() { r.calls, r.chars, r.failed, r.done = a.calls, a.chars, t.Failed(), true })
				a.do("navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/miniwob/"+task.name+".html"))
				// Set-up, as MiniWoB++'s own harness does, not a move of
				// the policy's: a seed for the task's randomness, and no
				// 10 s episode timer (a wall-clock bound that a loaded
				// machine must not fail).
				a.check(fmt.Sprintf(`(Math.seedrandom(%q), core.EPISODE_MAX_TIME = 3600000, true)`, task.name))
				started := a.do("click", uid(a.find(a.snapshot(), "clickable", "START")))
				snap := a.snapshot()
				query := miniwobUtterance(snap)
				if query == "" {
					t.Fatalf("no utterance in:\n%s\n(after START: %s)", snap, started)
				}
				t.Logf("utterance: %s", query)
				task.run(a, query, snap)
				r.reward = a.miniwobReward()
				if r.reward != "1" {
					t.Errorf("reward = %s, want 1", r.reward)
				}
			})
		}
	})
}

// miniwobUtterance returns the task's instruction from a snapshot: the
// first text line, which is #query's.
func miniwobUtterance(snap string) string {
	m := regexp.MustCompile(`(?m)^\s*"(.*)"$`).FindStringSubmatch(snap)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], `\"`, `"`)
}

// miniwobReward waits for the episode to end and returns its raw reward
// (without MiniWoB's time penalty), read from the page to score the task.
func (a *widgetAgent) miniwobReward() string {
	a.t.Helper()
	got := ""
	err := browsertest.Poll(30*time.Second, func() error {
		if a.check(`WOB_DONE_GLOBAL`) != "true" {
			return fmt.Errorf("the episode has not ended (reason %s)", a.check(`String(WOB_REWARD_REASON)`))
		}
		got = a.check(`WOB_RAW_REWARD_GLOBAL`)
		return nil
	})
	if err != nil {
		a.t.Error(err)
	}
	return got
}
