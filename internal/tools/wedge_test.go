package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/fixtures"
)

func TestTimeoutArg(t *testing.T) {
	tool := echoTool(func(ctx context.Context, _ *Env, in echoArgs) (*Result, error) {
		dl, _ := ctx.Deadline()
		return &Result{Data: time.Until(dl)}, nil
	})
	tests := []struct {
		args    string
		want    time.Duration // the deadline the handler sees
		wantErr bool
	}{
		{args: `{"url":"u"}`, want: time.Second}, // the env's
		{args: `{"url":"u","timeout_ms":2500}`, want: 2500 * time.Millisecond},
		{args: `{"timeout_ms":120000,"url":"u"}`, want: MaxTimeout},
		{args: `{"url":"u","timeout_ms":0}`, wantErr: true},
		{args: `{"url":"u","timeout_ms":-5}`, wantErr: true},
		{args: `{"url":"u","timeout_ms":120001}`, wantErr: true},
		{args: `{"url":"u","timeout_ms":"1000"}`, wantErr: true},
		{args: `{"url":"u","timeout_ms":null}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			// In a synctest bubble no time passes while the call runs, so
			// the handler sees the deadline exactly.
			synctest.Test(t, func(t *testing.T) {
				res, err := tool.Call(t.Context(), testEnv(), json.RawMessage(tt.args))
				if tt.wantErr {
					var te *Error
					if !errors.As(err, &te) || te.Code != InvalidArgs || !strings.Contains(te.Message, "timeout_ms") {
						t.Fatalf("Call(%s) = %v, want INVALID_ARGS naming timeout_ms", tt.args, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Call(%s): %v", tt.args, err)
				}
				if got := res.Data.(time.Duration); got != tt.want {
					t.Errorf("Call(%s): deadline in %v, want %v", tt.args, got, tt.want)
				}
			})
		})
	}
}

func TestEnvTimeoutIsCapped(t *testing.T) {
	tool := echoTool(func(ctx context.Context, _ *Env, in echoArgs) (*Result, error) {
		dl, _ := ctx.Deadline()
		return &Result{Data: time.Until(dl)}, nil
	})
	env := testEnv()
	env.Timeout = time.Hour
	res, err := tool.Call(t.Context(), env, json.RawMessage(`{"url":"u"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Data.(time.Duration); got > MaxTimeout {
		t.Errorf("deadline in %v, want at most %v", got, MaxTimeout)
	}
}

func TestTimeoutNamesTheStep(t *testing.T) {
	tests := []struct {
		step string
		err  func(ctx context.Context) error
		want string
	}{
		{"reading the accessibility tree", func(ctx context.Context) error { return fmt.Errorf("browser: x: %w", ctx.Err()) },
			"echo timed out after 100ms while reading the accessibility tree"},
		{"", func(ctx context.Context) error { return ctx.Err() }, "echo timed out after 100ms"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tool := echoTool(func(ctx context.Context, _ *Env, in echoArgs) (*Result, error) {
					if tt.step != "" {
						driver.Step(ctx, tt.step)
					}
					<-ctx.Done()
					return nil, tt.err(ctx)
				})
				start := time.Now()
				_, err := tool.Call(t.Context(), testEnv(), json.RawMessage(`{"url":"u","timeout_ms":100}`))
				te := wantCode(t, err, Timeout, "")
				// The bubble's clock makes the elapsed time exactly 100 ms.
				if te.Message != tt.want {
					t.Errorf("message = %q, want %q", te.Message, tt.want)
				}
				if !te.Recoverable {
					t.Error("TIMEOUT is not recoverable")
				}
				if d := time.Since(start); d != 100*time.Millisecond {
					t.Errorf("took %v, want 100ms", d)
				}

			})
		})
	}
}

