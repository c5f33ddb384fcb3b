package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// toolsListChars is the size of what tools/list sends for these tools.
func toolsListChars(t *testing.T, list []Tool) int {
	t.Helper()
	type wire struct {
		Name         string `json:"name"`
		Description  string `json:"description"`
		InputSchema  any    `json:"inputSchema"`
		OutputSchema any    `json:"outputSchema,omitempty"`
		Annotations  any    `json:"annotations"`
	}
	var ws []wire
	for _, tool := range list {
		var out any
		if tool.OutputSchema != nil {
			out = tool.OutputSchema
		}
		ws = append(ws, wire{tool.Name, tool.Description, tool.InputSchema, out, map[string]any{
			"readOnlyHint": tool.ReadOnly, "destructiveHint": false, "idempotentHint": tool.Idempotent,
		}})
	}
	b, err := json.Marshal(map[string]any{"tools": ws})
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func TestProfiles(t *testing.T) {
	core, err := Select("core")
	if err != nil {
		t.Fatalf("Select(core): %v (every core tool must exist)", err)
	}
	var names []string
	for _, tool := range core {
		names = append(names, tool.Name)
	}
	// What the open → look → act → verify loop needs, declared Core.
	// Since issue #24 item 8 also uploads, tabs and the console: the
	// README task and every fixture flow finish on core alone.
	want := []string{"click", "fill", "get_text", "handle_dialog", "list_console_messages", "list_pages",
		"navigate_page", "new_page", "press_key", "select_page", "take_screenshot", "take_snapshot", "type_text",
		"upload_file", "wait_for"}
	if !slices.Equal(names, want) {
		t.Errorf("core = %v, want %v", names, want)
	}
	// The core profile's tools/list must stay within 9,000 characters of
	// JSON (about 2,250 tokens; under half of the smaller peer's).
	if n := toolsListChars(t, core); n > 9000 {
		t.Errorf("core tools/list is %d chars, want at most 9,000", n)
	} else {
		t.Logf("core tools/list: %d chars; full: %d chars", n, toolsListChars(t, All()))
	}
	devtools, err := Select("devtools")
	if err != nil || len(devtools) != len(devtoolsTools) {
		t.Errorf("Select(devtools) = %d tools, %v; want %d", len(devtools), err, len(devtoolsTools))
	} else {
		t.Logf("devtools tools/list: %d chars", toolsListChars(t, devtools))
	}
	full, _ := Select("full")
	if len(full) != len(All()) {
		t.Errorf("full has %d tools, want all %d", len(full), len(All()))
	}
	some, err := Select("take_snapshot, find,find")
	if err != nil || len(some) != 2 {
		t.Errorf("Select(list) = %d tools, %v; want 2", len(some), err)
	}
	if _, err := Select("take_snapshot,nope"); err == nil {
		t.Error("Select with an unknown name succeeded")
	}
}

// TestDeclarations checks what the registry relies on: a tool that reports
// changes works on a tab, and a verb fills arguments its tool has.
func TestDeclarations(t *testing.T) {
	for _, tool := range All() {
		if tool.Changes != NoChanges && !tool.Tab {
			t.Errorf("%s reports changes but needs no tab", tool.Name)
		}
		if tool.Tab && tool.InputSchema.Properties["target"] == nil {
			t.Errorf("%s works on a tab but takes no target", tool.Name)
		}
		for _, v := range tool.Verbs {
			for _, a := range v.Args {
				name, _, _ := strings.Cut(strings.TrimSuffix(a, "?"), ":")
				if tool.InputSchema.Properties[name] == nil && !(v.Name == "screenshot" && name == "path") {
					t.Errorf("verb %s fills %q, which %s does not take", v.Name, name, tool.Name)
				}
			}
		}
	}
}
