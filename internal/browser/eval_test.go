package browser

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestEvaluateValues(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fn   string
		want string
	}{
		{"string", `() => document.title`, `"Values"`},
		{"number", `() => 6 * 7`, `42`},
		{"async", `async () => { await new Promise(r => setTimeout(r, 10)); return [1, 'two', true, null] }`, `[1,"two",true,null]`},
		{"undefined", `() => undefined`, `"[undefined]"`},
		{"no return", `() => { window.counter++ }`, `"[undefined]"`},
		{"specials", `() => [NaN, Infinity, -Infinity, -0, 12n]`, `["[NaN]","[Infinity]","[-Infinity]",0,"12n"]`},
		{"bigint alone", `() => 2n ** 70n`, `"1180591620717411303424n"`},
		{"NaN alone", `() => NaN`, `"[NaN]"`},
		{"date", `() => new Date(Date.UTC(2024, 4, 1, 10))`, `"[Date 2024-05-01T10:00:00.000Z]"`},
		{"error", `() => new TypeError('bad thing')`, `"[TypeError: bad thing]"`},
		{"map", `() => new Map([['a', 1], ['b', {c: 2}]])`, `{"[Map]":{"a":1,"b":{"c":2}}}`},
		{"map with object keys", `() => new Map([[{k: 1}, 'v']])`, `{"[Map]":[[{"k":1},"v"]]}`},
		{"set", `() => new Set([1, 'x'])`, `{"[Set]":[1,"x"]}`},
		{"function", `() => function named() {}`, `"[Function named]"`},
		{"symbol", `() => Symbol('s')`, `"[Symbol(s)]"`},
		{"regexp", `() => /a+/gi`, `"[RegExp /a+/gi]"`},
		{"element", `() => document.getElementById('save')`, `"<button#save.primary.big>"`},
		{"node list", `() => document.querySelectorAll('button, input')`, `["<button#save.primary.big>","<input#name>"]`},
		{"text node", `() => document.getElementById('save').firstChild`, `"#text \"Save\""`},
		{"window", `() => window`, ``},
		{"cycle", `() => { const a = {name: 'a'}; a.self = a; a.list = [a]; return a }`, `{"name":"a","self":"[Circular]","list":["[Circular]"]}`},
		{"shared, not a cycle", `() => { const x = {v: 1}; return [x, x] }`, `[{"v":1},{"v":1}]`},
		{"toJSON ignored", `() => ({toJSON() { return 'hidden' }, v: 1})`, `{"toJSON":"[Function toJSON]","v":1}`},
		{"throwing getter", `() => ({get bad() { throw new Error('nope') }})`, `{"bad":"[Thrown: nope]"}`},
		{"depth cap", `() => ({a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}})`, `{"a":{"b":{"c":{"d":{"e":{"f":"[Object]"}}}}}}`},
		{"typed array", `() => new Uint8Array([1, 2])`, `[1,2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tab.Evaluate(t.Context(), tt.fn, nil, driver.EvalInline)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if tt.name == "window" {
				if !strings.HasPrefix(string(res.Value), `"[Window http://`) {
					t.Errorf("value = %s, want [Window url]", res.Value)
				}
				return
			}
			if string(res.Value) != tt.want {
				t.Errorf("value = %s, want %s", res.Value, tt.want)
			}
			if want := tt.name == "depth cap"; res.Truncated != want {
				t.Errorf("truncated = %v, want %v", res.Truncated, want)
			}
		})
	}
}

