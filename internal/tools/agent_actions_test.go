package tools

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// agentOpen loads page in h's active tab and returns its snapshot text.
func agentOpen(t *testing.T, h *harness, url string, interactive bool) string {
	t.Helper()
	tab := h.tab(t, "")
	if _, err := tab.Navigate(t.Context(), url); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	res, _, err := tab.SnapshotDiff(t.Context(), driver.SnapshotOptions{Options: snapshot.Options{Interactive: interactive}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Text
}

// agentRef returns the ref of the snapshot lines containing line, failing
// unless exactly one does.
func agentRef(t *testing.T, snap, line string) string {
	t.Helper()
	var refs []string
	for l := range strings.Lines(snap) {
		if strings.Contains(l, line) {
			refs = append(refs, strings.Fields(l)[0])
		}
	}
	if len(refs) != 1 {
		t.Fatalf("%d lines with %q in the snapshot, want 1:\n%s", len(refs), line, snap)
	}
	return refs[0]
}

// agentHits returns the page's window.hits, joined with commas.
func agentHits(t *testing.T, h *harness) string {
	t.Helper()
	return fmt.Sprint(h.mustCall(t, "evaluate_script", `{"function":"window.hits.join()"}`)["value"])
}

// TestAgentClickableRefs: elements without an interactive role that a user
// can click get one ref each (not their decorative children), in default
// and interactive snapshots and in find, and clicking each by ref runs its
// handler.
func TestAgentClickableRefs(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	full := agentOpen(t, h, base+"/clickable.html", false)
	snap := agentOpen(t, h, base+"/clickable.html", true)
	var clickable []string
	for l := range strings.Lines(snap) {
		if strings.Contains(l, " clickable ") {
			clickable = append(clickable, strings.TrimSpace(l))
		}
	}
	if len(clickable) != 7 {
		t.Errorf("interactive snapshot has %d clickable lines, want 7 (terms, privacy, more, card, row, tile, editor):\n%s", len(clickable), snap)
	}
	for _, decorative := range []string{`"★"`, `"Sales and visits`, `"Buy"`} {
		if strings.Contains(snap, "clickable "+decorative) {
			t.Errorf("snapshot gives a decorative child or a delegating list a clickable ref (%s):\n%s", decorative, snap)
		}
	}
	if !strings.Contains(full, `clickable "the terms"`) || strings.Count(full, "clickable ") != 7 {
		t.Errorf("default snapshot lacks the clickable refs:\n%s", full)
	}
	found, err := h.result(t, "find", `{"query":"privacy notice"}`)
	if err != nil || !strings.Contains(found.Text, `clickable "the privacy notice"`) {
		t.Errorf("find = %v, %v; want the clickable span", found, err)
	}
	want := []string{}
	for _, c := range []struct{ line, hit string }{
		{`clickable "the terms"`, "terms"},
		{`clickable "the privacy notice"`, "privacy"},
		{`clickable "Show more"`, "more"},
		{`clickable "★ Weekly report`, "card"},
		{`clickable "Listener only row"`, "row"},
		{`clickable "Focusable tile"`, "focusable"},
	} {
		data := h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, agentRef(t, snap, c.line)))
		want = append(want, c.hit)
		if c.hit == "more" {
			// The handler adds a clickable span: the changes list it.
			ch, _ := data["changes"].(map[string]any)
			if !strings.Contains(fmt.Sprint(ch["elements"]), `clickable "More detail"`) {
				t.Errorf("changes = %v, want the new clickable span", ch)
			}
		}
	}
	if got := agentHits(t, h); got != strings.Join(want, ",") {
		t.Errorf("handlers ran: %q, want %q", got, strings.Join(want, ","))
	}
}

