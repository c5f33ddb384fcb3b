package browser

import (
	"errors"
	"math"
	"reflect"
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// TestCallJSArguments checks that every kind of argument reaches a page
// script as itself, on an object and in the main world.
func TestCallJSArguments(t *testing.T) {
	_, tab := newTab(t)
	s, err := tab.Session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	echo := pageScript{name: "echo", src: `function(...a) {
		return [this === globalThis ? 'global' : String(this.nodeName),
			...a.map(v => v === undefined ? 'undefined' : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)];
	}`}
	doc, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.body"})
	if err != nil || doc.Result == nil || doc.Result.ObjectID == "" {
		t.Fatalf("resolving document.body: %v", err)
	}
	plain := []any{"", []string{}, nil, math.NaN(), math.Inf(-1), 2.5, map[string]int{"a": 1}, (*float64)(nil)}
	wantPlain := []any{"", []any{}, nil, "NaN", "-Infinity", 2.5, map[string]any{"a": 1.0}, nil}
	tests := []struct {
		name string
		on   jsCall
		args []any
		want []any
	}{
		{"main world", jsCall{}, plain, append([]any{"global"}, wantPlain...)},
		{"on an object", jsCall{this: doc.Result.ObjectID}, plain, append([]any{"BODY"}, wantPlain...)},
		{"handles among values", jsCall{this: doc.Result.ObjectID},
			[]any{"x", &runtime.CallArgument{ObjectID: doc.Result.ObjectID}, &runtime.CallArgument{}, &runtime.CallArgument{Value: []byte(`""`)}, 1.0},
			[]any{"BODY", "x", map[string]any{}, "undefined", "", 1.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			if err := callJS(t.Context(), s, tt.on, echo, &got, tt.args...); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("the page saw %#v, want %#v", got, tt.want)
			}
		})
	}

	throws := pageScript{name: "throws", src: `() => { throw new TypeError('bad input') }`}
	err = callJS(t.Context(), s, jsCall{}, throws, nil)
	var se *scriptError
	if !errors.As(err, &se) || se.text != "TypeError: bad input" {
		t.Errorf("a throwing script: error %v, want a *scriptError with TypeError: bad input", err)
	}
	if err := callJS(t.Context(), s, jsCall{}, echo, nil, &runtime.CallArgument{ObjectID: doc.Result.ObjectID}); err == nil {
		t.Error("a handle in the main world: no error, want one")
	}
}

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{"scroll_report": "scrollReport", "a": "a", "await_two_frames": "awaitTwoFrames"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
}
