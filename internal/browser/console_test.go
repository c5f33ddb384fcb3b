package browser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/cdp/cdptest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// jsValue returns a RemoteObject of a primitive, as the browser sends it.
func jsValue(typ runtime.RemoteObjectType, value string) *runtime.RemoteObject {
	return &runtime.RemoteObject{Type: typ, Value: jsonv2.Value(value)}
}

func TestConsoleRing(t *testing.T) {
	var c consoleLog
	levels := []string{driver.LevelLog, driver.LevelWarn, driver.LevelError}
	for i := range 600 {
		c.addLocked(driver.ConsoleMessage{Level: levels[i%3], Source: "console", Text: fmt.Sprint(i)})
	}
	all, total := c.query(driver.ConsoleQuery{})
	if total != driver.ConsoleKeep || len(all) != driver.ConsoleKeep {
		t.Fatalf("after 600 messages: %d returned, total %d; want %d", len(all), total, driver.ConsoleKeep)
	}
	for i, m := range all {
		if m.ID != 101+i || m.Text != fmt.Sprint(100+i) {
			t.Fatalf("message %d = #%d %q, want #%d %q", i, m.ID, m.Text, 101+i, fmt.Sprint(100+i))
		}
	}

	errs, total := c.query(driver.ConsoleQuery{Levels: []string{driver.LevelError}, Offset: 2, Limit: 3})
	if total != 167 || len(errs) != 3 || errs[0].Text != "107" || errs[2].Text != "113" {
		t.Errorf("errors at offset 2, limit 3 = %+v, total %d; want 107, 110, 113 of 167", errs, total)
	}
	if page, _ := c.query(driver.ConsoleQuery{Offset: 499, Limit: 50}); len(page) != 1 || page[0].ID != 600 {
		t.Errorf("the last page = %+v, want only #600", page)
	}
	if page, total := c.query(driver.ConsoleQuery{Offset: 500, Limit: 50}); len(page) != 0 || total != 500 {
		t.Errorf("past the end = %d messages, total %d; want none of 500", len(page), total)
	}

	if m, err := c.get(600); err != nil || m.Text != "599" {
		t.Errorf("get(600) = %+v, %v; want text 599", m, err)
	}
	for _, tt := range []struct {
		id   int
		gone bool
	}{{100, true}, {601, false}, {0, false}} {
		_, err := c.get(tt.id)
		var ce *driver.ConsoleMessageError
		if !errors.As(err, &ce) || ce.Gone != tt.gone || !errors.Is(err, driver.ErrConsoleMessageNotFound) {
			t.Errorf("get(%d) error = %v, want a ConsoleMessageError with Gone %v", tt.id, err, tt.gone)
		}
	}

	if _, total := c.query(driver.ConsoleQuery{Clear: true, Limit: 1}); total != 500 {
		t.Errorf("query with Clear: total %d, want 500", total)
	}
	c.addLocked(driver.ConsoleMessage{Level: driver.LevelLog, Text: "after"})
	if all, _ := c.query(driver.ConsoleQuery{}); len(all) != 1 || all[0].ID != 601 {
		t.Errorf("after clearing = %+v, want only #601: ids are never reused", all)
	}
}

func TestConsoleBudget(t *testing.T) {
	var c consoleLog
	long := strings.Repeat("x", driver.ConsoleFullChars)
	for range driver.ConsoleKeep {
		c.addLocked(driver.ConsoleMessage{Level: driver.LevelLog, Text: long})
	}
	if c.bytes > consoleBudget {
		t.Errorf("holding %d bytes of text, want at most %d", c.bytes, consoleBudget)
	}
	newest, err := c.get(c.lastID)
	if err != nil || len(newest.Text) != driver.ConsoleFullChars || newest.Truncated {
		t.Errorf("the newest message has %d chars (truncated %v), %v; want all %d", len(newest.Text), newest.Truncated, err, driver.ConsoleFullChars)
	}
	oldest, err := c.get(c.lastID - driver.ConsoleKeep + 1)
	if err != nil || len(oldest.Text) != driver.ConsoleListChars || !oldest.Truncated {
		t.Errorf("the oldest message has %d chars (truncated %v), %v; want %d, truncated", len(oldest.Text), oldest.Truncated, err, driver.ConsoleListChars)
	}
	list, _ := c.query(driver.ConsoleQuery{})
	for _, m := range list {
		if len(m.Text) > driver.ConsoleListChars || !m.Truncated {
			t.Fatalf("listed #%d has %d chars (truncated %v), want %d, truncated", m.ID, len(m.Text), m.Truncated, driver.ConsoleListChars)
		}
	}
}