// TestDeadlineIsNeverInternal: a handler that fails once its call's
// deadline has passed, with an error that does not say so (such as the
// browser's answer to a command the deadline cut short), reports TIMEOUT
// naming the step, not INTERNAL (issue #40 item 18).
func TestDeadlineIsNeverInternal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tool := echoTool(func(ctx context.Context, _ *Env, in echoArgs) (*Result, error) {
			driver.Step(ctx, "finding the element")
			<-ctx.Done()
			return nil, errors.New("browser: resolving the node: Internal error (-32603)")
		})
		_, err := tool.Call(t.Context(), testEnv(), json.RawMessage(`{"url":"u","timeout_ms":100}`))
		te := wantCode(t, err, Timeout, "echo timed out after 100ms while finding the element")
		if !te.Recoverable {
			t.Error("TIMEOUT is not recoverable")
		}
	})
	// Before the deadline the same error is what it is.
	tool := echoTool(func(context.Context, *Env, echoArgs) (*Result, error) {
		return nil, errors.New("browser: resolving the node: Internal error (-32603)")
	})
	_, err := tool.Call(t.Context(), testEnv(), json.RawMessage(`{"url":"u"}`))
	wantCode(t, err, Internal, "Internal error")
}

func TestHandlerPanicThenNextCall(t *testing.T) {
	calls := 0
	tool := echoTool(func(_ context.Context, _ *Env, in echoArgs) (*Result, error) {
		calls++
		if in.URL == "panic" {
			var m map[string]int
			//lint:ignore SA5000 the nil-map write is the point: a real runtime panic
			m["boom"]++
		}
		return &Result{Data: in.URL}, nil
	})
	env := testEnv()
	_, err := tool.Call(t.Context(), env, json.RawMessage(`{"url":"panic"}`))
	wantCode(t, err, Internal, "echo failed unexpectedly")
	res, err := tool.Call(t.Context(), env, json.RawMessage(`{"url":"fine"}`))
	if err != nil || res.Data != "fine" || calls != 2 {
		t.Fatalf("the call after the panic = %v, %v (calls %d), want it to work", res, err, calls)
	}
}

// wedgeServer serves the fixture pages, also reached as localhost: another
// site, so that its pages get a renderer of their own. slowHits receives a
// request's tag parameter when a request for /wedge_slow.html with one
// arrives (the first 16).
func wedgeServer(t *testing.T) (base, other string, slowHits chan string) {
	t.Helper()
	slowHits = make(chan string, 16)
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(fixtures.Pages()))
	// A document that arrives ms late.
	mux.HandleFunc("/wedge_slow.html", func(w http.ResponseWriter, r *http.Request) {
		if tag := r.URL.Query().Get("tag"); tag != "" {
			select {
			case slowHits <- tag:
			default:
			}
		}
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>Slow</title><p>Arrived late</p>")
	})
	srv := browsertest.ServerHandler(t, mux)
	return srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), slowHits
}

// openTab opens a tab on url and returns its id.
func openTab(t *testing.T, h *harness, url string) string {
	t.Helper()
	data := h.mustCall(t, "new_page", `{"url":"`+url+`"}`)
	return data["id"].(string)
}

// hangTab opens wedge_hang.html on the other site and returns its id once
// its renderer runs while(true){}.
func hangTab(t *testing.T, h *harness, other string) string {
	t.Helper()
	id := openTab(t, h, other+"/wedge_hang.html?after=0")
	s, err := rawcdp.Session(t.Context(), h.tab(t, id))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.Eventually(t, 30*time.Second, func() error {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		_, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1"})
		if errors.Is(err, context.DeadlineExceeded) {
			return nil
		}
		return fmt.Errorf("the page does not hang: Runtime.evaluate answered (%v)", err)
	})
	return id
}

