package browser

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// textPage opens testdata/read/text.html in a new tab.
func textPage(t *testing.T) (*fixtures, *Tab) {
	t.Helper()
	srv := serveFixtures(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/read/text.html"); err != nil {
		t.Fatal(err)
	}
	return srv, tab
}

// jsString evaluates expr in the tab's page and returns its JSON result.
func jsString(t *testing.T, tab *Tab, expr string) string {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
	if err != nil || res.ExceptionDetails != nil {
		t.Fatalf("evaluating %q: %v %+v", expr, err, res.ExceptionDetails)
	}
	if res.Result.Type == runtime.RemoteObjectTypeUndefined {
		return "undefined"
	}
	return string(res.Result.Value)
}

func TestTextPage(t *testing.T) {
	t.Parallel()
	_, tab := textPage(t)
	got, err := tab.Text(t.Context(), driver.TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Reading", "Visible bold words.", "Editable text", "quoted attr", "Agree"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("page text lacks %q:\n%s", want, got.Text)
		}
	}
	for _, absent := range []string{"secret hidden text", "hunter2", "window.alert"} {
		if strings.Contains(got.Text, absent) {
			t.Errorf("page text has %q:\n%s", absent, got.Text)
		}
	}
	if got.Truncated || got.Chars != len([]rune(got.Text))+3 { // three emoji count twice in JavaScript
		t.Errorf("chars %d, truncated %v; want the whole text of %d chars", got.Chars, got.Truncated, len([]rune(got.Text)))
	}

	short, err := tab.Text(t.Context(), driver.TextOptions{MaxChars: 4})
	if err != nil {
		t.Fatal(err)
	}
	if short.Text != "Read" || !short.Truncated || short.Chars != got.Chars {
		t.Errorf("MaxChars 4: %+v, want Read, truncated, chars %d", short, got.Chars)
	}
	if _, err := tab.Text(t.Context(), driver.TextOptions{MaxChars: -1}); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Errorf("MaxChars -1: error %v, want ErrInvalidArgument", err)
	}
}

func TestTextElements(t *testing.T) {
	t.Parallel()
	_, tab := textPage(t)
	evalJS(t, tab, `document.querySelector("#editor").append(" typed")`)
	tests := []struct {
		selector string
		max      int
		want     driver.TextResult
	}{
		{selector: "#intro", want: driver.TextResult{Text: "Visible bold words.", Chars: 19}},
		{selector: "#name", want: driver.TextResult{Text: "Ada", Chars: 3, Field: "input"}},
		{selector: "#pw", want: driver.TextResult{Password: true, Field: "input"}},
		{selector: "#bio", want: driver.TextResult{Text: "line one\nline two", Chars: 17, Field: "textarea"}},
		{selector: "#color", want: driver.TextResult{Text: "Green", Chars: 5, Field: "select"}},
		{selector: "#agree", want: driver.TextResult{Text: "checked", Chars: 7, Field: "input"}},
		{selector: "#editor", want: driver.TextResult{Text: "Editable text typed", Chars: 19}},
		// A hidden element has no rendered text; innerText falls back to its content.
		{selector: "#hidden", want: driver.TextResult{Text: "secret hidden text", Chars: 18}},
		// A cut never splits an emoji, which JavaScript counts as two.
		{selector: "#wide", max: 3, want: driver.TextResult{Text: "😀", Chars: 6, Truncated: true}},
		{selector: "#wide", max: 4, want: driver.TextResult{Text: "😀😀", Chars: 6, Truncated: true}},
	}
	for _, tt := range tests {
		got, err := tab.Text(t.Context(), driver.TextOptions{Selector: tt.selector, MaxChars: tt.max})
		if err != nil {
			t.Errorf("Text(%s): %v", tt.selector, err)
			continue
		}
		if *got != tt.want {
			t.Errorf("Text(%s, max %d) = %+v, want %+v", tt.selector, tt.max, *got, tt.want)
		}
	}
}

func TestTextByRef(t *testing.T) {
	t.Parallel()
	_, tab := textPage(t)
	snap, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(e\d+) textbox "Name"`).FindStringSubmatch(snap.Text)
	if m == nil {
		t.Fatalf("no Name textbox in the snapshot:\n%s", snap.Text)
	}
	got, err := tab.Text(t.Context(), driver.TextOptions{Ref: m[1]})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Ada" || got.Field != "input" {
		t.Errorf("Text(%s) = %+v, want the Name field's value Ada", m[1], *got)
	}
	if _, err := tab.Text(t.Context(), driver.TextOptions{Ref: "e99999"}); !errors.Is(err, driver.ErrRefNotFound) {
		t.Errorf("Text(e99999): error %v, want ErrRefNotFound", err)
	}
}

// TestTextSelectorIsNotScript checks that a selector is only ever a CSS
// selector: one written to break out of a script string does not run.
func TestTextSelectorIsNotScript(t *testing.T) {
	t.Parallel()
	_, tab := textPage(t)
	evil := `'); alert(1); ('`
	_, err := tab.Text(t.Context(), driver.TextOptions{Selector: evil})
	if !errors.Is(err, driver.ErrInvalidArgument) && !errors.Is(err, driver.ErrElementNotFound) {
		t.Errorf("Text(%s): error %v, want an invalid or unmatched selector", evil, err)
	}
	// Quoted, the same characters are a valid attribute selector.
	got, err := tab.Text(t.Context(), driver.TextOptions{Selector: `[data-x="` + evil + `"]`})
	if err != nil || got.Text != "quoted attr" {
		t.Errorf("Text(attribute selector) = %+v, %v; want quoted attr", got, err)
	}
	if alerted := jsString(t, tab, "window.alerted"); alerted != "undefined" {
		t.Errorf("window.alerted = %s: the selector ran as script", alerted)
	}
}

func TestDocumentState(t *testing.T) {
	t.Parallel()
	srv, tab := textPage(t)
	url := srv.URL + "/read/text.html"
	want := driver.DocumentState{URL: url, Title: "Text page", ReadyState: "complete"}
	if got, err := tab.DocumentState(t.Context()); err != nil || got != want {
		t.Errorf("DocumentState = %+v, %v; want %+v", got, err, want)
	}

	if _, err := tab.Navigate(t.Context(), url+"#x"); err != nil {
		t.Fatal(err)
	}
	want.URL = url + "#x"
	if got, err := tab.DocumentState(t.Context()); err != nil || got != want {
		t.Errorf("after navigating to #x: DocumentState = %+v, %v; want %+v", got, err, want)
	}

	evalJS(t, tab, `location.hash = "y"; document.title = "Retitled"`)
	want.URL, want.Title = url+"#y", "Retitled"
	if got, err := tab.DocumentState(t.Context()); err != nil || got != want {
		t.Errorf("after the page set location.hash: DocumentState = %+v, %v; want %+v", got, err, want)
	}
}
