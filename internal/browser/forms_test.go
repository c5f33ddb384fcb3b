package browser

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	fixturepages "github.com/cdpkit/cdpkit/internal/fixtures"
)

// formsPage opens a fixture page in a new tab of the shared browser.
func formsPage(t *testing.T, name string) *Tab {
	t.Helper()
	srv := browsertest.Server(t, fixturepages.Pages())
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/"+name); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	return tab
}

// formsEval evaluates expr in the tab's page and decodes its value into v.
func formsEval(t *testing.T, tab *Tab, expr string, v any) {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	r, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
	if err != nil {
		t.Fatalf("evaluating %q: %v", expr, err)
	}
	if r.ExceptionDetails != nil {
		t.Fatalf("evaluating %q: %s", expr, r.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		t.Fatalf("evaluating %q: decoding %s: %v", expr, r.Result.Value, err)
	}
}

// formsNoDialog watches the tab for JavaScript dialogs; the returned
// function fails the test if one opened.
func formsNoDialog(t *testing.T, tab *Tab) func() {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	events, stop := s.SubscribeEvents("Page.javascriptDialogOpening")
	return func() {
		t.Helper()
		defer stop()
		formsString(t, tab, `'sync'`) // events before this have been sent
		for {
			select {
			case ev := <-events:
				t.Errorf("a dialog opened: %s", ev.Params)
			case <-time.After(100 * time.Millisecond):
				return
			}
		}
	}
}

// formsString evaluates expr to a string.
func formsString(t *testing.T, tab *Tab, expr string) string {
	t.Helper()
	var s string
	formsEval(t, tab, expr, &s)
	return s
}

func TestFillText(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	defer formsNoDialog(t, tab)()
	tests := []struct {
		selector, value string
		read            string // expression reading back what the page has
		want            string
		warning         bool
	}{
		{"#react", "Ada Lovelace", `document.getElementById('react-state').textContent + '|' + document.getElementById('react').value`, "Ada Lovelace|Ada Lovelace", false},
		{"#plain", `'); alert(1); ('`, `document.getElementById('plain').value`, `'); alert(1); ('`, false},
		{"#bio", "line one\nline two", `document.getElementById('bio').value`, "line one\nline two", false},
		{"#bio", "", `document.getElementById('bio').value`, "", false},
		{"#secret", "hunter2 🔑", `document.getElementById('secret').value`, "hunter2 🔑", false},
		{"#number", "12.5", `document.getElementById('number').value`, "12.5", false},
		{"#number", "twelve", `document.getElementById('number').value`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.selector+" "+tt.value, func(t *testing.T) {
			res, err := tab.Fill(t.Context(), "", tt.selector, tt.value)
			if err != nil {
				t.Fatalf("Fill: %v", err)
			}
			if got := formsString(t, tab, tt.read); got != tt.want {
				t.Errorf("after Fill(%q) the page has %q, want %q", tt.value, got, tt.want)
			}
			if res.Kind != "text" || (res.Warning != "") != tt.warning {
				t.Errorf("result = %+v, want kind text and a warning: %v", res, tt.warning)
			}
		})
	}
	var changes string
	formsEval(t, tab, `document.getElementById('react-changes').textContent`, &changes)
	if changes != "1" {
		t.Errorf("the React-style onChange ran %s times, want 1", changes)
	}
	if got := formsString(t, tab, `document.getElementById('events').textContent`); !strings.Contains(got, "input:plain(untrusted) change:plain(untrusted)") {
		t.Errorf("events = %q, want input then change for #plain", got)
	}
	if got := formsString(t, tab, `document.activeElement.id`); got != "number" {
		t.Errorf("focus is on %q, want the last filled field", got)
	}
}

// TestFillStaleRef fills through a ref whose node the page took out of
// the document but still holds: the ref is stale, and nothing is set.
func TestFillStaleRef(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := refOf(t, res.Text, `textbox "Plain"`)
	var ok bool
	formsEval(t, tab, `window.kept = document.getElementById('plain'), window.kept.remove(), true`, &ok)
	if _, err := tab.Fill(driver.WithActionWait(t.Context(), 100*time.Millisecond), ref, "", "late"); !errors.Is(err, driver.ErrRefStale) {
		t.Errorf("Fill(%s) of a removed input = %v, want ErrRefStale", ref, err)
	}
	if got := formsString(t, tab, `window.kept.value`); got != "" {
		t.Errorf("the removed input holds %q, want nothing set", got)
	}
}

func TestFillOpeningADialog(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	res, err := tab.Fill(t.Context(), "", "#asks", "x")
	if err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if !strings.Contains(res.Warning, "dialog") {
		t.Errorf("result = %+v, want a warning about the dialog", res)
	}
	if _, err := tab.HandleDialog(t.Context(), true, ""); err != nil {
		t.Fatalf("HandleDialog: %v", err)
	}
	if got := formsString(t, tab, `document.getElementById('asks').value`); got != "x" {
		t.Errorf("the field holds %q", got)
	}
}

func TestFillEditable(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	for _, value := range []string{"New text, héllo שלום 👋🏽", ""} {
		res, err := tab.Fill(t.Context(), "", "#editor", value)
		if err != nil {
			t.Fatalf("Fill(%q): %v", value, err)
		}
		if res.Kind != "editable" {
			t.Errorf("kind = %q, want editable", res.Kind)
		}
		if got := formsString(t, tab, `document.getElementById('editor').textContent`); got != value {
			t.Errorf("after Fill(%q) the editor holds %q", value, got)
		}
	}
}

func TestFillSelect(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	tests := []struct{ value, want string }{
		{"jp", "jp"},        // by value
		{"France", "fr"},    // by label
		{"peru", "pe"},      // by label, ignoring case and spaces
		{"Option 10", "x7"}, // label
		{"", ""},            // the placeholder, by value
		{"Choose…", ""},     // and by label
		{"  JAPAN ", "jp"},  // trimmed, any case
	}
	for _, tt := range tests {
		res, err := tab.Fill(t.Context(), "", "#country", tt.value)
		if err != nil {
			t.Fatalf("Fill(%q): %v", tt.value, err)
		}
		if got := formsString(t, tab, `document.getElementById('country').value`); got != tt.want || !slices.Equal(res.Selected, []string{tt.want}) {
			t.Errorf("Fill(%q): the select has %q and the result says %q, want %q", tt.value, got, res.Selected, tt.want)
		}
	}
	_, err := tab.Fill(t.Context(), "", "#country", "Atlantis")
	var oe *driver.OptionError
	if !errors.As(err, &oe) || !errors.Is(err, driver.ErrOptionNotFound) {
		t.Fatalf("Fill(Atlantis) = %v, want an OptionError", err)
	}
	if len(oe.Options) != 10 || oe.Total != 12 || !strings.Contains(oe.List(), `"France" (fr)`) || !strings.HasSuffix(oe.List(), "(and 2 more)") {
		t.Errorf("the error lists %d of %d options: %s; want the first 10 of 12", len(oe.Options), oe.Total, oe.List())
	}
}

func TestSelectOptions(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	tests := []struct {
		selector string
		values   []string
		want     []string
		err      error
	}{
		{"#toppings", []string{"ham", "Egg"}, []string{"ham", "egg"}, nil},
		{"#toppings", []string{"olives"}, []string{"olive"}, nil},
		{"#toppings", []string{}, []string{}, nil},
		{"#country", []string{"Japan"}, []string{"jp"}, nil},
		{"#country", []string{"jp", "fr"}, nil, driver.ErrInvalidArgument},
		{"#toppings", []string{"ham", "anchovy"}, nil, driver.ErrOptionNotFound},
		{"#plain", []string{"x"}, nil, driver.ErrNotTypeable},
	}
	for _, tt := range tests {
		got, err := tab.SelectOptions(t.Context(), "", tt.selector, tt.values)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("SelectOptions(%s, %q) = %v, want %v", tt.selector, tt.values, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SelectOptions(%s, %q) = %q, %v; want %q", tt.selector, tt.values, got, err, tt.want)
		}
		var page []string
		formsEval(t, tab, `Array.from(document.querySelector('`+tt.selector+`').selectedOptions).map(o => o.value)`, &page)
		if !slices.Equal(page, tt.want) {
			t.Errorf("SelectOptions(%s, %q): the page has %q selected, want %q", tt.selector, tt.values, page, tt.want)
		}
	}
	if got := formsString(t, tab, `document.getElementById('events').textContent`); !strings.Contains(got, "input:toppings(untrusted) change:toppings(untrusted)") {
		t.Errorf("events = %q, want input then change for #toppings", got)
	}
}

func TestFillChecked(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	tests := []struct {
		selector, value string
		want            string // the checked ids after, in page order
	}{
		{"#terms", "true", "terms plan-free"},
		{"#terms", "true", "terms plan-free"}, // already checked: no click
		{"#terms", "false", "plan-free"},
		{"#fancy", "on", "fancy plan-free"}, // visually hidden: its label is clicked
		{"#plan-pro", "true", "fancy plan-pro"},
		{"#plan-pro", "yes", "fancy plan-pro"},
		{"#fancy", "unchecked", "plan-pro"},
	}
	for _, tt := range tests {
		res, err := tab.Fill(t.Context(), "", tt.selector, tt.value)
		if err != nil {
			t.Fatalf("Fill(%s, %q): %v", tt.selector, tt.value, err)
		}
		got := formsString(t, tab, `Array.from(document.querySelectorAll('input:checked')).map(e => e.id).join(' ')`)
		if got != tt.want || res.Checked == nil {
			t.Errorf("after Fill(%s, %q) checked = %q (result %+v), want %q", tt.selector, tt.value, got, res, tt.want)
		}
	}
	// A real click fires the events a person's would, in order.
	if got := formsString(t, tab, `document.getElementById('events').textContent`); !strings.Contains(got, "click:terms input:terms change:terms") {
		t.Errorf("events = %q, want a trusted click, input and change for #terms", got)
	}
	if _, err := tab.Fill(t.Context(), "", "#plan-pro", "false"); !errors.Is(err, driver.ErrNotTypeable) {
		t.Errorf("unchecking a radio = %v, want ErrNotTypeable", err)
	}
	if _, err := tab.Fill(t.Context(), "", "#terms", "maybe"); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Errorf(`Fill(checkbox, "maybe") = %v, want ErrInvalidArgument`, err)
	}
}