// TestConsoleRecorderFake checks the recorder's order of operations with a
// fake session: messages the browser replays while Runtime.enable runs are
// kept, and only main-frame navigations clear.
func TestConsoleRecorderFake(t *testing.T) {
	s := cdptest.New()
	logged := func(text string) runtime.EventConsoleAPICalled {
		return runtime.EventConsoleAPICalled{Type: "log", Args: []*runtime.RemoteObject{jsValue("string", fmt.Sprintf("%q", text))}, Timestamp: 1.7e12}
	}
	s.Reply("Runtime.enable", func(cdptest.Call) (any, error) {
		s.Emit("Runtime.consoleAPICalled", logged("replayed"))
		return nil, nil
	})
	// The fence: inspect(N), in an isolated world, makes the browser send
	// inspectRequested.
	s.Reply("Page.createIsolatedWorld", func(cdptest.Call) (any, error) {
		return page.CreateIsolatedWorldResult{ExecutionContextID: 7}, nil
	})
	s.Reply("Runtime.evaluate", func(c cdptest.Call) (any, error) {
		var p runtime.EvaluateParams
		var n int
		if err := jsonv2.Unmarshal(c.Params, &p); err != nil {
			return nil, err
		}
		if _, err := fmt.Sscanf(p.Expression, "inspect(%d)", &n); err != nil || !*p.IncludeCommandLineAPI || p.ContextID != 7 {
			t.Errorf("evaluated %q in context %d, want only fences in the isolated world", p.Expression, p.ContextID)
		}
		s.Emit("Runtime.inspectRequested", runtime.EventInspectRequested{Object: jsValue("number", strconv.Itoa(n))})
		return runtime.EvaluateResult{Result: jsValue("undefined", "")}, nil
	})
	var c consoleLog
	if err := c.record(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.run.stop() })
	if got, want := strings.Join(s.Methods(), ","), "Runtime.enable,Log.enable"; got != want {
		t.Errorf("calls = %s, want %s", got, want)
	}
	texts := func() string {
		c.settle(t.Context())
		msgs, _ := c.query(driver.ConsoleQuery{})
		var out []string
		for _, m := range msgs {
			out = append(out, m.Text)
		}
		return strings.Join(out, ",")
	}
	if got := texts(); got != "replayed" {
		t.Fatalf("messages = %q, want the one replayed during Runtime.enable", got)
	}
	// However slow the recorder, a read sees what the browser sent before.
	for i := range 300 {
		s.Emit("Runtime.consoleAPICalled", logged(fmt.Sprint(i)))
	}
	c.settle(t.Context())
	if c.fenced != c.fences {
		t.Errorf("the recorder saw fence %d of %d: the read did not wait for it", c.fenced, c.fences)
	}
	if msgs, total := c.query(driver.ConsoleQuery{Offset: 300}); total != 301 || len(msgs) != 1 || msgs[0].Text != "299" {
		t.Fatalf("after 300 more: %d messages, the last %+v; want 301, the last 299", total, msgs)
	}
	c.mu.Lock()
	c.clearLocked()
	c.mu.Unlock()
	s.Emit("Runtime.consoleAPICalled", logged("replayed"))
	s.Emit("Page.frameNavigated", page.EventFrameNavigated{Frame: &cdpapi.Frame{ID: "child", ParentID: "main"}})
	s.Emit("Runtime.consoleAPICalled", logged("second"))
	if got := texts(); got != "replayed,second" {
		t.Errorf("after an iframe navigated: messages = %q, want both kept", got)
	}
	s.Emit("Page.frameNavigated", page.EventFrameNavigated{Frame: &cdpapi.Frame{ID: "main"}})
	s.Emit("Runtime.consoleAPICalled", logged("third"))
	if got := texts(); got != "third" {
		t.Errorf("after the main frame navigated: messages = %q, want only the later one", got)
	}
	c.mu.Lock()
	c.preserve = true
	c.mu.Unlock()
	s.Emit("Page.frameNavigated", page.EventFrameNavigated{Frame: &cdpapi.Frame{ID: "main"}})
	s.Emit("Runtime.consoleAPICalled", logged("fourth"))
	if got := texts(); got != "third,fourth" {
		t.Errorf("preserving, after the main frame navigated: messages = %q, want both", got)
	}

	c.run.stop()
	select {
	case <-c.run.done:
	case <-time.After(waitLimit):
		t.Fatal("the recorder did not end when its events ended")
	}
	c.settle(t.Context()) // must not block once the recorder is gone
}

