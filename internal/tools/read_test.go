package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestReadToolsRejectArgs checks the argument errors caught before any
// browser is needed.
func TestReadToolsRejectArgs(t *testing.T) {
	t.Parallel()
	tools := map[string]Tool{}
	for _, tool := range readTools() {
		tools[tool.Name] = tool
	}
	tests := []struct {
		tool    string
		args    string
		mention string
	}{
		{"list_console_messages", `{"pageSize":201}`, "pageSize"},
		{"list_console_messages", `{"pageSize":-1}`, "pageSize"},
		{"list_console_messages", `{"pageIdx":-1}`, "pageIdx"},
		{"list_console_messages", `{"types":["log","loud"]}`, "loud"},
		{"list_console_messages", `{"types":"error"}`, "types"},
		{"get_console_message", `{}`, "msgid"},
		{"get_console_message", `{"msgid":0}`, "msgid"},
		{"get_console_message", `{"msgid":"3"}`, "msgid"},
		{"get_text", `{"uid":"e1","selector":"p"}`, "uid and selector"},
		{"get_text", `{"maxChars":-5}`, "maxChars"},
		{"get_url", `{"url":"x"}`, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			tool, ok := tools[tt.tool]
			if !ok {
				t.Fatalf("no tool %s", tt.tool)
			}
			_, err := tool.Call(t.Context(), testEnv(), json.RawMessage(tt.args))
			var te *Error
			if !errors.As(err, &te) || te.Code != InvalidArgs || !strings.Contains(te.Message, tt.mention) {
				t.Fatalf("error = %v, want INVALID_ARGS mentioning %q", err, tt.mention)
			}
			if te.Hint == "" {
				t.Errorf("error %v has no hint", te)
			}
		})
	}
}

func TestConsoleLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    driver.ConsoleMessage
		want string
	}{
		{driver.ConsoleMessage{ID: 12, Level: "error", Source: "exception", Text: "Uncaught TypeError: x is undefined", URL: "http://h/js/page.js?v=2", Line: 3},
			"#12 error page.js:3 Uncaught TypeError: x is undefined"},
		{driver.ConsoleMessage{ID: 1, Level: "log", Source: "console", Text: "two\nlines"},
			`#1 log two\nlines`},
		{driver.ConsoleMessage{ID: 2, Level: "warn", Source: "console", Text: "cut", Truncated: true, URL: "http://h:8080/"},
			"#2 warn h:8080 cut…"},
		{driver.ConsoleMessage{ID: 3, Level: "error", Source: "network", Text: "Failed to load resource", URL: "http://h/img/a.png"},
			"#3 error [network] a.png Failed to load resource"},
		{driver.ConsoleMessage{ID: 4, Level: "log", Source: "console", Text: "x", URL: "data:text/javascript," + strings.Repeat("a", 100), Line: 1},
			"#4 log data:text/javascript," + strings.Repeat("a", 19) + "…:1 x"},
	}
	for _, tt := range tests {
		if got := consoleLine(tt.m); got != tt.want {
			t.Errorf("consoleLine(%+v)\n got %q\nwant %q", tt.m, got, tt.want)
		}
	}
}
