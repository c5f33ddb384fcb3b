package cdpkit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit"
)

// openPage serves html on loopback, launches a browser (with o) and
// opens the page in a tab; done closes all three.
func openPage(html string, o *cdpkit.Options) (ctx context.Context, b *cdpkit.Browser, tab *cdpkit.Tab, done func()) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/user" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"name":"from the network"}`)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "abc123"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	b, err := cdpkit.Launch(ctx, o)
	if err != nil {
		log.Fatal(err)
	}
	if tab, err = b.NewTab(ctx, srv.URL); err != nil {
		log.Fatal(err)
	}
	return ctx, b, tab, func() { b.Close(); srv.Close(); cancel() }
}

// A confirm waits for an answer: the click reports it, other calls on
// the tab fail with DIALOG_OPEN until it is answered.
func ExampleTab_AcceptDialog() {
	ctx, _, tab, done := openPage(`<button onclick="this.textContent = confirm('Delete it?') ? 'Deleted' : 'Kept'">Delete</button>`, nil)
	defer done()

	changes, err := tab.Click(ctx, cdpkit.CSS("button"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(changes.Dialog.Type, changes.Dialog.Message)
	_, err = tab.Text(ctx, nil)
	fmt.Println(errors.Is(err, cdpkit.ErrDialogOpen))

	dialog, _, err := tab.AcceptDialog(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dialog.Handled)
	text, err := tab.Text(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text.Text)
	// Output:
	// confirm Delete it?
	// true
	// accepted
	// Deleted
}

// Give a file to a file input, then read the text the page shows.
func ExampleTab_Upload() {
	ctx, b, tab, done := openPage(`<input type=file onchange="document.querySelector('p').textContent = 'Got ' + this.files[0].name"><p></p>`, nil)
	defer done()

	// Files must be in Options.UploadRoots: by default the artifact dir
	// and the working directory.
	file := filepath.Join(b.ArtifactDir(), "report.csv")
	if err := os.WriteFile(file, []byte("a,b\n"), 0o600); err != nil {
		log.Fatal(err)
	}
	if _, err := tab.Upload(ctx, cdpkit.CSS("input[type=file]"), file); err != nil {
		log.Fatal(err)
	}
	if _, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Got report.csv"}}); err != nil {
		log.Fatal(err)
	}
	text, err := tab.Text(ctx, &cdpkit.TextOptions{Element: &cdpkit.Element{Selector: "p"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text.Text)
	// Output:
	// Got report.csv
}

// Hover to open a menu, click its item found by text in a snapshot, and
// scroll to the bottom of the page.
func ExampleTab_Hover() {
	ctx, _, tab, done := openPage(`<nav onmouseenter="document.getElementById('m').hidden = false">Account
<ul id=m hidden><li><a href="#settings">Settings</a></ul></nav><div style="height:3000px"></div>`, nil)
	defer done()

	changes, err := tab.Hover(ctx, cdpkit.CSS("nav"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(changes.Elements)
	snap, err := tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tab.Click(ctx, cdpkit.Ref(snap.RefOf(`"Settings"`))); err != nil {
		log.Fatal(err)
	}
	info, err := tab.Info(ctx)
	if err != nil {
		log.Fatal(err)
	}
	u, err := url.Parse(info.URL)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.Fragment)
	pos, err := tab.Scroll(ctx, &cdpkit.ScrollOptions{Direction: "bottom"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pos.ScrollY+pos.ViewportHeight == pos.PageHeight)
	// Output:
	// + e1 link "Settings"
	// settings
	// true
}

// Fill a form in one call, select an option, press Enter, and wait for
// what the page shows.
func ExampleTab_FillForm() {
	ctx, _, tab, done := openPage(`<form onsubmit="event.preventDefault(); document.body.append('Hello ' + this.first.value + ' ' + this.last.value + ' (' + this.plan.value + ')')">
<input name=first aria-label=First><input name=last aria-label=Last>
<select name=plan aria-label=Plan><option value=free>Free</option><option value=pro>Pro</option></select><button>Sign up</button></form>`, nil)
	defer done()

	_, err := tab.FillForm(ctx,
		cdpkit.Field{Element: cdpkit.CSS("[name=first]"), Value: "Ada"},
		cdpkit.Field{Element: cdpkit.CSS("[name=last]"), Value: "Lovelace"})
	if err != nil {
		log.Fatal(err)
	}
	selected, _, err := tab.Select(ctx, cdpkit.CSS("select"), "Pro")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(selected)
	if _, err := tab.PressOn(ctx, cdpkit.CSS("[name=last]"), "Enter", 0); err != nil {
		log.Fatal(err)
	}
	match, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Hello Ada Lovelace"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(match.Text)
	// Output:
	// [pro]
	// Hello Ada Lovelace
}

// Read, set and delete cookies; save them (with localStorage) to a file
// to load into another browser.
func ExampleTab_Cookies() {
	ctx, _, tab, done := openPage(`<title>Cookies</title>`, nil)
	defer done()

	info, err := tab.Info(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := tab.SetCookie(ctx, cdpkit.Cookie{Name: "theme", Value: "dark", URL: info.URL}); err != nil {
		log.Fatal(err)
	}
	cookies, err := tab.Cookies(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cookies {
		fmt.Println(c.Name, c.Value)
	}
	state, err := tab.SaveStorageState(ctx, "state.json")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state.Cookies, "cookies saved")
	n, err := tab.DeleteCookies(ctx, cdpkit.Cookie{Name: "theme", URL: info.URL})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "deleted")
	// Output:
	// session abc123
	// theme dark
	// 2 cookies saved
	// 1 deleted
}

// Answer the page's API calls with a canned response, then find the
// request in the tab's network log.
func ExampleTab_Mock() {
	ctx, _, tab, done := openPage(`<button onclick="fetch('/api/user').then(r => r.json()).then(u => document.body.append(u.name))">Load</button>`, nil)
	defer done()

	rule, err := tab.Mock(ctx, cdpkit.Mock{URL: "*/api/user", JSON: map[string]string{"name": "Ada (mocked)"}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tab.Click(ctx, cdpkit.CSS("button")); err != nil {
		log.Fatal(err)
	}
	if _, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Ada (mocked)"}}); err != nil {
		log.Fatal(err)
	}
	reqs, err := tab.Requests(ctx, &cdpkit.RequestQuery{ResourceTypes: []string{"fetch"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range reqs {
		fmt.Println(r.Method, r.Status, filepath.Base(r.URL))
	}
	detail, err := tab.Request(ctx, reqs[0].ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(detail.ResponseBody.Text)
	cleared, err := tab.ClearMocks(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(cleared) == 1 && cleared[0] == rule.ID)
	// Output:
	// GET 200 user
	// {"name":"Ada (mocked)"}
	// true
}

// Trace the page's load and read one insight of the trace; save the page
// as a PDF.
func ExampleTab_StartTrace() {
	ctx, b, tab, done := openPage(`<title>Fast</title><h1>Hello</h1>`, nil)
	defer done()

	if err := tab.StartTrace(ctx, &cdpkit.TraceOptions{Reload: true}); err != nil {
		log.Fatal(err)
	}
	trace, err := tab.StopTrace(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(filepath.Ext(trace.Path), trace.Bytes > 0)
	insight, err := b.Insight(ctx, "lcp", "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(insight.Name)
	pdf, err := tab.PDF(ctx, &cdpkit.PDFOptions{Path: "page.pdf"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(filepath.Base(pdf.Path), pdf.Bytes > 0)
	// Output:
	// .json true
	// lcp
	// page.pdf true
}

// Lease a tab so that other agents sharing the lease store are refused
// it, then give it back.
func ExampleBrowser_Claim() {
	dir, err := os.MkdirTemp("", "leases-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, b, _, done := openPage(`<title>Shared</title>`, &cdpkit.Options{LeaseDir: filepath.Join(dir, "leases")})
	defer done()

	tab, err := b.Claim(ctx, &cdpkit.ClaimOptions{Label: "report bot"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = b.Claim(ctx, &cdpkit.ClaimOptions{Tab: tab.ID()})
	fmt.Println(errors.Is(err, cdpkit.ErrLeaseConflict))
	if err := tab.Release(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// true
}

// Call runs any tool by name, here emulate (a dark color scheme), which has no method of its
// own; its data decodes into a struct of yours.
func ExampleTab_Call() {
	ctx, _, tab, done := openPage(`<title>Call</title>`, nil)
	defer done()

	res, err := tab.Call(ctx, "emulate", map[string]any{"colorScheme": "dark"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Data != nil)
	res, err = tab.Call(ctx, "list_console_messages", map[string]any{"types": []string{"error"}})
	if err != nil {
		log.Fatal(err)
	}
	var page struct {
		Total int `json:"total"`
	}
	if err := res.Decode(&page); err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Total, "console errors")
	_, err = tab.Call(ctx, "no_such_tool", nil)
	fmt.Println(errors.Is(err, cdpkit.ErrInvalidArgs))
	// Output:
	// true
	// 0 console errors
	// true
}

// Capture one element as JPEG; the file is in the artifact dir too.
func ExampleTab_Screenshot() {
	ctx, b, tab, done := openPage(`<h1>Report</h1><div id=chart style="width:300px;height:200px;background:teal"></div>`, nil)
	defer done()

	shot, err := tab.Screenshot(ctx, &cdpkit.ScreenshotOptions{Element: &cdpkit.Element{Selector: "#chart"}, Format: "jpeg", Quality: 80})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(shot.Format, shot.Width, shot.Height, len(shot.Data) > 0)
	fmt.Println(strings.HasPrefix(shot.Path, b.ArtifactDir()))
	// Output:
	// jpeg 300 200 true
	// true
}

// Record the tab to an MP4 while acting on it (ffmpeg encodes it).
func ExampleTab_StartRecording() {
	ctx, _, tab, done := openPage(`<button onclick="document.body.style.background = 'gold'">Paint</button>`, nil)
	defer done()

	if err := tab.StartRecording(ctx, nil); err != nil {
		log.Fatal(err)
	}
	if _, err := tab.Click(ctx, cdpkit.CSS("button")); err != nil {
		log.Fatal(err)
	}
	video, err := tab.StopRecording(ctx, "paint.mp4")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(filepath.Base(video.Path), video.Codec, video.FrameCount > 0, video.StoppedBy)
	// Output:
	// paint.mp4 h264 true stop
}