// TestAgentActionabilityWaits: an action waits, within waitMs, for its
// element to appear, be enabled and stop moving, by selector and by ref;
// when the wait is over the error names the condition that failed.
func TestAgentActionabilityWaits(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	page := base + "/actionable.html"
	t.Run("appears after 1 s, by selector", func(t *testing.T) {
		agentOpen(t, h, page+"?case=late", true)
		h.mustCall(t, "click", `{"selector":"#late"}`)
		if got := agentHits(t, h); got != "late" {
			t.Errorf("hits = %q, want late", got)
		}
	})
	t.Run("enabled after 2 s, by ref", func(t *testing.T) {
		snap := agentOpen(t, h, page+"?case=later", true)
		h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, agentRef(t, snap, `button "Enabled later"`)))
		if got := agentHits(t, h); got != "later" {
			t.Errorf("hits = %q, want later", got)
		}
	})
	t.Run("enabled after 2 s, by selector", func(t *testing.T) {
		agentOpen(t, h, page+"?case=later", true)
		h.mustCall(t, "click", `{"selector":"#later"}`)
		if got := agentHits(t, h); got != "later" {
			t.Errorf("hits = %q, want later", got)
		}
	})
	t.Run("slides in, by ref and by selector", func(t *testing.T) {
		snap := agentOpen(t, h, page+"?case=slide", true)
		h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, agentRef(t, snap, `button "Sliding in"`)))
		agentOpen(t, h, page+"?case=slide", true)
		h.mustCall(t, "click", `{"selector":"#slide"}`)
		if got := agentHits(t, h); got != "slide" {
			t.Errorf("hits = %q, want slide", got)
		}
	})
	t.Run("never appears", func(t *testing.T) {
		agentOpen(t, h, page, true)
		_, err := h.call(t, "click", `{"selector":"#never","waitMs":300}`)
		wantCode(t, err, ElementNotFound, `"#never"`)
	})
	t.Run("stays disabled", func(t *testing.T) {
		agentOpen(t, h, page, true)
		_, err := h.call(t, "click", `{"selector":"#later","waitMs":300}`)
		wantCode(t, err, ElementDisabled, "is disabled")
	})
	t.Run("covered by an overlay", func(t *testing.T) {
		snap := agentOpen(t, h, page+"?case=covered", true)
		ref := agentRef(t, snap, `button "Under the overlay"`)
		_, err := h.call(t, "click", fmt.Sprintf(`{"uid":%q,"waitMs":300}`, ref))
		wantCode(t, err, ElementNotClickable, "covered by div#overlay.backdrop")
	})
	t.Run("bad waitMs", func(t *testing.T) {
		_, err := h.call(t, "click", `{"selector":"#slide","waitMs":-1}`)
		wantCode(t, err, InvalidArgs, "waitMs")
	})
}

// TestAgentSemanticTargets: role+name and text name an element without a
// snapshot; several matches are AMBIGUOUS_TARGET listing their refs.
func TestAgentSemanticTargets(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	agentOpen(t, h, base+"/targets.html", true)
	h.mustCall(t, "click", `{"role":"button","name":"Save"}`)
	h.mustCall(t, "click", `{"byText":"Save"}`)
	h.mustCall(t, "click", `{"text":"cance"}`) // a substring, any case; text is byText's old name
	h.mustCall(t, "fill", `{"role":"textbox","name":"Title","value":"Report"}`)
	if got := agentHits(t, h); got != "save,save,cancel" {
		t.Errorf("hits = %q, want save,save,cancel", got)
	}
	if v := h.mustCall(t, "evaluate_script", `{"function":"document.getElementById('title').value"}`)["value"]; v != "Report" {
		t.Errorf("title = %v, want Report", v)
	}
	snap := agentOpen(t, h, base+"/targets.html?two", true)
	var refs []string
	for l := range strings.Lines(snap) {
		if strings.Contains(l, `button "Save"`) {
			refs = append(refs, strings.Fields(l)[0])
		}
	}
	if len(refs) != 2 {
		t.Fatalf("want two Save buttons:\n%s", snap)
	}
	for _, args := range []string{`{"text":"Save"}`, `{"role":"button","name":"Save"}`} {
		_, err := h.call(t, "click", args)
		e := wantCode(t, err, AmbiguousTarget, refs[0])
		if e != nil && !strings.Contains(e.Message, refs[1]) {
			t.Errorf("message %q does not list %s", e.Message, refs[1])
		}
	}
	_, err := h.call(t, "click", `{"text":"Publish","waitMs":200}`)
	wantCode(t, err, ElementNotFound, `"Publish"`)
	_, err = h.call(t, "click", `{"name":"Save"}`)
	wantCode(t, err, InvalidArgs, "role")
	_, err = h.call(t, "click", `{"text":"Save","selector":"#save"}`)
	wantCode(t, err, InvalidArgs, "do not go together")
	_, err = h.call(t, "click", `{"text":"Save","byText":"Save"}`)
	wantCode(t, err, InvalidArgs, "text")
}