func TestEvaluateCaps(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	lim := driver.EvalLimits{Depth: 6, Items: 5, Chars: 200}
	tests := []struct {
		name string
		fn   string
		want string
	}{
		{"array items", `() => Array.from({length: 8}, (_, i) => i)`, `[0,1,2,3,4,"[… 3 more]"]`},
		{"object keys", `() => Object.fromEntries(Array.from({length: 7}, (_, i) => ['k' + i, i]))`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"…":"2 more keys"}`},
		{"set items", `() => new Set([1, 2, 3, 4, 5, 6])`, `{"[Set]":[1,2,3,4,5,"[… 1 more]"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tab.Evaluate(t.Context(), tt.fn, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Value) != tt.want || !res.Truncated {
				t.Errorf("value = %s (truncated %v), want %s, truncated", res.Value, res.Truncated, tt.want)
			}
		})
	}
	t.Run("total size", func(t *testing.T) {
		res, err := tab.Evaluate(t.Context(), `() => Array.from({length: 50}, () => 'x'.repeat(30))`, nil, driver.EvalLimits{Depth: 6, Items: 100, Chars: 300})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Truncated || len(res.Value) > 600 || !json.Valid(res.Value) {
			t.Errorf("value = %s (%d bytes, truncated %v), want valid JSON near 300 chars, truncated", res.Value, len(res.Value), res.Truncated)
		}
	})
	t.Run("long string", func(t *testing.T) {
		res, err := tab.Evaluate(t.Context(), `() => 'y'.repeat(1000)`, nil, driver.EvalLimits{Depth: 6, Items: 100, Chars: 100})
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if err := json.Unmarshal(res.Value, &s); err != nil || !res.Truncated || !strings.HasSuffix(s, "…[900 more chars]") {
			t.Errorf("value = %s (truncated %v), want 100 chars and a count of the rest", res.Value, res.Truncated)
		}
	})
}

func TestEvaluateArgs(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	snap, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := refOf(t, snap.Text, `button "Save"`)
	args := []driver.EvalArg{{Ref: ref}, {Value: json.RawMessage(`{"suffix": "!", "n": 2}`)}, {}}
	res, err := tab.Evaluate(t.Context(), `(el, opts, nothing) => [el.textContent + opts.suffix.repeat(opts.n), el, typeof nothing]`, args, driver.EvalInline)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	if want := `["Save!!","<button#save.primary.big>","undefined"]`; string(res.Value) != want {
		t.Errorf("value = %s, want %s", res.Value, want)
	}
	// A quote in an argument stays data.
	res, err = tab.Evaluate(t.Context(), `s => s.length`, []driver.EvalArg{{Value: json.RawMessage(`"'); alert(1); ('"`)}}, driver.EvalInline)
	if err != nil || string(res.Value) != "16" {
		t.Errorf("Evaluate with a quote = %v, %v; want 16", res, err)
	}
	if _, err := tab.Evaluate(t.Context(), `el => el`, []driver.EvalArg{{Ref: "e999"}}, driver.EvalInline); !errors.Is(err, driver.ErrRefNotFound) {
		t.Errorf("Evaluate with an unknown ref = %v, want ErrRefNotFound", err)
	}
}

// refOf returns the ref on the first snapshot line containing what.
func refOf(t *testing.T, text, what string) string {
	t.Helper()
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Contains(line, what) {
			for f := range strings.FieldsSeq(line) {
				if strings.HasPrefix(f, "e") && len(f) > 1 && strings.Trim(f[1:], "0123456789") == "" {
					return f
				}
			}
		}
	}
	t.Fatalf("no ref for %q in:\n%s", what, text)
	return ""
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fn   string
		want string // the EvalError message
	}{
		{"throw", `() => { throw new RangeError('too far') }`, "RangeError: too far"},
		{"reject", `async () => { throw new Error('async boom') }`, "Error: async boom"},
		{"throw a string", `() => { throw 'plain' }`, "Uncaught plain"},
		{"reference", `() => notDefined.x`, "ReferenceError: notDefined is not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tab.Evaluate(t.Context(), tt.fn, nil, driver.EvalInline)
			var ee *driver.EvalError
			if !errors.As(err, &ee) || !errors.Is(err, driver.ErrEvalException) || !strings.Contains(ee.Message, tt.want) {
				t.Fatalf("Evaluate = %v, want an EvalError containing %q", err, tt.want)
			}
			if strings.Contains(ee.Message, "\n") || strings.Contains(ee.Message, "    at ") {
				t.Errorf("message %q carries a stack", ee.Message)
			}
		})
	}
}

