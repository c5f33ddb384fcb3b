package cdpkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// verbsPage serves a page with a confirm, a file input, a hover menu, a
// long body and an API the page fetches.
func verbsPage(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"from":"network"}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s1"})
		fmt.Fprint(w, `<!doctype html><title>Verbs</title>
<p id=out>Ready</p>
<button id=ask onclick="document.getElementById('out').textContent = confirm('Sure?') ? 'Yes' : 'No'">Ask</button>
<button id=name onclick="document.getElementById('out').textContent = 'Hi ' + prompt('Name?')">Name</button>
<input type=file id=file onchange="document.getElementById('out').textContent = 'Got ' + this.files[0].name">
<div id=menu onmouseenter="document.getElementById('out').textContent = 'Menu open'">Menu</div>
<label>First <input id=first></label><label>Last <input id=last></label>
<button id=load onclick="fetch('/api').then(r => r.json()).then(j => document.getElementById('out').textContent = 'API ' + j.from)">Load</button>
<div style="height:3000px"></div><p id=end>The end</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestTabVerbs drives every verb group of Tab through a real page and
// checks the typed results and the error codes.
func TestTabVerbs(t *testing.T) {
	b := shared(t)
	srv := verbsPage(t)
	ctx := t.Context()
	tab, err := b.NewTab(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close(ctx)
	waitText := func(want string) {
		t.Helper()
		m, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{want}, Timeout: 30 * time.Second})
		if err != nil || m.Text != want {
			t.Fatalf("WaitFor(%q) = %+v, %v", want, m, err)
		}
	}

	// Dialogs: the confirm stays open, blocks other calls, and is answered.
	ch, err := tab.Click(ctx, cdpkit.CSS("#ask"))
	if err != nil || ch.Dialog == nil || ch.Dialog.Type != "confirm" || ch.Dialog.Handled != "open" {
		t.Fatalf("Click(#ask) = %+v, %v; want an open confirm", ch, err)
	}
	if _, err := tab.Text(ctx, nil); !errors.Is(err, cdpkit.ErrDialogOpen) {
		t.Errorf("Text under a dialog = %v, want DIALOG_OPEN", err)
	}
	d, _, err := tab.DismissDialog(ctx)
	if err != nil || d.Message != "Sure?" || d.Handled != "dismissed" {
		t.Fatalf("DismissDialog = %+v, %v", d, err)
	}
	waitText("No")
	if _, _, err := tab.DismissDialog(ctx); !errors.Is(err, cdpkit.ErrNoDialog) {
		t.Errorf("DismissDialog without a dialog = %v, want NO_DIALOG", err)
	}
	if _, err := tab.Click(ctx, cdpkit.CSS("#name")); err != nil {
		t.Fatal(err)
	}
	if d, _, err := tab.AcceptDialog(ctx, "Ada"); err != nil || d.Type != "prompt" || d.Handled != "accepted" {
		t.Fatalf("AcceptDialog = %+v, %v", d, err)
	}
	waitText("Hi Ada")

	// Text and Info.
	txt, err := tab.Text(ctx, &cdpkit.TextOptions{Element: &cdpkit.Element{Selector: "#out"}})
	if err != nil || txt.Text != "Hi Ada" || txt.Chars != 6 {
		t.Errorf("Text(#out) = %+v, %v; want Hi Ada", txt, err)
	}
	info, err := tab.Info(ctx)
	if err != nil || info.Title != "Verbs" || info.ReadyState != "complete" || !strings.HasPrefix(info.URL, srv.URL) {
		t.Errorf("Info = %+v, %v", info, err)
	}

	// Upload, hover, fill a form, press, scroll.
	file := filepath.Join(b.ArtifactDir(), "hello.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Upload(ctx, cdpkit.CSS("#file"), file); err != nil {
		t.Fatalf("Upload: %v", err)
	}
	waitText("Got hello.txt")
	if _, err := tab.Upload(ctx, cdpkit.CSS("#file"), "/etc/passwd"); !errors.Is(err, cdpkit.ErrUnsafePath) {
		t.Errorf("Upload(/etc/passwd) = %v, want UNSAFE_PATH", err)
	}
	if _, err := tab.Hover(ctx, cdpkit.CSS("#menu")); err != nil {
		t.Fatalf("Hover: %v", err)
	}
	waitText("Menu open")
	if _, err := tab.FillForm(ctx, cdpkit.Field{Element: cdpkit.CSS("#first"), Value: "Ada"},
		cdpkit.Field{Element: cdpkit.CSS("#last"), Value: "Lovelace"}); err != nil {
		t.Fatalf("FillForm: %v", err)
	}
	if _, err := tab.PressOn(ctx, cdpkit.CSS("#last"), "Backspace", 2); err != nil {
		t.Fatalf("PressOn: %v", err)
	}
	if got, err := tab.Text(ctx, &cdpkit.TextOptions{Element: &cdpkit.Element{Selector: "#last"}}); err != nil || got.Text != "Lovela" {
		t.Errorf("the last name after two Backspaces = %+v, %v; want Lovela", got, err)
	}
	pos, err := tab.Scroll(ctx, nil)
	if err != nil || pos.ScrollY <= 0 || pos.PageHeight <= pos.ViewportHeight {
		t.Errorf("Scroll(nil) = %+v, %v; want scrolled down", pos, err)
	}
	pos, err = tab.Scroll(ctx, &cdpkit.ScrollOptions{Direction: "top"})
	if err != nil || pos.ScrollY != 0 {
		t.Errorf("Scroll(top) = %+v, %v", pos, err)
	}
	if m, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Selector: "#end", State: "attached"}); err != nil || m.Selector != "#end" {
		t.Errorf("WaitFor(selector) = %+v, %v", m, err)
	}
	if m, err := tab.WaitFor(ctx, cdpkit.WaitCondition{URL: "127.0.0.1"}); err != nil || !strings.HasPrefix(m.URL, srv.URL) {
		t.Errorf("WaitFor(url) = %+v, %v", m, err)
	}
	if _, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"never here"}, Timeout: 100 * time.Millisecond}); !errors.Is(err, cdpkit.ErrTimeout) {
		t.Errorf("WaitFor(absent text) = %v, want TIMEOUT", err)
	}

	// Cookies and storage state.
	cookies, err := tab.Cookies(ctx)
	if err != nil || len(cookies) != 1 || cookies[0].Name != "sid" || cookies[0].Value != "s1" {
		t.Errorf("Cookies = %+v, %v; want sid=s1", cookies, err)
	}
	if err := tab.SetCookie(ctx, cdpkit.Cookie{Name: "theme", Value: "dark", URL: srv.URL}); err != nil {
		t.Fatalf("SetCookie: %v", err)
	}
	if cookies, _ = tab.Cookies(ctx, srv.URL); len(cookies) != 2 {
		t.Errorf("Cookies after SetCookie = %+v, want 2", cookies)
	}
	if n, err := tab.DeleteCookies(ctx, cdpkit.Cookie{Name: "theme", URL: srv.URL}); err != nil || n != 1 {
		t.Errorf("DeleteCookies = %d, %v; want 1", n, err)
	}
	st, err := tab.SaveStorageState(ctx, "state.json")
	if err != nil || st.Cookies != 1 {
		t.Fatalf("SaveStorageState = %+v, %v", st, err)
	}
	if n, err := tab.ClearCookies(ctx); err != nil || n != 1 {
		t.Errorf("ClearCookies = %d, %v; want 1", n, err)
	}
	if st, err := tab.LoadStorageState(ctx, "state.json"); err != nil || st.Cookies != 1 {
		t.Errorf("LoadStorageState = %+v, %v", st, err)
	}
	if cookies, _ = tab.Cookies(ctx); len(cookies) != 1 {
		t.Errorf("Cookies after LoadStorageState = %+v, want sid back", cookies)
	}
	if err := tab.SetCookie(ctx, cdpkit.Cookie{Name: "x"}); !errors.Is(err, cdpkit.ErrInvalidArgs) {
		t.Errorf("SetCookie without url or domain = %v, want INVALID_ARGS", err)
	}

	// Mocks and the network log.
	rule, err := tab.Mock(ctx, cdpkit.Mock{URL: "*/api", JSON: map[string]string{"from": "mock"}})
	if err != nil || rule.ID == 0 || rule.Action != "fulfill" {
		t.Fatalf("Mock = %+v, %v", rule, err)
	}
	if rules, err := b.Mocks(ctx); err != nil || len(rules) == 0 || rules[len(rules)-1].URL != "*/api" {
		t.Errorf("Mocks = %+v, %v", rules, err)
	}
	if _, err := tab.Click(ctx, cdpkit.CSS("#load")); err != nil {
		t.Fatal(err)
	}
	waitText("API mock")
	reqs, err := tab.Requests(ctx, &cdpkit.RequestQuery{URL: "/api"})
	if err != nil || len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Status != 200 || reqs[0].URL != srv.URL+"/api" {
		t.Fatalf("Requests(/api) = %+v, %v", reqs, err)
	}
	detail, err := tab.Request(ctx, reqs[0].ID, nil)
	if err != nil || detail.ResponseBody == nil || !strings.Contains(detail.ResponseBody.Text, "mock") {
		t.Errorf("Request(%d) = %+v, %v; want the mocked body", reqs[0].ID, detail, err)
	}
	if ids, err := tab.ClearMocks(ctx); err != nil || len(ids) != 1 || ids[0] != rule.ID {
		t.Errorf("ClearMocks = %v, %v; want [%d]", ids, err, rule.ID)
	}
	if _, err := tab.Request(ctx, 9999, nil); !errors.As(err, new(*cdpkit.Error)) {
		t.Errorf("Request(9999) = %v, want an *Error", err)
	}

	// PDF.
	pdf, err := tab.PDF(ctx, &cdpkit.PDFOptions{Path: "page.pdf"})
	if err != nil || pdf.Bytes == 0 || filepath.Base(pdf.Path) != "page.pdf" {
		t.Errorf("PDF = %+v, %v", pdf, err)
	}

	// Call: anything by name, through the same door.
	res, err := tab.Call(ctx, "get_url", nil)
	var u struct {
		Title string `json:"title"`
	}
	if err != nil || res.Decode(&u) != nil || u.Title != "Verbs" {
		t.Errorf("Call(get_url) = %+v, %v", res, err)
	}
	if res, err := b.Call(ctx, "list_pages", nil); err != nil || !strings.Contains(string(res.Data), tab.ID()) {
		t.Errorf("Browser.Call(list_pages) = %+v, %v", res, err)
	}
	if _, err := tab.Call(ctx, "no_such_tool", nil); !errors.Is(err, cdpkit.ErrInvalidArgs) {
		t.Errorf("Call(no_such_tool) = %v, want INVALID_ARGS", err)
	}
	if _, err := tab.Call(ctx, "get_text", []string{"not an object"}); !errors.Is(err, cdpkit.ErrInvalidArgs) {
		t.Errorf("Call with a list for args = %v, want INVALID_ARGS", err)
	}
	if _, err := tab.Call(ctx, "get_text", map[string]any{"nope": 1}); !errors.Is(err, cdpkit.ErrInvalidArgs) {
		t.Errorf("Call with an unknown argument = %v, want INVALID_ARGS", err)
	}
}

// TestTraceAndRecording traces a page load, reads an insight, and records
// the tab to video (with ffmpeg, when it is installed).
func TestTraceAndRecording(t *testing.T) {
	b := shared(t)
	srv := verbsPage(t)
	ctx := t.Context()
	tab, err := b.NewTab(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close(ctx)

	if _, err := tab.StopTrace(ctx); !errors.Is(err, cdpkit.ErrNoTrace) {
		t.Errorf("StopTrace without a trace = %v, want NO_TRACE", err)
	}
	if err := tab.StartTrace(ctx, &cdpkit.TraceOptions{Reload: true}); err != nil {
		t.Fatalf("StartTrace: %v", err)
	}
	tr, err := tab.StopTrace(ctx)
	if err != nil || tr.Path == "" || tr.Bytes == 0 || tr.Summary == "" {
		t.Fatalf("StopTrace = %+v, %v", tr, err)
	}
	in, err := b.Insight(ctx, "main-thread", "")
	if err != nil || in.Trace != tr.Path || in.Text == "" {
		t.Errorf("Insight(main-thread) = %+v, %v; want the last trace's", in, err)
	}
	if _, err := b.Insight(ctx, "nonsense", ""); !errors.Is(err, cdpkit.ErrInvalidArgs) {
		t.Errorf("Insight(nonsense) = %v, want INVALID_ARGS", err)
	}

	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg for the recording")
	}
	if err := tab.StartRecording(ctx, nil); err != nil {
		t.Fatalf("StartRecording: %v", err)
	}
	if _, err := tab.Scroll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	v, err := tab.StopRecording(ctx, "")
	if err != nil || v.Bytes == 0 || v.FrameCount == 0 || v.StoppedBy != "stop" || !strings.HasSuffix(v.Path, ".mp4") {
		t.Errorf("StopRecording = %+v, %v", v, err)
	}
}

// TestLeases claims a tab in a lease store, sees a second browser on the
// same store refused it, and releases it.
func TestLeases(t *testing.T) {
	exe := browsertest.ExecPath(t)
	if _, err := shared(t).Claim(t.Context(), nil); !errors.Is(err, cdpkit.ErrInvalidArgs) {
		t.Errorf("Claim without LeaseDir = %v, want INVALID_ARGS", err)
	}
	dir := filepath.Join(t.TempDir(), "leases")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b, err := cdpkit.Launch(ctx, &cdpkit.Options{ExecPath: exe, LeaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, err := b.Claim(ctx, &cdpkit.ClaimOptions{Label: "test"})
	if err != nil || tab.Lease() == "" {
		t.Fatalf("Claim = %v, %v", tab, err)
	}
	if _, err := tab.Navigate(ctx, "about:blank"); err != nil {
		t.Errorf("Navigate on the claimed tab: %v", err)
	}
	if _, err := b.Claim(ctx, &cdpkit.ClaimOptions{Tab: tab.ID()}); !errors.Is(err, cdpkit.ErrLeaseConflict) {
		t.Errorf("Claim of a held tab = %v, want LEASE_CONFLICT", err)
	}
	if err := tab.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if tabs, err := b.Tabs(ctx); err != nil || slicesContainsID(tabs, tab.ID()) {
		t.Errorf("Tabs after Release = %+v, %v; want the claimed tab closed", tabs, err)
	}
	var raw json.RawMessage
	if res, err := b.Call(ctx, "list_leases", nil); err != nil || res.Decode(&raw) != nil {
		t.Errorf("Call(list_leases) = %v", err)
	}
}