// evalJS evaluates expr in the tab's page and fails the test on an error.
func evalJS(t *testing.T, tab *Tab, expr string) {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr})
	if err != nil {
		t.Fatalf("evaluating %q: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluating %q: %s", expr, res.ExceptionDetails.Text)
	}
}

// consoleTexts lists the tab's messages as "level source text" lines.
func consoleTexts(t *testing.T, tab *Tab, q driver.ConsoleQuery) []string {
	t.Helper()
	msgs, _, err := tab.ConsoleMessages(t.Context(), q)
	if err != nil {
		t.Fatalf("ConsoleMessages: %v", err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Level+" "+m.Source+" "+m.Text)
	}
	return out
}

func TestConsoleMessages(t *testing.T) {
	t.Parallel()
	srv := serveFixtures(t)
	_, tab := newTab(t)
	// Nothing reads the console before the page has logged on load.
	if _, err := tab.Navigate(t.Context(), srv.URL+"/read/console.html"); err != nil {
		t.Fatal(err)
	}
	msgs, total, err := tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{})
	if err != nil {
		t.Fatal(err)
	}
	js := srv.URL + "/read/console.js"
	want := []driver.ConsoleMessage{
		{Level: "log", Source: "console", Type: "log", Text: `loaded 42 true null undefined {a: 1, b: "x"} [1, 2, 3]`, URL: js, Line: 1},
		{Level: "info", Source: "console", Type: "info", Text: "cart has 3 items", URL: js, Line: 2},
		{Level: "warn", Source: "console", Type: "warning", Text: "careful", URL: js, Line: 3},
		{Level: "error", Source: "console", Type: "error", Text: "Error: boom\n    at " + js + ":4:15", URL: js, Line: 4},
		{Level: "debug", Source: "console", Type: "debug", Text: "details", URL: js, Line: 5},
		{Level: "error", Source: "exception", Text: "Uncaught TypeError: Cannot read properties of null (reading 'x')", URL: js, Line: 7},
	}
	var got []driver.ConsoleMessage
	var network *driver.ConsoleMessage
	for _, m := range msgs {
		if m.Source == "network" {
			network = &m
			continue
		}
		if m.Time.IsZero() || time.Since(m.Time) > time.Minute {
			t.Errorf("#%d has time %v, want about now", m.ID, m.Time)
		}
		m.ID, m.Time = 0, time.Time{}
		got = append(got, m)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d page messages (total %d):\n%s\nwant %d", len(got), total, dumpMessages(msgs), len(want))
	}
	for i := range want {
		if got[i].Level != want[i].Level || got[i].Source != want[i].Source || got[i].Type != want[i].Type ||
			got[i].Text != want[i].Text || got[i].URL != want[i].URL || got[i].Line != want[i].Line {
			t.Errorf("message %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if network == nil || network.Level != driver.LevelError || !strings.Contains(network.Text, "404") || network.URL != srv.URL+"/read/missing.png" {
		t.Errorf("the failed image load = %+v, want a network error naming its URL and 404", network)
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].ID <= msgs[i-1].ID {
			t.Errorf("ids %d then %d, want increasing", msgs[i-1].ID, msgs[i].ID)
		}
	}

	// The whole exception has its stack.
	var exc driver.ConsoleMessage
	for _, m := range msgs {
		if m.Source == "exception" {
			exc, err = tab.ConsoleMessage(t.Context(), m.ID)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(exc.Stack) < 2 || !strings.HasPrefix(exc.Stack[0], "explode "+js+":7:") {
		t.Errorf("exception stack = %q, want explode at %s:7 on top", exc.Stack, js)
	}
}

func dumpMessages(msgs []driver.ConsoleMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "  #%d %s %s %s %s:%d %q\n", m.ID, m.Level, m.Source, m.Type, m.URL, m.Line, m.Text)
	}
	return b.String()
}