// TestEvaluateNavigation navigates away in the middle of a function that
// never returns: the result says so, with no protocol error text.
func TestEvaluateNavigation(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	res, err := tab.Evaluate(ctx, `() => { location.href = '/eval-other.html'; return new Promise(() => {}) }`, nil, driver.EvalInline)
	if err != nil {
		if strings.Contains(err.Error(), "context") && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Evaluate = %v, want a clean result or error", err)
		}
		t.Fatalf("Evaluate = %v, want a navigated result", err)
	}
	if !res.Navigated || res.Value != nil || !strings.HasSuffix(res.URL, "/eval-other.html") {
		t.Errorf("result = %+v, want navigated to eval-other.html and no value", res)
	}
	// The tab works on the new page.
	if _, err := tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"You arrived"}}, 5*time.Second); err != nil {
		t.Fatalf("WaitFor after the navigation: %v", err)
	}
	res, err = tab.Evaluate(t.Context(), `() => document.title`, nil, driver.EvalInline)
	if err != nil || string(res.Value) != `"Other page"` {
		t.Errorf("Evaluate after the navigation = %+v, %v", res, err)
	}
}

// TestEvaluateBounded checks that a function that never returns ends with
// its context, and one that opens a dialog returns the dialog at once.
func TestEvaluateBounded(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	if _, err := tab.Evaluate(ctx, `() => new Promise(() => {})`, nil, driver.EvalInline); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Evaluate of a promise that never settles = %v, want a deadline error", err)
	}
	_, err := tab.Evaluate(t.Context(), `() => confirm('from eval')`, nil, driver.EvalInline)
	var de *driver.DialogOpenError
	if !errors.As(err, &de) || de.Dialog.Message != "from eval" {
		t.Fatalf("Evaluate that opens a confirm = %v, want a DialogOpenError", err)
	}
	if _, err := tab.HandleDialog(t.Context(), true, ""); err != nil {
		t.Fatal(err)
	}
	if res, err := tab.Evaluate(t.Context(), `() => 'after'`, nil, driver.EvalInline); err != nil || string(res.Value) != `"after"` {
		t.Errorf("Evaluate after the dialog = %+v, %v", res, err)
	}
}

// TestEvaluateExpression: a plain expression is evaluated once and its
// awaited value returned; a syntax error is ErrInvalidArgument naming the
// parser's message and position, and runs nothing.
func TestEvaluateExpression(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ src, want string }{
		{`document.title.length >= 0`, `true`},
		{`[1, 2, 3].length`, `3`},
		{`Promise.resolve(40 + 2)`, `42`},
		{`(window.evalCount = (window.evalCount || 0) + 1)`, `1`}, // once, not twice
		{`async () => 7`, `7`},
		{"1 + // a comment\n1", `2`},
	} {
		res, err := tab.Evaluate(t.Context(), tt.src, nil, driver.EvalInline)
		if err != nil || string(res.Value) != tt.want {
			t.Errorf("Evaluate(%q) = %v, %v; want %s", tt.src, res, err, tt.want)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{`() => {`, "SyntaxError"},
		{"1 +\n  )", "line 2, column 3"},
		{`window.ran = 1; )`, "line 1"},
	} {
		_, err := tab.Evaluate(t.Context(), tt.src, nil, driver.EvalInline)
		if !errors.Is(err, driver.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Evaluate(%q) = %v, want ErrInvalidArgument containing %q", tt.src, err, tt.want)
		}
	}
	res, err := tab.Evaluate(t.Context(), `typeof window.ran`, nil, driver.EvalInline)
	if err != nil || string(res.Value) != `"undefined"` {
		t.Errorf("after a syntax error, typeof window.ran = %v, %v; want undefined (nothing ran)", res, err)
	}
}
