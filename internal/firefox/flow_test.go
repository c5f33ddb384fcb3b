package firefox

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

var testPages = os.DirFS("testdata")

// refOf finds the ref printed before what in a snapshot, such as
// `button "Greet"`.
func refOf(t *testing.T, snap, what string) string {
	t.Helper()
	m := regexp.MustCompile(`(e\d+) ` + regexp.QuoteMeta(what)).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no ref for %s in snapshot:\n%s", what, snap)
	}
	return m[1]
}

func TestCoreFlow(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, testPages)
	tab := newTab(t)
	ctx := t.Context()

	nav, err := tab.Navigate(ctx, srv.URL+"/form.html")
	if err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	if nav.Title != "Greeter" || !strings.HasSuffix(nav.URL, "/form.html") {
		t.Errorf("Navigate: got %+v, want the form page", nav)
	}
	snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	for _, want := range []string{`heading "Greeter" level=1`, `textbox "Name"`, `button "Greet"`, `checkbox "Agree"`, `link "Other page"`, `button "In shadow"`} {
		if !strings.Contains(snap.Text, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, snap.Text)
		}
	}
	name := refOf(t, snap.Text, `textbox "Name"`)
	if _, err := tab.Fill(ctx, name, "", "Ada"); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if _, err := tab.Click(ctx, driver.ClickOptions{Ref: refOf(t, snap.Text, `button "Greet"`)}); err != nil {
		t.Fatalf("Click: %v", err)
	}
	if _, err := tab.WaitFor(ctx, driver.WaitCondition{Texts: []string{"Hello, Ada"}}, 10*time.Second); err != nil {
		t.Fatalf("WaitFor after click: %v", err)
	}
	// A shadow root's element is clicked by ref too.
	if _, err := tab.Click(ctx, driver.ClickOptions{Ref: refOf(t, snap.Text, `button "In shadow"`)}); err != nil {
		t.Fatalf("Click in shadow root: %v", err)
	}
	// innerText, which wait_for reads, leaves shadow trees out on Firefox.
	lim := driver.EvalLimits{Depth: 4, Items: 50, Chars: 4000}
	browsertest.Eventually(t, 10*time.Second, func() error {
		r, err := tab.Evaluate(ctx, `() => document.getElementById('host').shadowRoot.getElementById('shadowed').textContent`, nil, lim)
		if err != nil {
			return err
		}
		if string(r.Value) != `"Shadow clicked"` {
			return fmt.Errorf("shadow button reads %s", r.Value)
		}
		return nil
	})

	shot, err := tab.Screenshot(ctx, driver.ScreenshotOptions{})
	if err != nil {
		t.Fatalf("Screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != shot.Width || b.Dy() != shot.Height || shot.Width == 0 {
		t.Errorf("screenshot %dx%d, reported %dx%d", b.Dx(), b.Dy(), shot.Width, shot.Height)
	}

	res, err := tab.Evaluate(ctx, `(el, n) => el.value + ' ' + (n + 1)`,
		[]driver.EvalArg{{Ref: name}, {Value: []byte("41")}}, driver.EvalLimits{Depth: 4, Items: 50, Chars: 4000})
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	if got, want := string(res.Value), `"Ada 42"`; got != want {
		t.Errorf("Evaluate: got %s, want %s", got, want)
	}
	if _, err := tab.Evaluate(ctx, `() => { throw new Error('boom') }`, nil, driver.EvalLimits{Depth: 4, Items: 50, Chars: 4000}); !errors.Is(err, driver.ErrEvalException) {
		t.Errorf("Evaluate of a throwing function: got %v, want ErrEvalException", err)
	}
}