// TestWedge injects faults into a real Chromium. The cases that hang a
// renderer run one after another, since each keeps a core busy; the others
// run in parallel, each in a browser context of its own.
func TestWedge(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (hangs pages to their deadlines): skipped by -short")
	}
	t.Parallel()
	base, other, slowHits := wedgeServer(t)
	t.Run("hung", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, nil)
		t.Run("hung renderer", func(t *testing.T) { testHungRenderer(t, h, base, other) })
		t.Run("actions on a hung tab", func(t *testing.T) { testHungActions(t, h, other) })
		t.Run("queue on a hung tab", func(t *testing.T) { testQueueOnHungTab(t, h, base, other) })
		t.Run("eight tabs while one hangs", func(t *testing.T) { testEightTabs(t, h, base, other) })
	})
	for _, c := range []struct {
		name string
		run  func(t *testing.T, h *harness, base string)
	}{
		{"reads wait for a navigation", func(t *testing.T, h *harness, base string) { testReadsWaitForNavigation(t, h, base, slowHits) }},
		{"timeout and a tool's own timeout", testSmallerTimeoutWins},
		{"frozen page", testFrozenPage},
		{"navigation during evaluate_script", testNavDuringEval},
		{"navigation during click", testNavDuringClick},
		{"dialog matrix", testDialogMatrix},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newHarness(t, nil), base)
		})
	}
}

// testHungRenderer: reads on a tab whose page runs while(true){} time out
// within their budget naming the slow step, other tabs keep working, and
// close_page closes the hung tab.
func testHungRenderer(t *testing.T, h *harness, base, other string) {
	good := openTab(t, h, base+"/wedge_work.html")
	hung := hangTab(t, h, other)
	tests := []struct {
		tool, args, step string
	}{
		{"evaluate_script", `{"function":"() => 1"`, "running the function"},
		{"take_snapshot", `{`, "reading the accessibility tree"},
		{"take_screenshot", `{`, "capturing the screenshot"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			sep := ","
			if tt.args == "{" {
				sep = ""
			}
			_, err := h.call(t, tt.tool, tt.args+sep+`"target":"`+hung+`","timeout_ms":2000}`)
			wantCode(t, err, Timeout, tt.tool+" timed out after ")
			if te := AsError(err); !strings.Contains(te.Message, tt.step) {
				t.Errorf("message %q does not name the step %q", te.Message, tt.step)
			}
			// Other tabs keep working.
			h.mustCall(t, "take_snapshot", `{"target":"`+good+`","timeout_ms":5000}`)
		})
	}
	h.mustCall(t, "close_page", `{"target":"`+hung+`","timeout_ms":5000}`)
	h.mustCall(t, "click", `{"selector":"#add","target":"`+good+`"}`)
}

// testHungActions: actions and reads on a tab whose page runs
// while(true){} after load end in TIMEOUT, never INTERNAL, with a hint
// that names close_page, which recovers from a hung tab (issue #40 items
// 18 and 19).
func testHungActions(t *testing.T, h *harness, other string) {
	hung := hangTab(t, h, other)
	for _, tt := range []struct{ tool, args string }{
		{"click", `"selector":"#hang"`},
		{"fill", `"selector":"#hang","value":"x"`},
		{"type_text", `"text":"x"`},
		{"press_key", `"key":"Enter"`},
		{"take_snapshot", `"interactive":false`},
		{"navigate_page", `"url":"` + other + `/wedge_work.html"`},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			_, err := h.call(t, tt.tool, `{`+tt.args+`,"target":"`+hung+`","timeout_ms":2000}`)
			te := wantCode(t, err, Timeout, "")
			if !strings.Contains(te.Hint, "close_page") || !strings.Contains(te.Hint, "new_page") {
				t.Errorf("hint %q does not name close_page and new_page", te.Hint)
			}
		})
	}
	h.mustCall(t, "close_page", `{"target":"`+hung+`","timeout_ms":5000}`)
	// A click whose listener hangs the page.
	id := openTab(t, h, other+"/wedge_hang.html")
	_, err := h.call(t, "click", `{"selector":"#hang","target":"`+id+`","timeout_ms":2000}`)
	if te := wantCode(t, err, Timeout, ""); !strings.Contains(te.Hint, "close_page") {
		t.Errorf("hint %q does not name close_page", te.Hint)
	}
	h.mustCall(t, "close_page", `{"target":"`+id+`","timeout_ms":5000}`)
}

