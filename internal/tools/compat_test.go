package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChromeDevtoolsMCPCalls replays calls shaped as chrome-devtools-mcp's
// clients send them (its argument names): those whose meaning matches
// work; those whose meaning cannot match are INVALID_ARGS with a hint
// (issue #24 item 9).
func TestChromeDevtoolsMCPCalls(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	file := filepath.Join(h.env.Artifacts.Dir(), "cv.txt")
	if err := os.WriteFile(file, []byte("cv"), 0o644); err != nil {
		t.Fatal(err)
	}
	works := []struct{ tool, args string }{
		{"new_page", fmt.Sprintf(`{"url":%q,"timeout":0}`, base+"/form.html")},
		{"new_page", fmt.Sprintf(`{"url":%q,"background":true,"timeout":30000}`, base+"/nav-one.html")},
		{"navigate_page", fmt.Sprintf(`{"type":"url","url":%q,"handleBeforeUnload":"accept","timeout":0}`, base+"/forms-fields.html")},
		{"take_snapshot", `{"verbose":false}`},
		{"press_key", `{"key":"Tab","includeSnapshot":true}`},
		{"type_text", `{"text":"x","submitKey":"Tab"}`},
		{"list_console_messages", `{"pageSize":10,"pageIdx":0,"types":["error"]}`},
		{"take_screenshot", `{"format":"jpeg","quality":50,"fullPage":true}`},
		{"upload_file", fmt.Sprintf(`{"selector":"input[type=file]","filePaths":[%q]}`, file)},
	}
	for _, c := range works {
		if _, err := h.call(t, c.tool, c.args); err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
	refused := []struct{ tool, args, mention string }{
		{"take_snapshot", `{"verbose":true}`, "verbose"},
		{"navigate_page", `{"type":"reload","initScript":"1"}`, "initScript"},
		{"navigate_page", `{"type":"reload","handleBeforeUnload":"dismiss"}`, "handleBeforeUnload"},
		{"new_page", `{"url":"about:blank","isolatedContext":"a"}`, "isolatedContext"},
		{"list_console_messages", `{"includePreservedMessages":true}`, "includePreservedMessages"},
	}
	for _, c := range refused {
		_, err := h.call(t, c.tool, c.args)
		wantCode(t, err, InvalidArgs, c.mention)
	}
}

// TestChromeDevtoolsMCPPageID replays a chrome-devtools-mcp-shaped session
// that names tabs by pageId, as its list_pages numbers them: from 1 in the
// order the tabs were first seen, never shifting when a tab closes and
// never given again (issue #24 item 9). cdpkit's index:N shifts; pageId
// does not.
func TestChromeDevtoolsMCPPageID(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil) // a scope of its own: its tabs are numbered from 1
	pageID := func(data map[string]any) int {
		t.Helper()
		n, ok := data["pageId"].(float64)
		if !ok {
			t.Fatalf("result has no pageId: %v", data)
		}
		return int(n)
	}
	// pageIDs reads list_pages (or close_page) rows as pageId → url.
	pageIDs := func(data map[string]any) map[int]string {
		t.Helper()
		out := map[int]string{}
		for _, p := range data["pages"].([]any) {
			row := p.(map[string]any)
			out[int(row["pageId"].(float64))] = row["url"].(string)
		}
		return out
	}
	snapshotTitle := func(args string) string {
		t.Helper()
		data := h.mustCall(t, "take_snapshot", args)
		return fmt.Sprint(data["title"], " ", data["url"])
	}
	for i, page := range []string{"/nav-one.html", "/nav-two.html", "/form.html"} {
		data := h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q,"timeout":0}`, base+page))
		if got := pageID(data); got != i+1 {
			t.Errorf("new_page %s: pageId %d, want %d", page, got, i+1)
		}
	}
	if got, want := pageIDs(h.mustCall(t, "list_pages", `{}`)), map[int]string{1: base + "/nav-one.html", 2: base + "/nav-two.html", 3: base + "/form.html"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("list_pages pageIds = %v, want %v", got, want)
	}
	// Page-scoped calls with pageId act on that tab, whichever is active.
	if got := snapshotTitle(`{"pageId":2}`); !strings.Contains(got, "/nav-two.html") {
		t.Errorf("take_snapshot pageId 2 read %q, want nav-two", got)
	}
	if got := pageID(h.mustCall(t, "select_page", `{"pageId":1,"bringToFront":true}`)); got != 1 {
		t.Errorf("select_page pageId 1 selected pageId %d", got)
	}
	// Closing pageId 1 moves every index down by one; pageIds stay.
	closed := h.mustCall(t, "close_page", `{"pageId":1}`)
	if got, want := pageIDs(closed), map[int]string{2: base + "/nav-two.html", 3: base + "/form.html"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("close_page pageId 1 left %v, want %v", got, want)
	}
	if got := int(closed["closedPageId"].(float64)); got != 1 {
		t.Errorf("close_page closedPageId = %d, want 1", got)
	}
	if got := snapshotTitle(`{"pageId":3}`); !strings.Contains(got, "/form.html") {
		t.Errorf("after the close, take_snapshot pageId 3 read %q, want form", got)
	}
	// A bare number as target is the pageId the server printed.
	for _, args := range []string{`{"target":"3"}`, `{"target":3}`} {
		if got := snapshotTitle(args); !strings.Contains(got, "/form.html") {
			t.Errorf("after the close, take_snapshot %s read %q, want form (pageId 3)", args, got)
		}
	}
	if got := snapshotTitle(`{"target":"index:1"}`); !strings.Contains(got, "/form.html") {
		t.Errorf("after the close, index:1 read %q, want form (index shifts)", got)
	}
	h.mustCall(t, "select_page", `{"pageId":2}`)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"pageId":3,"type":"url","url":%q}`, base+"/nav-one.html"))
	if got := pageIDs(h.mustCall(t, "list_pages", `{}`)); got[3] != base+"/nav-one.html" || got[2] != base+"/nav-two.html" {
		t.Errorf("navigate_page pageId 3 did not load in pageId 3: %v", got)
	}
	// A closed tab's number is not given again.
	if got := pageID(h.mustCall(t, "new_page", `{"url":"about:blank"}`)); got != 4 {
		t.Errorf("new_page after a close: pageId %d, want 4", got)
	}
	_, err := h.call(t, "close_page", `{"pageId":1}`)
	wantCode(t, err, TargetNotFound, "pageId:1")
	_, err = h.call(t, "take_snapshot", `{"target":"1"}`)
	wantCode(t, err, TargetNotFound, "1")
	for _, c := range []struct{ tool, args, mention string }{
		{"take_snapshot", `{"pageId":0}`, "pageId"},
		{"take_snapshot", `{"pageId":"2"}`, "pageId"},
		{"take_snapshot", `{"pageId":2,"target":"index:0"}`, "target"},
		{"list_pages", `{"pageId":2}`, "pageId"},
	} {
		_, err := h.call(t, c.tool, c.args)
		wantCode(t, err, InvalidArgs, c.mention)
	}
}

// TestPlaywrightArgsHint: Playwright MCP names an element by ref (with a
// description in element); cdpkit's refused unknown argument says to
// pass the ref as uid (issue #39).
func TestPlaywrightArgsHint(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"click", `{"element":"Save button","ref":"e3"}`},
		{"hover", `{"ref":"e3"}`},
		{"fill", `{"element":"Email","value":"a@b.c"}`},
	} {
		_, err := toolNamed(t, c.tool).Call(t.Context(), testEnv(), json.RawMessage(c.args))
		te := wantCode(t, err, InvalidArgs, "")
		if !strings.Contains(te.Hint, "uid") {
			t.Errorf("%s %s: hint %q does not name uid", c.tool, c.args, te.Hint)
		}
	}
}
