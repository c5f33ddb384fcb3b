package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/input"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// TestFormToolsRejectArgs checks the argument errors caught before any
// browser is needed.
func TestFormToolsRejectArgs(t *testing.T) {
	tests := []struct {
		tool, args string
		code       Code
		mention    string
	}{
		{"fill", `{"value":"x"}`, InvalidArgs, "uid or selector"},
		{"fill", `{"uid":"e1"}`, InvalidArgs, "value"},
		{"fill", `{"uid":"e1","value":"x","checked":true}`, InvalidArgs, "checked"},
		{"fill", `{"uid":"e1","value":3}`, InvalidArgs, "value"},
		{"fill_form", `{"elements":[]}`, InvalidArgs, "elements is empty"},
		{"fill_form", `{"elements":[{"uid":"e1","value":"a"},{"value":"b"}]}`, InvalidArgs, "elements[1]: give uid or selector"},
		{"fill_form", `{"elements":[{"uid":"e1"}]}`, InvalidArgs, "value"},
		{"fill_form", `{"elements":[{"uid":"e1","selector":"#a","value":"x"}]}`, InvalidArgs, "elements[0]: uid and selector"},
		{"type_text", `{"text":""}`, InvalidArgs, "text is empty"},
		{"type_text", `{"text":"` + strings.Repeat("a", maxTypeRunes+1) + `"}`, InvalidArgs, "over 10000"},
		{"type_text", `{"text":"a","submitKey":"Submit"}`, KeyNotSupported, `"Submit"`},
		{"press_key", `{"key":"Hyperdrive"}`, KeyNotSupported, `"Hyperdrive"`},
		{"press_key", `{"key":"Control+Nope+A"}`, KeyNotSupported, "Control+Nope+A"},
		{"press_key", `{}`, InvalidArgs, "key"},
		{"select_option", `{"uid":"e1"}`, InvalidArgs, "values"},
		{"select_option", `{"values":["a"]}`, InvalidArgs, "uid or selector"},
		{"upload_file", `{"uid":"e1"}`, InvalidArgs, "paths is empty"},
		{"upload_file", `{"uid":"e1","paths":["/etc/passwd"]}`, UnsafePath, "outside the upload roots"},
		{"upload_file", `{"uid":"e1","filePath":"/etc/passwd"}`, UnsafePath, "/etc/passwd"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args[:min(len(tt.args), 60)], func(t *testing.T) {
			_, err := runTool(t, testEnv(), tt.tool, tt.args)
			wantCode(t, err, tt.code, tt.mention)
		})
	}
}

func TestAsErrorForms(t *testing.T) {
	tests := []struct {
		err     error
		code    Code
		message string
	}{
		{fmt.Errorf("x: %w", &driver.NotTypeableError{Ref: "e4", Reason: "is read-only", Why: driver.RefusedReadOnly}), ElementNotTypeable, "e4 is read-only"},
		{&driver.NotTypeableError{Reason: "is disabled", Why: driver.RefusedDisabled}, ElementNotTypeable, "the element is disabled"},
		{&driver.OptionError{Want: "Mars", Options: []driver.Option{{Value: "e", Label: "Earth"}}, Total: 1}, InvalidArgs, `no option "Mars" in the select; options: "Earth" (e)`},
		{fmt.Errorf("x: %w", &input.KeyError{Key: "Hyper"}), KeyNotSupported, `key "Hyper" is not supported`},
	}
	for _, tt := range tests {
		got := AsError(tt.err)
		if got.Code != tt.code || got.Message != tt.message || got.Hint == "" {
			t.Errorf("AsError(%v) = %+v, want %s %q with a hint", tt.err, got, tt.code, tt.message)
		}
	}
}

