package cdpkit_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit"
)

// formPage serves a small form whose submit writes what it got.
func formPage(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Form</title>
<label>Name <input id=name></label>
<label>Note <input id=note></label>
<select id=color aria-label=Color><option value=r>Red</option><option value=g>Green</option></select>
<button id=go onclick="const v = id => document.getElementById(id).value; document.getElementById('out').textContent = ['Sent', v('name'), v('note'), v('color')].join(' ')">Send</button>
<p id=out></p>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTabMethods drives a page through every Tab method and checks what
// each returns.
func TestTabMethods(t *testing.T) {
	b := shared(t)
	srv := formPage(t)
	ctx := t.Context()

	tab, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close(ctx)
	p, err := tab.Navigate(ctx, srv.URL)
	if err != nil || p.Title != "Form" || p.Status != 200 {
		t.Fatalf("Navigate = %+v, %v; want the Form page, status 200", p, err)
	}
	same, err := b.Tab(ctx, tab.ID())
	if err != nil || same.ID() != tab.ID() {
		t.Errorf("Tab(its id) = %v, %v; want the tab", same, err)
	}
	byURL, err := b.Tab(ctx, "url:"+strings.TrimPrefix(srv.URL, "http://"))
	if err != nil || byURL.ID() != tab.ID() {
		t.Errorf("Tab(url:…) = %v, %v; want the tab", byURL, err)
	}
	tabs, err := b.Tabs(ctx)
	if err != nil || !slicesContainsID(tabs, tab.ID()) {
		t.Errorf("Tabs = %+v, %v; want it to list %s", tabs, err, tab.ID())
	}

	snap, err := tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	name, note, color, send := snap.RefOf(`textbox "Name"`), snap.RefOf(`textbox "Note"`), snap.RefOf(`combobox "Color"`), snap.RefOf(`button "Send"`)
	if name == "" || note == "" || color == "" || send == "" {
		t.Fatalf("snapshot lacks the form's refs:\n%s", snap.Text)
	}
	if _, err := tab.Fill(ctx, cdpkit.Ref(name), "Ada"); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if _, err := tab.Click(ctx, cdpkit.CSS("#note")); err != nil {
		t.Fatalf("Click #note: %v", err)
	}
	if _, err := tab.Type(ctx, "hi"); err != nil {
		t.Fatalf("Type: %v", err)
	}
	selected, _, err := tab.Select(ctx, cdpkit.Ref(color), "Green")
	if err != nil || len(selected) != 1 || selected[0] != "g" {
		t.Fatalf("Select = %v, %v; want [g]", selected, err)
	}
	if _, err := tab.Click(ctx, cdpkit.Ref("@"+send)); err != nil {
		t.Fatalf("Click send: %v", err)
	}
	matched, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Sent Ada hi g"}, Timeout: 10 * time.Second})
	if err != nil || matched.Text != "Sent Ada hi g" {
		t.Fatalf("WaitFor = %v, %v; want the sent text", matched, err)
	}
	if _, err := tab.Press(ctx, "Control+A"); err != nil {
		t.Errorf("Press: %v", err)
	}

	shot, err := tab.Screenshot(ctx, &cdpkit.ScreenshotOptions{Format: "jpeg"})
	if err != nil || shot.Format != "jpeg" || len(shot.Data) == 0 || !strings.HasPrefix(shot.Path, b.ArtifactDir()) {
		t.Fatalf("Screenshot = %+v, %v; want a jpeg in the artifact dir", shot, err)
	}
	if _, err := os.Stat(shot.Path); err != nil {
		t.Errorf("the screenshot file: %v", err)
	}

	// Errors: the taxonomy of MCP and the CLI, through errors.As.
	var e *cdpkit.Error
	_, err = tab.Click(ctx, cdpkit.CSS("#nope"))
	if !errors.As(err, &e) || e.Code != "ELEMENT_NOT_FOUND" || !e.Recoverable || e.Hint == "" {
		t.Errorf("Click(#nope) = %v, want a recoverable ELEMENT_NOT_FOUND with a hint", err)
	}
	_, err = tab.Evaluate(ctx, "() => 1")
	if !errors.As(err, &e) || e.Code != "EVAL_DISABLED" {
		t.Errorf("Evaluate without AllowEval = %v, want EVAL_DISABLED", err)
	}
	if _, err := tab.Navigate(ctx, "file:///etc/passwd"); !errors.As(err, &e) || e.Code != "URL_BLOCKED" {
		t.Errorf("Navigate(file:) = %v, want URL_BLOCKED", err)
	}
	if _, err := b.Tab(ctx, "title:no such tab"); !errors.As(err, &e) || e.Code != "TARGET_NOT_FOUND" {
		t.Errorf("Tab(title:no such tab) = %v, want TARGET_NOT_FOUND", err)
	}

	if err := tab.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := tab.Snapshot(ctx, nil); !errors.As(err, &e) || e.Code != "TARGET_NOT_FOUND" {
		t.Errorf("Snapshot of a closed tab = %v, want TARGET_NOT_FOUND", err)
	}
}

func slicesContainsID(tabs []cdpkit.TabInfo, id string) bool {
	for _, t := range tabs {
		if t.ID == id {
			return true
		}
	}
	return false
}