// TestConsoleReplay reads the console of a page that loaded before cdpkit
// attached to it: enabling the Runtime domain replays what it logged.
func TestConsoleReplay(t *testing.T) {
	srv := serveFixtures(t)
	b := sharedBrowser(t)
	res, err := cdpapi.Call(t.Context(), b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: srv.URL + "/read/console.html"})
	if err != nil {
		t.Fatal(err)
	}
	tab := b.tab(res.TargetID)
	t.Cleanup(func() { closeTab(t, b, tab) })
	browsertest.Eventually(t, waitLimit, func() error {
		infos, err := cdpapi.Call(t.Context(), b.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			return err
		}
		for _, ti := range infos.TargetInfos {
			if ti.TargetID == res.TargetID && ti.Title == "Console page loaded" {
				return nil
			}
		}
		return errors.New("the page did not load")
	})
	got := consoleTexts(t, tab, driver.ConsoleQuery{Levels: []string{driver.LevelWarn, driver.LevelError}})
	want := []string{"warn console careful", "error console Error: boom", "error exception Uncaught TypeError"}
	if len(got) < len(want) {
		t.Fatalf("messages = %q, want %q and the failed image", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("message %d = %q, want it to start %q", i, got[i], w)
		}
	}
}

func TestConsoleKeepsTheLast500(t *testing.T) {
	t.Parallel()
	_, tab := newTab(t)
	evalJS(t, tab, `for (let i = 0; i < 600; i++) console.log("n", i)`)
	msgs, total, err := tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if total != 500 || len(msgs) != 500 || msgs[0].Text != "n 100" || msgs[499].Text != "n 599" {
		t.Fatalf("got %d of %d, from %q to %q; want the 500 from n 100 to n 599", len(msgs), total, msgs[0].Text, msgs[len(msgs)-1].Text)
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].ID != msgs[i-1].ID+1 {
			t.Fatalf("ids %d then %d, want consecutive", msgs[i-1].ID, msgs[i].ID)
		}
	}
	last := msgs[499].ID
	evalJS(t, tab, `console.log("one more")`)
	msgs, _, _ = tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{Offset: 499})
	if len(msgs) != 1 || msgs[0].ID != last+1 || msgs[0].Text != "one more" {
		t.Errorf("the newest = %+v, want #%d one more", msgs, last+1)
	}
}