// testQueueOnHungTab: behind a call stuck on a hung tab, 8 state-changing
// calls wait and the 9th is refused at once; handle_dialog and close_page
// do not wait, and closing the tab ends every call on it cleanly.
func testQueueOnHungTab(t *testing.T, h *harness, base, other string) {
	good := openTab(t, h, base+"/wedge_work.html")
	hung := hangTab(t, h, other)
	tab := h.tab(t, hung)
	const budget = 20 * time.Second
	n := driver.DefaultQueueLimit + 1 // one runs, the rest wait
	results := make(chan error, n)
	launch := func(i int) {
		args := fmt.Sprintf(`{"key":"a","target":%q,"timeout_ms":%d}`, hung, budget.Milliseconds())
		tool := "press_key"
		if i == 0 {
			args = fmt.Sprintf(`{"selector":"#hang","target":%q,"timeout_ms":%d}`, hung, budget.Milliseconds())
			tool = "click"
		}
		go func() {
			_, err := h.callCtx(t.Context(), tool, args)
			results <- err
		}()
	}
	waitFor := func(waiting int) {
		t.Helper()
		browsertest.Eventually(t, 30*time.Second, func() error {
			if got := tab.Waiting(); got != waiting {
				return fmt.Errorf("%d calls wait for the hung tab, want %d", got, waiting)
			}
			return nil
		})
	}
	for i := range n - 1 {
		launch(i)
	}
	waitFor(n - 2)

	// A call whose deadline passes in the queue leaves it, and says why.
	_, err := h.call(t, "type_text", `{"text":"x","target":"`+hung+`","timeout_ms":1500}`)
	wantCode(t, err, Timeout, "type_text timed out after ")
	if te := AsError(err); !strings.HasSuffix(te.Message, "while waiting for the tab's earlier calls to finish") {
		t.Errorf("message %q does not say it waited in the queue", te.Message)
	}
	waitFor(n - 2)
	launch(n - 1)
	waitFor(n - 1)

	_, err = h.call(t, "fill", `{"selector":"#name","value":"x","target":"`+hung+`"}`)
	te := wantCode(t, err, BusyQueueFull, "8 calls already wait")
	if !te.Recoverable || te.Hint != "wait for the tab's calls to finish" || te.Phase != PhaseQueue {
		t.Errorf("BUSY_QUEUE_FULL = %+v, want recoverable with the hint, in phase queue", te)
	}
	// Refused at once: the calls it would have queued behind still wait.
	if got := tab.Waiting(); got != n-1 {
		t.Errorf("after the refusal %d calls wait for the hung tab, want still %d", got, n-1)
	}
	// Another tab does not wait, nor does handle_dialog: had they queued,
	// they would end with TIMEOUT.
	h.mustCall(t, "fill", `{"selector":"#name","value":"x","target":"`+good+`","timeout_ms":5000}`)
	_, err = h.call(t, "handle_dialog", `{"action":"accept","target":"`+hung+`","timeout_ms":5000}`)
	wantCode(t, err, NoDialog, "no JavaScript dialog")

	h.mustCall(t, "close_page", `{"target":"`+hung+`","timeout_ms":5000}`)
	// Each ends with TARGET_CLOSED, before its own deadline (TIMEOUT).
	for range n {
		if err := <-results; err == nil || AsError(err).Code != TargetClosed {
			t.Errorf("a call on the closed tab = %v, want TARGET_CLOSED", err)
		}
	}
	h.mustCall(t, "click", `{"selector":"#add","target":"`+good+`"}`)
}

