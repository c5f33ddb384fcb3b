package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// doorOnly are the calls that only the registry's door (door.go) and the
// changes section it builds (changes.go) may make: reaching a tab, taking
// its turn, the crash and dialog checks, and noting or reporting changes.
var doorOnly = map[string]bool{
	"TabIn": true, "ResolveIn": true, "Resolve": true, "Acquire": true, "AwaitNavigation": true,
	"CheckCrashed": true, "CheckDialog": true, "SetDialogPolicy": true,
	"observe": true, "changesSince": true, "enterTab": true, "through": true,
}

// TestNoHandlerSkipsTheDoor fails when a file other than the door's makes
// one of the door's calls: a handler gets its tab from the door and
// returns its data, so none can skip the scope, queue, crash and dialog
// checks or the changes section.
func TestNoHandlerSkipsTheDoor(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "door.go" || name == "changes.go" || name == "registry.go" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch f := call.Fun.(type) {
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			case *ast.Ident:
				fn = f.Name
			}
			if doorOnly[fn] {
				t.Errorf("%s calls %s: that is the door's work (door.go), driven by the tool's declaration", name, fn)
			}
			return true
		})
	}
}

// TestPutChanges checks that the door fills the changes section of the
// data types that hold one (see changesHolder), and refuses any other.
func TestPutChanges(t *testing.T) {
	t.Parallel()
	c := &Changes{URL: "u"}
	type withField struct {
		A int `json:"a"`
		changed
	}
	type withEmbedded struct {
		*driver.NavResult
		changedIfAny
	}
	type plainField struct {
		Changes *Changes `json:"changes"`
	}
	tests := []struct {
		name string
		data any
		want string // the data as JSON, or "error"
	}{
		{"map", changesMap{"key": "k"}, `{"changes":{"url":"u"},"key":"k"}`},
		{"pointer", &withField{A: 2}, `{"a":2,"changes":{"url":"u"}}`},
		{"embedded", &withEmbedded{NavResult: &driver.NavResult{URL: "x"}}, `{"url":"x","title":"","changes":{"url":"u"}}`},
		{"not a pointer", withField{A: 1}, "error"},
		{"plain map", map[string]any{"key": "k"}, "error"},
		{"a field of its own", &plainField{}, "error"},
		{"nil", nil, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := putChanges(tt.data, c)
			if tt.want == "error" {
				if err == nil {
					t.Errorf("putChanges(%T) = nil, want an error", tt.data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := mustJSON(t, tt.data); s != tt.want {
				t.Errorf("putChanges(%T): data %s, want %s", tt.data, s, tt.want)
			}
		})
	}
}

// TestChangesLeftOut checks how each kind of section shows changes that
// could not be read: changed as null, changedIfAny and changesMap not at
// all, as the tools' results always did.
func TestChangesLeftOut(t *testing.T) {
	t.Parallel()
	type always struct {
		A int `json:"a"`
		changed
	}
	type ifAny struct {
		A int `json:"a"`
		changedIfAny
	}
	for _, tt := range []struct {
		data any
		want string
	}{
		{&always{A: 1}, `{"a":1,"changes":null}`},
		{&ifAny{A: 1}, `{"a":1}`},
		{changesMap{"a": 1}, `{"a":1}`},
	} {
		if s := mustJSON(t, tt.data); s != tt.want {
			t.Errorf("%T without changes = %s, want %s", tt.data, s, tt.want)
		}
	}
}

// TestAsErrorFollowsTheWrapping checks that which rule applies follows
// from how the error is wrapped, not from the table's order.
func TestAsErrorFollowsTheWrapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     error
		code    Code
		message string
	}{
		{"a disconnect caused by a crash is a crash",
			&cdp.DisconnectedError{Method: "m", Cause: &driver.CrashedError{}}, BrowserCrashed, "the browser crashed during the call"},
		{"a disconnect alone", &cdp.DisconnectedError{Method: "m"}, BrowserCrashed, "the browser went away during the call"},
		{"a renderer crash failing a pending call", fmt.Errorf("x: %w", driver.ErrTargetCrashed), TargetCrashed, "the tab's renderer crashed"},
		{"a step timeout around a deadline", &stepTimeout{Tool: "click", Step: "aiming", Err: context.DeadlineExceeded}, Timeout, "click timed out after 0s while aiming"},
		{"an element error around its cause", fmt.Errorf("x: %w", &driver.ElementError{Ref: "e3", Err: driver.ErrRefStale}), RefStale, "e3 belongs to a page state that is gone"},
		{"a sentinel an element error does not wrap falls through", driver.ErrRefStale, Internal, driver.ErrRefStale.Error()},
		{"a deadline in a cancelled call", errors.Join(context.Canceled, context.DeadlineExceeded), Timeout, errors.Join(context.Canceled, context.DeadlineExceeded).Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AsError(tt.err)
			if got.Code != tt.code || got.Message != tt.message {
				t.Errorf("AsError(%v) = %s %q, want %s %q", tt.err, got.Code, got.Message, tt.code, tt.message)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestErrorPhase: an error says where in the call it happened: args
// (refused before any browser work), resolve (finding the browser and
// the tab), queue (waiting for the tab), action (the tool's own work) or
// settle (reading what the action changed) (issue #39).
func TestErrorPhase(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/form.html"))
	for _, c := range []struct {
		tool, args string
		code       Code
		phase      string
	}{
		{"click", `{}`, InvalidArgs, "args"},
		{"click", `{"uid":"e1","bogus":1}`, InvalidArgs, "args"},
		{"take_snapshot", `{"target":"index:99"}`, TargetNotFound, "resolve"},
		{"click", `{"selector":"#nope","waitMs":100}`, ElementNotFound, "action"},
		{"wait_for", `{"text":["never there"],"timeout":100}`, Timeout, "action"},
	} {
		_, err := h.call(t, c.tool, c.args)
		if te := wantCode(t, err, c.code, ""); te != nil && te.Phase != c.phase {
			t.Errorf("%s %s: phase %q, want %q", c.tool, c.args, te.Phase, c.phase)
		}
	}
}