// TestFillTextIsNoValue: fill's element locator by text is byText (text
// still works, as its old name); text given where Playwright MCP's habit
// puts what to type is refused with a hint naming value, not "value
// required" (issue #39).
func TestFillTextIsNoValue(t *testing.T) {
	fill := toolNamed(t, "fill")
	if fill.InputSchema.Properties["byText"] == nil || !strings.Contains(fill.Description+toolNamed(t, "click").Description, "byText") {
		t.Errorf("fill has no byText locator described")
	}
	for _, args := range []string{`{"uid":"e3","text":"hello"}`, `{"selector":"#q","text":"hello"}`, `{"text":"hello"}`} {
		_, err := fill.Call(t.Context(), testEnv(), json.RawMessage(args))
		te := wantCode(t, err, InvalidArgs, "")
		if !strings.Contains(te.Hint, "value") || !strings.Contains(te.Hint, "byText") {
			t.Errorf("fill %s: hint %q, want one naming value and byText", args, te.Hint)
		}
	}
}

// TestAgentEvalExpression: evaluate_script takes a plain expression; a
// syntax error is INVALID_ARGS naming where.
func TestAgentEvalExpression(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	agentOpen(t, h, base+"/targets.html", true)
	if v := h.mustCall(t, "evaluate_script", `{"function":"document.title"}`)["value"]; v != "Targets" {
		t.Errorf("document.title = %v, want Targets", v)
	}
	if v := h.mustCall(t, "evaluate_script", `{"function":"[...document.querySelectorAll('button')].length"}`)["value"]; v != float64(2) {
		t.Errorf("button count = %v, want 2", v)
	}
	_, err := h.call(t, "evaluate_script", `{"function":"document.title +"}`)
	wantCode(t, err, InvalidArgs, "SyntaxError")
}

// TestAgentCustomDropdown: select_option opens an ARIA combobox, picks the
// option by label (options that render after the click included) and
// checks the result; an unknown label lists the options.
func TestAgentCustomDropdown(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	agentOpen(t, h, base+"/dropdown.html", true)
	data := h.mustCall(t, "select_option", `{"selector":"#country","values":["Peru"]}`)
	if fmt.Sprint(data["selected"]) != "[Peru]" {
		t.Errorf("result = %v, want selected [Peru]", data)
	}
	if v := h.mustCall(t, "evaluate_script", `{"function":"document.getElementById('chosen').textContent"}`)["value"]; v != "Peru" {
		t.Errorf("chosen = %v, want Peru", v)
	}
	_, err := h.call(t, "select_option", `{"selector":"#country","values":["Mars"],"timeout_ms":20000}`)
	wantCode(t, err, InvalidArgs, `"Japan", "Peru", "Portugal"`)
}

// TestSeedArgs covers arguments the seed asked for (issue #39): press_key
// repeat, scroll top and bottom, take_screenshot delay_ms; each bounded.
func TestSeedArgs(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Seed</title><input id=q>
<div style="height:5000px"></div><p id=end>end</p>
<script>setTimeout(() => document.title = "Later", 300)</script>`)
	}))
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+"/"))
	eval := func(js string) any {
		t.Helper()
		return h.mustCall(t, "evaluate_script", fmt.Sprintf(`{"function":%q}`, js))["value"]
	}

	h.mustCall(t, "press_key", `{"key":"a","selector":"#q","repeat":3}`)
	if got := eval("document.getElementById('q').value"); got != "aaa" {
		t.Errorf("press_key a repeat 3 typed %q, want aaa", got)
	}

	bottom := h.mustCall(t, "scroll", `{"direction":"bottom"}`)
	if y, _ := bottom["scrollY"].(float64); y < 4000 {
		t.Errorf("scroll bottom: scrollY %v, want the end of the 5000 px page", bottom["scrollY"])
	}
	if top := h.mustCall(t, "scroll", `{"direction":"top"}`); top["scrollY"] != 0.0 {
		t.Errorf("scroll top: scrollY %v, want 0", top["scrollY"])
	}

	// The title changes 300 ms after the load; a screenshot delayed past
	// it is taken after the page's own timer ran.
	h.mustCall(t, "take_screenshot", `{"delay_ms":1000}`)
	if got := eval("document.title"); got != "Later" {
		t.Errorf("after a 1000 ms delayed screenshot the title is %v, want Later", got)
	}

	for _, c := range []struct{ tool, args, mention string }{
		{"press_key", `{"key":"a","repeat":-1}`, "repeat"},
		{"press_key", `{"key":"a","repeat":1000}`, "repeat"},
		{"scroll", `{"direction":"bottom","pixels":10}`, "pixels"},
		{"take_screenshot", `{"delay_ms":-1}`, "delay_ms"},
		{"take_screenshot", `{"delay_ms":60000}`, "delay_ms"},
	} {
		_, err := h.call(t, c.tool, c.args)
		wantCode(t, err, InvalidArgs, c.mention)
	}
}