// testEightTabs drives 8 tabs in parallel while a ninth runs
// while(true){}: every call on the 8 succeeds, and all are done before the
// call stuck on the hung tab reaches its deadline.
func testEightTabs(t *testing.T, h *harness, base, other string) {
	const tabs = 8
	ids := make([]string, tabs)
	for i := range ids {
		ids[i] = openTab(t, h, "about:blank")
	}
	hung := hangTab(t, h, other)
	const hungBudget = 60 * time.Second
	hungStart := time.Now()
	hungDone := make(chan error, 1)
	go func() {
		_, err := h.callCtx(t.Context(), "evaluate_script", fmt.Sprintf(`{"function":"() => 1","target":%q,"timeout_ms":%d}`, hung, hungBudget.Milliseconds()))
		hungDone <- err
	}()

	var wg sync.WaitGroup
	errs := make(chan error, tabs*4)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			steps := []struct{ tool, args string }{
				{"navigate_page", `{"url":"` + base + `/wedge_work.html"}`},
				{"take_snapshot", `{}`},
				{"fill", fmt.Sprintf(`{"selector":"#name","value":"tab %d"}`, i)},
				{"click", `{"selector":"#add"}`},
				{"wait_for", fmt.Sprintf(`{"text":["item tab %d"]}`, i)},
			}
			for _, st := range steps {
				args := strings.TrimSuffix(st.args, "}")
				if args != "{" {
					args += ","
				}
				args += fmt.Sprintf(`"target":%q,"timeout_ms":30000}`, id)
				if _, err := h.callCtx(t.Context(), st.tool, args); err != nil {
					errs <- fmt.Errorf("tab %d: %s: %w", i, st.tool, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if d := time.Since(hungStart); d >= hungBudget {
		t.Errorf("the 8 tabs took %v, not done before the hung call's deadline (%v): they waited for it", d, hungBudget)
	}
	select {
	case err := <-hungDone:
		t.Errorf("the call on the hung tab returned while the others ran: %v", err)
	default:
	}
	// Closing the hung tab ends its call.
	h.mustCall(t, "close_page", `{"target":"`+hung+`","timeout_ms":5000}`)
	select {
	case err := <-hungDone:
		if te := AsError(err); te.Code != TargetClosed {
			t.Errorf("the call on the closed hung tab = %v, want TARGET_CLOSED", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the call on the hung tab did not end when the tab closed")
	}
	for _, id := range ids {
		h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
	}
}

// testFrozenPage: on a page frozen by Page.setWebLifecycleState, reads
// return a result or TIMEOUT within their budget, and the tab closes.
func testFrozenPage(t *testing.T, h *harness, base string) {
	id := openTab(t, h, base+"/wedge_work.html")
	s, err := rawcdp.Session(t.Context(), h.tab(t, id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cdpapi.Call(t.Context(), s, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateFrozen}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"evaluate_script", `{"function":"() => document.title",`},
		{"take_snapshot", `{`},
		{"take_screenshot", `{`},
		{"click", `{"selector":"#add",`},
	} {
		data, err := h.call(t, tc.tool, tc.args+`"target":"`+id+`","timeout_ms":2000}`)
		if err != nil {
			wantCode(t, err, Timeout, tc.tool+" timed out")
		} else if data == nil {
			t.Errorf("%s: no result", tc.tool)
		}
	}
	h.mustCall(t, "close_page", `{"target":"`+id+`","timeout_ms":5000}`)
	h.mustCall(t, "list_pages", `{}`)
}

// rawCDPError matches CDP's own words, which must never reach an agent.
var rawCDPErrors = []string{"Execution context was destroyed", "Cannot find context", "Inspected target navigated",
	"Cannot find default execution context", "Could not find object", "No node with given id", "Promise was collected"}

// wantClean checks that a call that raced a navigation returned a result
// or an error of the taxonomy, never CDP's raw words.
func wantClean(t *testing.T, what string, data map[string]any, err error) {
	t.Helper()
	text := fmt.Sprint(data)
	if err != nil {
		te := AsError(err)
		if te.Code == Internal {
			t.Errorf("%s: INTERNAL error %v, want a result or a taxonomy code", what, err)
		}
		text = te.Message + " " + te.Hint
	}
	for _, raw := range rawCDPErrors {
		if strings.Contains(text, raw) {
			t.Errorf("%s: %q shows CDP's %q", what, text, raw)
		}
	}
}

func testNavDuringEval(t *testing.T, h *harness, base string) {
	id := openTab(t, h, base+"/wedge_nav.html")
	tests := []struct{ name, fn string }{
		{"navigates then never returns", `() => { location.href = '/eval-other.html'; return new Promise(() => {}); }`},
		{"navigates and returns", `() => { location.href = '/eval-other.html'; return document.title; }`},
		{"reloads while awaiting", `async () => { setTimeout(() => location.reload(), 0); await new Promise(r => setTimeout(r, 2000)); return 1; }`},
		{"submits a form and awaits", `async () => { document.forms[0].submit(); await new Promise(r => setTimeout(r, 2000)); return 1; }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.mustCall(t, "navigate_page", `{"url":"`+base+`/wedge_nav.html","target":"`+id+`"}`)
			args, _ := json.Marshal(map[string]any{"function": tt.fn, "target": id, "timeout_ms": 10000})
			data, err := h.call(t, "evaluate_script", string(args))
			wantClean(t, "evaluate_script", data, err)
			h.mustCall(t, "take_snapshot", `{"target":"`+id+`"}`)
		})
	}
	h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
}

func testNavDuringClick(t *testing.T, h *harness, base string) {
	id := openTab(t, h, base+"/wedge_nav.html")
	for _, sel := range []string{"#link", "#mid", "#late", "#reload", "#submit"} {
		t.Run(sel, func(t *testing.T) {
			h.mustCall(t, "navigate_page", `{"url":"`+base+`/wedge_nav.html","target":"`+id+`"}`)
			data, err := h.call(t, "click", `{"selector":"`+sel+`","target":"`+id+`","timeout_ms":10000}`)
			wantClean(t, "click "+sel, data, err)
			h.mustCall(t, "take_snapshot", `{"target":"`+id+`"}`)
			if sel == "#late" {
				// Its navigation may start after the click's answer: let
				// it land here, not abort the next case's navigate_page.
				browsertest.Eventually(t, time.Minute, func() error {
					data, err := h.call(t, "evaluate_script", `{"function":"() => location.pathname","target":"`+id+`"}`)
					if err != nil || data["value"] != "/eval-other.html" {
						return fmt.Errorf("the page is at %v (%v), want /eval-other.html", data["value"], err)
					}
					return nil
				})
			}
		})
	}
	h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
}

// dialogIn returns the dialog a result reports (changes.dialog, or dialog
// for handle_dialog and wait_for), or nil.
func dialogIn(data map[string]any) map[string]any {
	for _, path := range []string{"changes.dialog", "dialog"} {
		if d, ok := jsonPath(data, path).(map[string]any); ok {
			return d
		}
	}
	return nil
}

// testDialogMatrix opens alert, confirm, prompt and beforeunload dialogs on
// load, on click and from a timer, through the tools: no call blocks past
// its deadline, each dialog shows in a result, and each can be answered
// (alerts and beforeunload by cdpkit itself, the others by handle_dialog).
// Each case ends with a call that must succeed.
func testDialogMatrix(t *testing.T, h *harness, base string) {
	id := openTab(t, h, "about:blank")
	// Generous: the first call on a tab attaches to it, which takes
	// seconds on a loaded machine.
	const budget = 10 * time.Second
	// run calls a tool on the tab within budget; it returns the result or
	// the error, and every dialog a result reports.
	var seen []map[string]any
	run := func(t *testing.T, tool, args string) (map[string]any, error) {
		t.Helper()
		args = strings.TrimSuffix(args, "}")
		if args != "{" {
			args += ","
		}
		args += fmt.Sprintf(`"target":%q,"timeout_ms":%d}`, id, budget.Milliseconds())
		data, err := h.call(t, tool, args)
		if d := dialogIn(data); d != nil {
			seen = append(seen, d)
		}
		return data, err
	}
	// answer answers an open dialog of typ, or checks that none waits.
	answer := func(t *testing.T, typ string) {
		t.Helper()
		data, err := run(t, "handle_dialog", `{"action":"accept","promptText":"typed"}`)
		if typ == driver.DialogConfirm || typ == driver.DialogPrompt {
			if err != nil {
				t.Fatalf("handle_dialog: %v", err)
			}
			if d := dialogIn(data); d == nil || d["type"] != typ || d["handled"] != "accepted" {
				t.Errorf("handle_dialog answered %v, want the %s accepted", d, typ)
			}
			return
		}
		wantCode(t, err, NoDialog, "no JavaScript dialog")
	}
	// reported checks that some result mentioned a dialog of typ as
	// state.
	reported := func(t *testing.T, typ, state string) {
		t.Helper()
		for _, d := range seen {
			if d["type"] == typ && d["handled"] == state {
				return
			}
		}
		t.Errorf("no result reported the %s as %s; dialogs reported: %v", typ, state, seen)
	}

	for _, typ := range []string{driver.DialogAlert, driver.DialogConfirm, driver.DialogPrompt} {
		state := "open"
		if typ == driver.DialogAlert {
			state = "accepted"
		}
		page := func(when string) string {
			return fmt.Sprintf(`{"url":"%s/dialog-matrix.html?type=%s&when=%s&delay=300"}`, base, typ, when)
		}
		t.Run(typ+" on load", func(t *testing.T) {
			seen = nil
			_, err := run(t, "navigate_page", page("load"))
			if err != nil {
				wantCode(t, err, DialogOpen, typ)
				seen = append(seen, map[string]any{"type": typ, "handled": "open"})
			}
			reported(t, typ, state)
			answer(t, typ)
			run(t, "wait_for", `{"text":["`+typ+` returned"]}`)
		})
		t.Run(typ+" on click", func(t *testing.T) {
			seen = nil
			run(t, "navigate_page", page("click"))
			if _, err := run(t, "click", `{"selector":"#open"}`); err != nil {
				t.Fatalf("click: %v", err)
			}
			reported(t, typ, state)
			answer(t, typ)
			if _, err := run(t, "wait_for", `{"text":["`+typ+` returned"]}`); err != nil {
				t.Fatalf("wait_for after the answer: %v", err)
			}
		})
		t.Run(typ+" from a timer", func(t *testing.T) {
			seen = nil
			run(t, "navigate_page", page("timer"))
			_, err := run(t, "wait_for", `{"text":["`+typ+` returned"],"timeout":4000}`)
			if state == "open" {
				wantCode(t, err, DialogOpen, typ)
				seen = append(seen, map[string]any{"type": typ, "handled": "open"})
			} else if err != nil {
				t.Fatalf("wait_for: %v", err)
			}
			reported(t, typ, state)
			answer(t, typ)
			if _, err := run(t, "wait_for", `{"text":["`+typ+` returned"]}`); err != nil {
				t.Fatalf("wait_for after the answer: %v", err)
			}
		})
	}

	// beforeunload opens when the page is left: by navigate_page (a load),
	// by a click on a link, and by the page's timer. Chromium asks only
	// after a user gesture, which clicking #arm gives.
	leave := []struct {
		name string
		act  func(t *testing.T) error
	}{
		{"beforeunload on load", func(t *testing.T) error {
			_, err := run(t, "navigate_page", `{"url":"`+base+`/eval-other.html"}`)
			return err
		}},
		{"beforeunload on click", func(t *testing.T) error {
			_, err := run(t, "click", `{"selector":"#away"}`)
			return err
		}},
		{"beforeunload from a timer", func(t *testing.T) error {
			if _, err := run(t, "click", `{"selector":"#timer"}`); err != nil {
				return err
			}
			_, err := run(t, "wait_for", `{"url":"/eval-other.html","timeout":4000}`)
			return err
		}},
	}
	for _, tc := range leave {
		t.Run(tc.name, func(t *testing.T) {
			run(t, "navigate_page", `{"url":"`+base+`/wedge_beforeunload.html"}`)
			if _, err := run(t, "click", `{"selector":"#arm"}`); err != nil {
				t.Fatalf("click #arm: %v", err)
			}
			seen = nil
			if err := tc.act(t); err != nil {
				t.Fatalf("leaving: %v", err)
			}
			if _, err := run(t, "take_snapshot", `{}`); err != nil {
				t.Fatalf("take_snapshot after leaving: %v", err)
			}
			reported(t, driver.DialogBeforeUnload, "accepted")
			answer(t, driver.DialogBeforeUnload)
			data, err := run(t, "get_url", `{}`)
			if err != nil || !strings.HasSuffix(fmt.Sprint(data["url"]), "/eval-other.html") {
				t.Errorf("get_url = %v, %v; want eval-other.html: the page was left", data, err)
			}
		})
	}
	h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
}

// testReadsWaitForNavigation: a read on a tab whose navigation is in
// flight answers about the new document, not the one being left.
func testReadsWaitForNavigation(t *testing.T, h *harness, base string, slowHits <-chan string) {
	id := openTab(t, h, base+"/wedge_work.html")
	navDone := make(chan error, 1)
	go func() {
		_, err := h.callCtx(t.Context(), "navigate_page", `{"url":"`+base+`/wedge_slow.html?ms=2000&tag=reads","target":"`+id+`"}`)
		navDone <- err
	}()
	// The navigation is under way once its request reached the server.
	select {
	case <-slowHits:
	case err := <-navDone:
		t.Fatalf("navigate_page ended before its request arrived: %v", err)
	}
	data := h.mustCall(t, "take_snapshot", `{"target":"`+id+`","timeout_ms":20000}`)
	if data["title"] != "Slow" {
		t.Errorf("take_snapshot during a navigation read %v, want the new page (title Slow)", data["title"])
	}
	if err := <-navDone; err != nil {
		t.Errorf("navigate_page: %v", err)
	}
	h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
}

// testSmallerTimeoutWins: a tool's own timeout and timeout_ms both bound
// the call; the smaller wins.
func testSmallerTimeoutWins(t *testing.T, h *harness, base string) {
	id := openTab(t, h, base+"/wedge_work.html")
	tests := []struct {
		args   string
		budget time.Duration
	}{
		{`{"text":["never shown"],"timeout":20000,"timeout_ms":2000}`, 2 * time.Second},
		{`{"text":["never shown"],"timeout":1000,"timeout_ms":20000}`, time.Second},
	}
	for _, tt := range tests {
		_, err := h.call(t, "wait_for", strings.TrimSuffix(tt.args, "}")+`,"target":"`+id+`"}`)
		wantCode(t, err, Timeout, "never shown")
	}
	_, err := h.call(t, "navigate_page", `{"url":"`+base+`/wedge_slow.html?ms=20000","timeout":20000,"target":"`+id+`","timeout_ms":2000}`)
	wantCode(t, err, Timeout, "")
	h.mustCall(t, "navigate_page", `{"url":"`+base+`/wedge_work.html","target":"`+id+`"}`)
	h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
}

func TestWedgeErrors(t *testing.T) {
	tests := []struct {
		err     error
		code    Code
		message string
	}{
		{fmt.Errorf("x: %w", &driver.QueueFullError{Limit: 8}), BusyQueueFull, "8 calls already wait for this tab"},
		{&stepTimeout{Tool: "take_snapshot", After: 2049 * time.Millisecond, Step: "reading the accessibility tree", Err: context.DeadlineExceeded},
			Timeout, "take_snapshot timed out after 2s while reading the accessibility tree"},
		{&stepTimeout{Tool: "click", After: 1500 * time.Millisecond, Err: context.DeadlineExceeded}, Timeout, "click timed out after 1.5s"},
	}
	for _, tt := range tests {
		got := AsError(tt.err)
		if got.Code != tt.code || got.Message != tt.message || !got.Recoverable || got.Hint == "" {
			t.Errorf("AsError(%v) = %+v, want recoverable %s %q with a hint", tt.err, got, tt.code, tt.message)
		}
	}
}