func TestFillRefuses(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	tests := []struct{ selector, reason string }{
		{"#readonly", "is read-only"},
		{"#disabled", "is disabled"},
		{"#in-disabled-fieldset", "is disabled"},
		{"#plain-div", "is a <div>, not a form field"},
		{"#go", "is a <button>, not a form field"},
		{"#avatar", "is a file input"},
	}
	ctx := driver.WithActionWait(t.Context(), 100*time.Millisecond) // a disabled field stays so
	for _, tt := range tests {
		_, err := tab.Fill(ctx, "", tt.selector, "x")
		var ne *driver.NotTypeableError
		if !errors.As(err, &ne) || ne.Reason != tt.reason || ne.Why == "" {
			t.Errorf("Fill(%s) = %v, want a NotTypeableError saying %q, classified", tt.selector, err, tt.reason)
		}
	}
	if got := formsString(t, tab, `document.getElementById('readonly').value`); got != "fixed" {
		t.Errorf("the read-only field changed to %q", got)
	}
}

func TestSetFiles(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "cv.pdf"), filepath.Join(dir, "photo.png")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := tab.SetFiles(t.Context(), "", "#avatar", []string{a}); err != nil {
		t.Fatalf("SetFiles: %v", err)
	}
	if got := formsString(t, tab, `document.getElementById('avatar-name').textContent`); got != "cv.pdf 5" {
		t.Errorf("the page saw %q, want the change event and cv.pdf of 5 bytes", got)
	}
	if err := tab.SetFiles(t.Context(), "", "#photos", []string{a, b}); err != nil {
		t.Fatalf("SetFiles(multiple): %v", err)
	}
	if got := formsString(t, tab, `Array.from(document.getElementById('photos').files).map(f => f.name).join(',')`); got != "cv.pdf,photo.png" {
		t.Errorf("the multiple input has %q", got)
	}
	if err := tab.SetFiles(t.Context(), "", "#avatar", []string{a, b}); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Errorf("two files into a single input = %v, want ErrInvalidArgument", err)
	}
	if err := tab.SetFiles(t.Context(), "", "#plain", []string{a}); !errors.Is(err, driver.ErrNotTypeable) {
		t.Errorf("SetFiles on a text input = %v, want ErrNotTypeable", err)
	}
}