func TestRefsStableThenStale(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, testPages)
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL+"/form.html"); err != nil {
		t.Fatal(err)
	}
	first, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := refOf(t, first.Text, `button "Greet"`), refOf(t, second.Text, `button "Greet"`); a != b {
		t.Errorf("the same node got refs %s then %s", a, b)
	}
	old := refOf(t, first.Text, `button "Greet"`)
	if _, err := tab.Navigate(ctx, srv.URL+"/other.html"); err != nil {
		t.Fatal(err)
	}
	_, err = tab.Click(ctx, driver.ClickOptions{Ref: old})
	if !errors.Is(err, driver.ErrRefStale) {
		t.Errorf("click of a ref from the old document: got %v, want ErrRefStale", err)
	}
	if _, err := tab.Click(ctx, driver.ClickOptions{Ref: "e99999"}); !errors.Is(err, driver.ErrRefNotFound) {
		t.Errorf("click of a ref never issued: got %v, want ErrRefNotFound", err)
	}
}

func TestDialogWaitsForAnswer(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, testPages)
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL+"/form.html"); err != nil {
		t.Fatal(err)
	}
	snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{Options: snapshotInteractive})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tab.Click(ctx, driver.ClickOptions{Ref: refOf(t, snap.Text, `button "Ask"`)})
	if err != nil {
		t.Fatalf("Click: %v", err)
	}
	if !res.Dialog {
		t.Fatalf("Click that opens a confirm: got Dialog=false")
	}
	var open *driver.DialogOpenError
	if err := tab.CheckDialog(); !errors.As(err, &open) || open.Dialog.Type != "confirm" || open.Dialog.Message != "Sure?" {
		t.Fatalf("CheckDialog: got %v, want the open confirm", err)
	}
	d, err := tab.HandleDialog(ctx, true, "")
	if err != nil {
		t.Fatalf("HandleDialog: %v", err)
	}
	if d.Handled != driver.DialogAccepted {
		t.Errorf("HandleDialog: got %q, want accepted", d.Handled)
	}
	if _, err := tab.WaitFor(ctx, driver.WaitCondition{Texts: []string{"yes"}}, 10*time.Second); err != nil {
		t.Fatalf("page after accepting: %v", err)
	}
	if _, err := tab.HandleDialog(ctx, true, ""); !errors.Is(err, driver.ErrNoDialog) {
		t.Errorf("HandleDialog with none open: got %v, want ErrNoDialog", err)
	}
}

var snapshotInteractive = snapshotOptions(true)

func TestPrintPDF(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, testPages)
	tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/form.html"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := tab.PrintPDF(t.Context(), driver.PDFOptions{Landscape: true, PageRanges: "1"}, &buf)
	if err != nil {
		t.Fatalf("PrintPDF: %v", err)
	}
	if n != int64(buf.Len()) || !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Errorf("PrintPDF wrote %d bytes starting %q, want a PDF", n, buf.Bytes()[:min(8, buf.Len())])
	}
}

func TestFillChoices(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, testPages)
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL+"/form.html"); err != nil {
		t.Fatal(err)
	}
	snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tab.Fill(ctx, refOf(t, snap.Text, `checkbox "Agree"`), "", "true")
	if err != nil || res.Checked == nil || !*res.Checked {
		t.Fatalf("Fill checkbox true: %+v, %v", res, err)
	}
	res, err = tab.Fill(ctx, refOf(t, snap.Text, `combobox "Size"`), "", "Large")
	if err != nil || len(res.Selected) != 1 || res.Selected[0] != "l" {
		t.Fatalf("Fill select by label: %+v, %v", res, err)
	}
	var oe *driver.OptionError
	if _, err := tab.SelectOptions(ctx, refOf(t, snap.Text, `combobox "Size"`), "", []string{"Huge"}); !errors.As(err, &oe) || oe.Total != 2 {
		t.Errorf("SelectOptions of a missing option: got %v, want an OptionError listing 2 options", err)
	}
	after, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`checkbox "Agree" checked`, `value="Large" options=["Small","Large"]`} {
		if !strings.Contains(after.Text, want) {
			t.Errorf("snapshot after filling lacks %s:\n%s", want, after.Text)
		}
	}
}
