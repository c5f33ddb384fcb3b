package tools

import (
	"fmt"
	"os"
	"path/filepath"
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
		{"select_page", `{"pageId":1}`, "pageId"},
		{"close_page", `{"pageId":2}`, "pageId"},
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