// TestFormTools runs the form and keyboard tools against one real browser
// on the fixture pages.
func TestFormTools(t *testing.T) {
	srv := browsertest.Server(t, fixtures.Pages())
	t.Parallel()
	h := newHarness(t, nil)
	h.checkChanges = true
	uploads := t.TempDir()
	h.env.UploadRoots = policy.UploadRoots{uploads}

	tab := func(t *testing.T) *browser.Tab {
		t.Helper()
		return h.tab(t, "")
	}
	open := func(t *testing.T, page string) {
		t.Helper()
		if _, err := tab(t).Navigate(t.Context(), srv.URL+"/"+page); err != nil {
			t.Fatalf("Navigate: %v", err)
		}
	}
	// eval returns the value of expr in the active tab as a string.
	eval := func(t *testing.T, expr string) string {
		t.Helper()
		s, err := rawcdp.Session(t.Context(), tab(t))
		if err != nil {
			t.Fatal(err)
		}
		yes := true
		r, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "String(" + expr + ")", ReturnByValue: &yes})
		if err != nil || r.ExceptionDetails != nil {
			t.Fatalf("evaluating %s: %v %v", expr, err, r.ExceptionDetails)
		}
		var v string
		json.Unmarshal(r.Result.Value, &v)
		return v
	}
	// ref finds the ref of a snapshot line matching re, such as `textbox "Name"`.
	ref := func(t *testing.T, line string) string {
		t.Helper()
		res, err := h.result(t, "take_snapshot", `{"interactive":true}`)
		if err != nil {
			t.Fatalf("take_snapshot: %v", err)
		}
		m := regexp.MustCompile(`(?m)^\s*(e\d+) ` + regexp.QuoteMeta(line)).FindStringSubmatch(res.Text)
		if m == nil {
			t.Fatalf("no line %q in the snapshot:\n%s", line, res.Text)
		}
		return m[1]
	}
	// noDialog fails the test if a JavaScript dialog opens before it returns.
	noDialog := func(t *testing.T) func() {
		t.Helper()
		s, err := rawcdp.Session(t.Context(), tab(t))
		if err != nil {
			t.Fatal(err)
		}
		events, stop := s.SubscribeEvents("Page.javascriptDialogOpening")
		return func() {
			t.Helper()
			defer stop()
			eval(t, "1") // events before this have been sent
			select {
			case ev := <-events:
				t.Errorf("a dialog opened: %s", ev.Params)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}

	t.Run("fill a React-style controlled input by uid", func(t *testing.T) {
		open(t, "forms-fields.html")
		uid := ref(t, `textbox "Name"`)
		data := h.mustCall(t, "fill", `{"uid":"`+uid+`","value":"Grace Hopper"}`)
		if got := eval(t, `document.getElementById('react-state').textContent`); got != "Grace Hopper" {
			t.Errorf("the component's state is %q, want the filled value", got)
		}
		if data["kind"] != "text" {
			t.Errorf("result = %v, want kind text", data)
		}
		if c := data["changes"].(map[string]any); !strings.Contains(c["elements"].(string), `value="Grace Hopper"`) {
			t.Errorf("changes = %v, want the textbox's new value", c)
		}
	})

	t.Run("fill contenteditable", func(t *testing.T) {
		open(t, "forms-fields.html")
		h.mustCall(t, "fill", `{"selector":"#editor","value":"Fresh שלום 👋🏽"}`)
		if got := eval(t, `document.getElementById('editor').textContent`); got != "Fresh שלום 👋🏽" {
			t.Errorf("the editor holds %q", got)
		}
	})

	t.Run("select by value and by label", func(t *testing.T) {
		open(t, "forms-fields.html")
		h.mustCall(t, "fill", `{"selector":"#country","value":"France"}`)
		if got := eval(t, `document.getElementById('country').value`); got != "fr" {
			t.Errorf("after fill by label the select has %q, want fr", got)
		}
		data := h.mustCall(t, "select_option", `{"selector":"#country","values":["jp"]}`)
		if got := eval(t, `document.getElementById('country').value`); got != "jp" || !equalJSON(data["selected"], []string{"jp"}) {
			t.Errorf("after select_option by value the select has %q, result %v; want jp", got, data["selected"])
		}
		data = h.mustCall(t, "select_option", `{"selector":"#toppings","values":["Ham","egg"]}`)
		if !equalJSON(data["selected"], []string{"ham", "egg"}) {
			t.Errorf("multiple select: selected = %v, want [ham egg]", data["selected"])
		}
		_, err := h.call(t, "select_option", `{"selector":"#country","values":["Atlantis"]}`)
		te := wantCode(t, err, InvalidArgs, `no option "Atlantis"`)
		if !strings.Contains(te.Message, `"Japan" (jp)`) || !strings.Contains(te.Message, "(and 2 more)") {
			t.Errorf("message %q does not list the options", te.Message)
		}
	})

	t.Run("checkbox and radio", func(t *testing.T) {
		open(t, "forms-fields.html")
		h.mustCall(t, "fill", `{"selector":"#terms","value":"true"}`)
		h.mustCall(t, "fill", `{"uid":"`+ref(t, `radio "Pro"`)+`","value":"true"}`)
		if got := eval(t, `Array.from(document.querySelectorAll('input:checked')).map(e => e.id).join(' ')`); got != "terms plan-pro" {
			t.Errorf("checked = %q, want terms plan-pro", got)
		}
		h.mustCall(t, "fill", `{"selector":"#terms","value":"false"}`)
		if got := eval(t, `document.getElementById('terms').checked`); got != "false" {
			t.Errorf("the checkbox is still checked")
		}
	})

	t.Run("not typeable", func(t *testing.T) {
		open(t, "forms-fields.html")
		_, err := h.call(t, "fill", `{"selector":"#readonly","value":"x"}`)
		wantCode(t, err, ElementNotTypeable, "is read-only")
		_, err = h.call(t, "fill", `{"uid":"`+ref(t, `button "Go"`)+`","value":"x"}`)
		wantCode(t, err, ElementNotTypeable, "is a <button>, not a form field")
	})

	t.Run("fill_form of four fields", func(t *testing.T) {
		open(t, "forms-signup.html")
		email, pw, plan, news := ref(t, `textbox "Email"`), ref(t, `textbox "Password"`), ref(t, `combobox "Plan"`), ref(t, `checkbox "Send me news"`)
		data := h.mustCall(t, "fill_form", `{"elements":[{"uid":"`+email+`","value":"ada@example.com"},{"uid":"`+pw+`","value":"correct horse"},`+
			`{"uid":"`+plan+`","value":"Team"},{"uid":"`+news+`","value":"on"}]}`)
		if got := eval(t, `new URLSearchParams(new FormData(document.forms[0])).toString()`); got != "email=ada%40example.com&password=correct+horse&plan=team&news=on&referral=none" {
			t.Errorf("the form holds %s", got)
		}
		if filled, _ := data["filled"].([]any); len(filled) != 4 {
			t.Errorf("filled = %v, want 4 entries", data["filled"])
		}
		// It stops at the first failure and says what was filled before it.
		referral := ref(t, `textbox "Referral"`)
		_, err := h.call(t, "fill_form", `{"elements":[{"uid":"`+email+`","value":"b@example.com"},{"uid":"`+referral+`","value":"x"},{"uid":"`+pw+`","value":"never"}]}`)
		te := wantCode(t, err, ElementNotTypeable, "elements[1] ("+referral+"): "+referral+" is read-only; elements[0..0] were filled")
		_ = te
		if got := eval(t, `document.getElementById('email').value + ' ' + document.getElementById('password').value`); got != "b@example.com correct horse" {
			t.Errorf("after the failure the fields hold %q, want the first changed and the third not", got)
		}
	})

	t.Run("type_text unicode, RTL and emoji", func(t *testing.T) {
		open(t, "forms-keys.html")
		for _, text := range []string{"héllo wörld", "שלום", "👋🏽", "家族 👨‍👩‍👧 ok"} {
			eval(t, `document.getElementById('alone').value = ''`)
			args, _ := json.Marshal(map[string]string{"selector": "#alone", "text": text})
			data := h.mustCall(t, "type_text", string(args))
			if got := eval(t, `document.getElementById('alone').value`); got != text {
				t.Errorf("typed %q, the input holds %q", text, got)
			}
			if data["typed"] != float64(len([]rune(text))) {
				t.Errorf("typed = %v, want %d", data["typed"], len([]rune(text)))
			}
		}
	})

	t.Run("type_text sends key events", func(t *testing.T) {
		open(t, "forms-keys.html")
		h.mustCall(t, "type_text", `{"selector":"#logged","text":"Hi!"}`)
		want := "keydown:H keypress:H keyup:H keydown:i keypress:i keyup:i keydown:! keypress:! keyup:!"
		if got := eval(t, `window.keys.join(' ')`); got != want {
			t.Errorf("the page saw %q, want %q", got, want)
		}
	})

	t.Run("an injection attempt is literal text", func(t *testing.T) {
		open(t, "forms-keys.html")
		check := noDialog(t)
		const attack = `'); alert(1); ('`
		h.mustCall(t, "type_text", `{"selector":"#alone","text":"`+attack+`"}`)
		h.mustCall(t, "fill", `{"selector":"#q","value":"`+attack+`"}`)
		h.mustCall(t, "press_key", `{"selector":"#next","key":"'"}`)
		check()
		if got := eval(t, `[alone.value, q.value, next.value].join('|')`); got != attack+"|"+attack+"|'" {
			t.Errorf("the fields hold %q, want the literal text", got)
		}
	})

	t.Run("Enter submits and navigates", func(t *testing.T) {
		open(t, "forms-keys.html")
		data := h.mustCall(t, "type_text", `{"selector":"#q","text":"kittens","submitKey":"Enter"}`)
		c := data["changes"].(map[string]any)
		if c["navigated"] != true || !strings.Contains(c["url"].(string), "forms-done.html?q=kittens") {
			t.Errorf("changes = %v, want a navigation to forms-done.html?q=kittens", c)
		}
		open(t, "forms-keys.html")
		h.mustCall(t, "fill", `{"selector":"#q","value":"puppies"}`)
		data = h.mustCall(t, "press_key", `{"key":"Enter"}`)
		if c := data["changes"].(map[string]any); c["navigated"] != true || !strings.Contains(c["url"].(string), "q=puppies") {
			t.Errorf("changes = %v, want a navigation to forms-done.html?q=puppies", c)
		}
	})

	t.Run("Tab moves focus", func(t *testing.T) {
		open(t, "forms-keys.html")
		h.mustCall(t, "press_key", `{"selector":"#q","key":"Tab"}`)
		if got := eval(t, `document.activeElement.id`); got != "next" {
			t.Errorf("focus is on %q, want next", got)
		}
	})

	t.Run("unknown key", func(t *testing.T) {
		open(t, "forms-keys.html")
		_, err := h.call(t, "press_key", `{"key":"Control+Banana"}`)
		te := wantCode(t, err, KeyNotSupported, `"Banana"`)
		if !strings.Contains(te.Hint, "Enter") {
			t.Errorf("hint %q names no valid key", te.Hint)
		}
	})

	t.Run("upload", func(t *testing.T) {
		open(t, "forms-fields.html")
		file := filepath.Join(uploads, "résumé.pdf")
		if err := os.WriteFile(file, []byte("%PDF-1.4"), 0o600); err != nil {
			t.Fatal(err)
		}
		data := h.mustCall(t, "upload_file", `{"selector":"#avatar","paths":["`+file+`"]}`)
		if got := eval(t, `document.getElementById('avatar').files[0].name`); got != "résumé.pdf" {
			t.Errorf("the page sees %q", got)
		}
		if !equalJSON(data["files"], []string{"résumé.pdf"}) {
			t.Errorf("files = %v", data["files"])
		}
		open(t, "forms-fields.html")
		for _, p := range []string{"/etc/passwd", filepath.Join(uploads, "..", "x"), "~/.ssh/id_rsa"} {
			_, err := h.call(t, "upload_file", `{"selector":"#avatar","paths":["`+p+`"]}`)
			wantCode(t, err, UnsafePath, p)
		}
		if got := eval(t, `document.getElementById('avatar').files.length`); got != "0" {
			t.Errorf("after refused uploads the input has %s files", got)
		}
		_, err := h.call(t, "upload_file", `{"selector":"#plain","paths":["`+file+`"]}`)
		wantCode(t, err, ElementNotTypeable, "not a file input")
	})

	t.Run("typed secrets never reach the log", func(t *testing.T) {
		open(t, "forms-signup.html")
		const secret = "s3cr3t-Pa55-⚡"
		data := h.mustCall(t, "fill", `{"selector":"#password","value":"`+secret+`"}`)
		h.mustCall(t, "type_text", `{"selector":"#email","text":"`+secret+`"}`)
		_, err := h.call(t, "fill", `{"selector":"#referral","value":"`+secret+`"}`) // fails: read-only
		wantCode(t, err, ElementNotTypeable, "read-only")
		_, err = h.call(t, "fill", `{"selector":"#plan","value":"`+secret+`"}`) // fails: no such option
		wantCode(t, err, InvalidArgs, "no option")
		if got := eval(t, `document.getElementById('password').value`); got != secret {
			t.Fatalf("the password field holds %q", got)
		}
		if raw, _ := json.Marshal(data); strings.Contains(string(raw), secret) {
			t.Errorf("fill's result shows the password: %s", raw)
		}
		out := h.allLogs()
		if !strings.Contains(out, "tool done") {
			t.Fatalf("the log recorded no tool call, so the check proves nothing:\n%s", out)
		}
		if strings.Contains(out, secret) || strings.Contains(out, "s3cr3t") {
			t.Errorf("the log holds the typed secret:\n%s", out)
		}
	})
}

// equalJSON reports whether a JSON-decoded list holds exactly want.
func equalJSON(got any, want []string) bool {
	l, ok := got.([]any)
	if !ok || len(l) != len(want) {
		return false
	}
	for i := range l {
		if l[i] != want[i] {
			return false
		}
	}
	return true
}