func TestConsoleQueryAndClear(t *testing.T) {
	t.Parallel()
	_, tab := newTab(t)
	// Reading must not call the page's code, even one named like the
	// console function reads use.
	evalJS(t, tab, `window.inspect = () => { window.inspected = true }`)
	evalJS(t, tab, `for (let i = 0; i < 5; i++) { console.log("log", i); console.error("err", i); console.warn("warn", i) }`)

	tests := []struct {
		q         driver.ConsoleQuery
		want      string
		wantTotal int
	}{
		{driver.ConsoleQuery{Levels: []string{driver.LevelError}}, "error console err 0|error console err 1|error console err 2|error console err 3|error console err 4", 5},
		{driver.ConsoleQuery{Levels: []string{driver.LevelError, driver.LevelWarn}, Offset: 7, Limit: 2}, "warn console warn 3|error console err 4", 10},
		{driver.ConsoleQuery{Offset: 2, Limit: 2}, "warn console warn 0|log console log 1", 15},
		{driver.ConsoleQuery{Levels: []string{driver.LevelDebug}}, "", 0},
	}
	for _, tt := range tests {
		msgs, total, err := tab.ConsoleMessages(t.Context(), tt.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			got = append(got, m.Level+" "+m.Source+" "+m.Text)
		}
		if strings.Join(got, "|") != tt.want || total != tt.wantTotal {
			t.Errorf("ConsoleMessages(%+v) = %q, total %d; want %q, total %d", tt.q, got, total, tt.want, tt.wantTotal)
		}
	}

	if _, total, _ := tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{Limit: 1, Clear: true}); total != 15 {
		t.Errorf("reading with Clear: total %d, want 15", total)
	}
	if got := consoleTexts(t, tab, driver.ConsoleQuery{}); len(got) != 0 {
		t.Errorf("after Clear: %q, want nothing", got)
	}
	evalJS(t, tab, `console.log("later")`)
	tab.ClearConsole()
	if got := consoleTexts(t, tab, driver.ConsoleQuery{}); len(got) != 0 {
		t.Errorf("after ClearConsole: %q, want nothing", got)
	}
	if got := jsString(t, tab, "window.inspected"); got != "undefined" {
		t.Errorf("window.inspected = %s: reading the console ran the page's code", got)
	}
}

func TestConsoleNavigation(t *testing.T) {
	t.Parallel()
	srv := serveFixtures(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html"); err != nil {
		t.Fatal(err)
	}
	evalJS(t, tab, `console.log("on alpha")`)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html#part"); err != nil {
		t.Fatal(err)
	}
	if got := consoleTexts(t, tab, driver.ConsoleQuery{}); strings.Join(got, "|") != "log console on alpha" {
		msgs, _, _ := tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{})
		t.Errorf("after a same-document navigation: %q, want the message kept\n%s", got, dumpMessages(msgs))
	}
	if _, err := tab.Navigate(t.Context(), srv.URL+"/bravo.html"); err != nil {
		t.Fatal(err)
	}
	if got := consoleTexts(t, tab, driver.ConsoleQuery{}); len(got) != 0 {
		t.Errorf("after navigating to another page: %q, want nothing", got)
	}

	tab.SetConsolePreserve(true)
	evalJS(t, tab, `console.log("on bravo")`)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/charlie.html"); err != nil {
		t.Fatal(err)
	}
	evalJS(t, tab, `console.log("on charlie")`)
	if got := consoleTexts(t, tab, driver.ConsoleQuery{}); strings.Join(got, "|") != "log console on bravo|log console on charlie" {
		msgs, _, _ := tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{})
		t.Errorf("preserving, after navigating: %q, want both pages' messages\n%s", got, dumpMessages(msgs))
	}
	tab.SetConsolePreserve(false)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html"); err != nil {
		t.Fatal(err)
	}
	if got := consoleTexts(t, tab, driver.ConsoleQuery{}); len(got) != 0 {
		t.Errorf("preserve off again, after navigating: %q, want nothing", got)
	}
}

func TestConsoleLongMessage(t *testing.T) {
	t.Parallel()
	_, tab := newTab(t)
	evalJS(t, tab, `console.log("é".repeat(30000), "tail")`)
	msgs, _, err := tab.ConsoleMessages(t.Context(), driver.ConsoleQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want 1", len(msgs))
	}
	if n := len([]rune(msgs[0].Text)); n != driver.ConsoleListChars || !msgs[0].Truncated {
		t.Errorf("listed: %d chars, truncated %v; want %d, truncated", n, msgs[0].Truncated, driver.ConsoleListChars)
	}
	full, err := tab.ConsoleMessage(t.Context(), msgs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(full.Text)); n != driver.ConsoleFullChars || !full.Truncated {
		t.Errorf("whole: %d chars, truncated %v; want %d, truncated", n, full.Truncated, driver.ConsoleFullChars)
	}
	if _, err := tab.ConsoleMessage(t.Context(), msgs[0].ID+1); !errors.Is(err, driver.ErrConsoleMessageNotFound) {
		t.Errorf("ConsoleMessage(unknown id) error = %v, want ErrConsoleMessageNotFound", err)
	}
}
