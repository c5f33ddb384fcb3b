package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestWaitForAwaited: the step a wait_for call is in names what it waits
// for, so a TIMEOUT from the call's deadline says it too.
func TestWaitForAwaited(t *testing.T) {
	tests := []struct {
		in   waitForArgs
		want string
	}{
		{waitForArgs{Text: []string{"Saved!"}}, `waiting for the texts ["Saved!"]`},
		{waitForArgs{TextGone: "Loading", Selector: "#x"}, `waiting for the text "Loading" to go, "#x" to be visible`},
		{waitForArgs{Selector: "#x", State: "detached", URL: "**/done"}, `waiting for "#x" to be detached, the URL "**/done"`},
	}
	for _, tt := range tests {
		if got := tt.in.awaited(); got != tt.want {
			t.Errorf("awaited(%+v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWaitForRejectArgs(t *testing.T) {
	tool := waitTools()[0]
	tests := []struct {
		args    string
		mention string
	}{
		{`{}`, "nothing to wait for"},
		{`{"text":[]}`, "nothing to wait for"},
		{`{"time":-1}`, "negative"},
		{`{"text":["a"],"timeout":-5}`, "negative"},
		{`{"time":100,"text":["a"]}`, "time does not go with"},
		{`{"time":100,"timeout":200}`, "time does not go with"},
		{`{"state":"visible"}`, "state needs a selector"},
		{`{"time":60000}`, "past the call's deadline"},
		{`{"text":"one","time":100}`, "time does not go with"}, // a string is a one-item list
		{`{"text":1}`, "text"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, err := tool.Call(t.Context(), testEnv(), json.RawMessage(tt.args))
			wantCode(t, err, InvalidArgs, tt.mention)
		})
	}
}

func TestWaitForTool(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	// Each case runs in a tab (and browser context) of its own.
	open := func(t *testing.T, page string) *harness {
		t.Helper()
		t.Parallel()
		h := newHarness(t, nil)
		h.mustCall(t, "navigate_page", `{"url":"`+base+"/"+page+`"}`)
		return h
	}
	tests := []struct {
		name  string
		args  string
		match string // the matched object, as JSON
	}{
		{"text after a timer", `{"text":["Failed","Saved!"]}`, `{"text":"Saved!"}`},
		{"text as a string", `{"text":"Saved!"}`, `{"text":"Saved!"}`}, // as chrome-devtools-mcp and Playwright MCP send it
		{"text gone", `{"textGone":"Loading…"}`, `{"textGone":"Loading…"}`},
		{"selector visible", `{"selector":"#panel"}`, `{"selector":"#panel","state":"visible"}`},
		{"selector hidden", `{"selector":"#spinner","state":"hidden"}`, `{"selector":"#spinner","state":"hidden"}`},
		{"url after pushState", `{"url":"/items/42"}`, `{"url":"BASE/items/42"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, "wait-delayed.html")
			data := h.mustCall(t, "wait_for", tt.args)
			got, _ := json.Marshal(data["matched"])
			if want := strings.ReplaceAll(tt.match, "BASE", base); string(got) != want {
				t.Errorf("matched = %s, want %s", got, want)
			}
			if ms, ok := data["elapsedMs"].(float64); !ok || ms > 5000 {
				t.Errorf("elapsedMs = %v, want a number under the timeout", data["elapsedMs"])
			}
		})
	}

	t.Run("time", func(t *testing.T) {
		h := open(t, "wait-delayed.html")
		start := time.Now()
		data := h.mustCall(t, "wait_for", `{"time":300}`)
		if ms, _ := data["elapsedMs"].(float64); ms < 300 || time.Since(start) < 300*time.Millisecond {
			t.Errorf("elapsedMs = %v after %v, want at least 300", data["elapsedMs"], time.Since(start))
		}
	})

	t.Run("timeout", func(t *testing.T) {
		h := open(t, "wait-delayed.html?delay=60000")
		// The wait's own TIMEOUT, naming what it waited for; the call's
		// deadline (toolTimeout) would say "timed out after". 3 s, not
		// less: on a loaded machine a shorter wait ended before its first
		// look at the page, so its message could not say "(it is visible)".
		_, err := h.call(t, "wait_for", `{"text":["Saved!"],"selector":"#temp","state":"detached","timeout":3000}`)
		te := wantCode(t, err, Timeout, `none of the texts ["Saved!"] appeared; "#temp" is not detached (it is visible)`)
		if !te.Recoverable {
			t.Errorf("TIMEOUT is not recoverable")
		}
	})

	t.Run("timeout capped by the call's deadline", func(t *testing.T) {
		h := open(t, "wait-delayed.html?delay=60000")
		// Within the test's own deadline: the wait ends with the call's
		// 2 s, not its own 60 s.
		short := h.with(func(env *Env) { env.Timeout = 2 * time.Second })
		_, err := short.call(t, "wait_for", `{"text":["Saved!"],"timeout":60000}`)
		wantCode(t, err, Timeout, "Saved!")
	})

	t.Run("bad selector", func(t *testing.T) {
		h := open(t, "wait-delayed.html")
		_, err := h.call(t, "wait_for", `{"selector":"div[","state":"attached"}`)
		wantCode(t, err, InvalidArgs, "does not parse")
	})
}
