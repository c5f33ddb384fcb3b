package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestEvaluateScriptDisabled checks that evaluate_script is refused before
// any browser work: the Manager never starts a browser.
func TestEvaluateScriptDisabled(t *testing.T) {
	browsers := driver.NewManager(browser.NewManager(&browser.Options{ExecPath: "/nonexistent/chromium"}).Backend(), nil)
	defer browsers.Close()
	env := testEnv()
	env.Browsers = browsers
	tool := evalTools()[0]
	for _, args := range []string{`{"function":"() => document.title"}`, `{"function":"() => 1","args":[{"uid":"e1"}],"savePath":"x.json"}`} {
		_, err := tool.Call(t.Context(), env, json.RawMessage(args))
		te := wantCode(t, err, EvalDisabled, "disabled")
		if !strings.Contains(te.Hint, "--allow-eval") {
			t.Errorf("hint %q does not say how to enable it", te.Hint)
		}
	}
	if b := browser.ManagerOf(browsers.Backend()).Current(); b != nil {
		t.Errorf("a browser was started (pid %d)", b.PID())
	}
}

func TestEvalArgList(t *testing.T) {
	var in []any
	if err := json.Unmarshal([]byte(`[{"uid":"e12"}, "@e3", "e", "hello", 12.5, null, {"uid":"e1","x":2}, [1]]`), &in); err != nil {
		t.Fatal(err)
	}
	got, err := evalArgList(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []driver.EvalArg{{Ref: "e12"}, {Ref: "@e3"}, {Value: []byte(`"e"`)}, {Value: []byte(`"hello"`)}, {Value: []byte(`12.5`)},
		{Value: []byte(`null`)}, {Value: []byte(`{"uid":"e1","x":2}`)}, {Value: []byte(`[1]`)}}
	if len(got) != len(want) {
		t.Fatalf("got %d args, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Ref != want[i].Ref || string(got[i].Value) != string(want[i].Value) {
			t.Errorf("arg %d = {%q %s}, want {%q %s}", i, got[i].Ref, got[i].Value, want[i].Ref, want[i].Value)
		}
	}
	if _, err := evalArgList([]any{map[string]any{"uid": "button"}}); err == nil {
		t.Error("a uid that is no ref was accepted")
	}
}

func TestEvaluateScript(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+base+`/eval-values.html"}`)

	t.Run("values", func(t *testing.T) {
		data := h.mustCall(t, "evaluate_script", `{"function":"() => ({title: document.title, n: NaN, u: undefined, m: new Map([['k', 1]]), s: new Set([2]), big: 10n, d: new Date(0), e: new Error('x'), el: document.querySelector('#save')})"}`)
		got := compactJSON(t, data["value"])
		want := `{"big":"10n","d":"[Date 1970-01-01T00:00:00.000Z]","e":"[Error: x]","el":"<button#save.primary.big>","m":{"[Map]":{"k":1}},"n":"[NaN]","s":{"[Set]":[2]},"title":"Values","u":"[undefined]"}`
		if got != want {
			t.Errorf("value = %s\nwant %s", got, want)
		}
		if data["changes"] == nil {
			t.Error("no changes section")
		}
	})

	t.Run("cycle", func(t *testing.T) {
		data := h.mustCall(t, "evaluate_script", `{"function":"() => { const a = [1]; a.push(a); return a }"}`)
		if got := compactJSON(t, data["value"]); got != `[1,"[Circular]"]` {
			t.Errorf("value = %s", got)
		}
	})

	t.Run("element args by ref", func(t *testing.T) {
		tab := h.tab(t, "")
		snap, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := ""
		for line := range strings.SplitSeq(snap.Text, "\n") {
			if strings.Contains(line, `button "Save"`) {
				ref = strings.Fields(line)[0]
			}
		}
		if !strings.HasPrefix(ref, "e") {
			t.Fatalf("no ref for the Save button in:\n%s", snap.Text)
		}
		data := h.mustCall(t, "evaluate_script", `{"function":"(a, b, n) => [a === b, a.id, n]","args":[{"uid":"`+ref+`"},"`+ref+`",3]}`)
		if got := compactJSON(t, data["value"]); got != `[true,"save",3]` {
			t.Errorf("value = %s, want [true,\"save\",3]", got)
		}
	})

	t.Run("exception", func(t *testing.T) {
		_, err := h.call(t, "evaluate_script", `{"function":"() => { throw new TypeError('no way') }"}`)
		te := wantCode(t, err, EvalError, "TypeError: no way")
		if strings.Contains(te.Message, " at ") {
			t.Errorf("message %q has a stack", te.Message)
		}
	})

	t.Run("savePath", func(t *testing.T) {
		data := h.mustCall(t, "evaluate_script", `{"function":"() => ({secret: window.secret})","savePath":"eval/secret.json"}`)
		if _, ok := data["value"]; ok {
			t.Errorf("the result carries the value: %v", data)
		}
		raw, _ := json.Marshal(data)
		if strings.Contains(string(raw), "hunter2") {
			t.Errorf("the result leaks the secret: %s", raw)
		}
		path, _ := data["path"].(string)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %q: %v", path, err)
		}
		if !strings.HasPrefix(path, h.env.Artifacts.Dir()) || !strings.HasSuffix(path, "/eval/secret.json") {
			t.Errorf("path = %s, want eval/secret.json in the artifact dir", path)
		}
		var v map[string]string
		if err := json.Unmarshal(b, &v); err != nil || v["secret"] != "hunter2" || data["bytes"] != float64(len(b)) {
			t.Errorf("file = %q (%v), bytes = %v; want the secret as JSON and its size", b, err, data["bytes"])
		}
		_, err = h.call(t, "evaluate_script", `{"function":"() => 1","savePath":"../outside.json"}`)
		wantCode(t, err, UnsafePath, "")
	})

	t.Run("navigation during evaluate", func(t *testing.T) {
		short := h.with(func(env *Env) { env.Timeout = 5 * time.Second })
		data, err := short.call(t, "evaluate_script", `{"function":"() => { location.href = '/eval-other.html'; return new Promise(() => {}) }"}`)
		if err != nil {
			if strings.Contains(err.Error(), "context") {
				t.Fatalf("error = %v, want a clean result or error", err)
			}
			wantCode(t, err, Timeout, "")
			return
		}
		if data["navigated"] != true || !strings.HasSuffix(data["url"].(string), "/eval-other.html") {
			t.Errorf("result = %v, want navigated to eval-other.html", data)
		}
		h.mustCall(t, "navigate_page", `{"url":"`+base+`/eval-values.html"}`)
	})
}

// compactJSON encodes v as JSON without escaping <, > and &.
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestSnapshotSaysEval: the snapshot header says whether evaluate_script
// is enabled, so an agent knows before trying it (issue #39).
func TestSnapshotSaysEval(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/form.html"))
	if got := h.mustCall(t, "take_snapshot", `{}`)["eval"]; got != true {
		t.Errorf("with evaluation on, the header's eval = %v, want true", got)
	}
	off := h.with(func(env *Env) { env.AllowEval = false })
	if got := off.mustCall(t, "take_snapshot", `{}`)["eval"]; got != false {
		t.Errorf("with evaluation off, the header's eval = %v, want false", got)
	}
}
