package browser

import (
	"errors"
	"flag"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	fixturepages "github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/snapshot/name, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "snapshot", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// snapshotServer serves the fixture pages on 127.0.0.1,
// with CROSS_ORIGIN in pages replaced by the same server reached as
// localhost: another site, so Chromium puts such frames in another process.
func snapshotServer(t *testing.T) *httptest.Server {
	t.Helper()
	var cross string
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(fixturepages.Pages(), strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.ReplaceAll(string(b), "CROSS_ORIGIN", cross)))
	}))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cross = "http://localhost:" + port
	return srv
}

// stable replaces what differs between runs (ports) in snapshot text.
var portRE = regexp.MustCompile(`:\d{2,5}/`)

func TestSnapshotGolden(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	tests := []struct {
		page string
		o    snapshot.Options
	}{
		{"form", snapshot.Options{}},
		{"form", snapshot.Options{Interactive: true}},
		{"list", snapshot.Options{}},
		{"list", snapshot.Options{Interactive: true}},
		{"landmarks", snapshot.Options{}},
		{"landmarks", snapshot.Options{URLs: true, Depth: 3}},
		{"hidden", snapshot.Options{}},
		{"big", snapshot.Options{}},
		{"clickable", snapshot.Options{}},
		{"clickable", snapshot.Options{Interactive: true}},
		{"refs", snapshot.Options{}},
	}
	for _, tt := range tests {
		name := tt.page
		switch {
		case tt.o.Interactive:
			name += "_interactive"
		case tt.o.URLs:
			name += "_urls_depth3"
		}
		t.Run(name, func(t *testing.T) {
			_, tab := newTab(t)
			if _, err := tab.Navigate(t.Context(), srv.URL+"/"+tt.page+".html"); err != nil {
				t.Fatal(err)
			}
			res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{Options: tt.o})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".golden", portRE.ReplaceAllString(res.Text, ":PORT/"))
		})
	}
}

// TestSnapshotRefsDragPlainListItem drags one plain <li> of a sortable
// list (listeners on the list only) onto another by their refs: a list
// item needs a ref for that.
func TestSnapshotRefsDragPlainListItem(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/refs.html"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from, to := refOfLine(res.Text, `listitem "Fix login bug"`), refOfLine(res.Text, `listitem "Write docs"`)
	if from == "" || to == "" {
		t.Fatalf("no refs for the list items:\n%s", res.Text)
	}
	if _, err := tab.Drag(t.Context(), driver.DragOptions{FromRef: from, ToRef: to}); err != nil {
		t.Fatal(err)
	}
	got, err := tab.Evaluate(t.Context(), `() => document.getElementById('log').textContent`, nil, driver.EvalLimits{Depth: 2, Items: 10, Chars: 200})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"Write docs,Fix login bug,Ship release"`; string(got.Value) != want {
		t.Errorf("order after the drag = %s, want %s", got.Value, want)
	}
}

// refOfLine returns the ref of the line of text that ends with suffix.
func refOfLine(text, suffix string) string {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, suffix) {
			if r, _, ok := strings.Cut(l, " "); ok && strings.HasPrefix(r, "e") {
				return r
			}
		}
	}
	return ""
}

func TestSnapshotHiddenContentAbsent(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/hidden.html"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"secret", "Display none", "Visibility hidden", "Aria hidden", "Hidden attribute"} {
		if strings.Contains(res.Text, secret) {
			t.Errorf("snapshot shows hidden content %q:\n%s", secret, res.Text)
		}
	}
	if !strings.Contains(res.Text, `button "Visible button"`) {
		t.Errorf("snapshot lacks the visible button:\n%s", res.Text)
	}
}

func TestSnapshotTruncatesBigPage(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/big.html"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Text) > snapshot.DefaultMaxChars+300 {
		t.Errorf("Truncated = %v, %d chars; want truncated near %d", res.Truncated, len(res.Text), snapshot.DefaultMaxChars)
	}
	if !strings.Contains(res.Text, "… truncated: ") || len(res.Lines) < 5000 {
		t.Errorf("want a truncation marker and all %d+ lines kept, got %d lines", 5000, len(res.Lines))
	}
}

// TestSnapshotFrames runs its own browser with --site-per-process, so the
// cross-origin frame is out of process and read through its own session.
func TestSnapshotFrames(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	b, err := Start(t.Context(), &Options{ExecPath: browsertest.ExecPath(t), Args: []string{"--site-per-process"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, err := b.Resolve(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Navigate(t.Context(), srv.URL+"/iframes.html"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "iframes.golden", res.Text)
	tab.fmu.Lock()
	oopifs := len(tab.frames)
	tab.fmu.Unlock()
	if oopifs != 1 {
		t.Errorf("out-of-process frames = %d, want 1 (the cross-origin one)", oopifs)
	}

	// A ref inside each frame resolves into that frame's session.
	for _, name := range []string{"Inner button", "Cross button"} {
		ms, _ := snapshot.Find(res.Lines, func(s string) bool { return strings.Contains(s, `"`+name+`"`) }, 1)
		if len(ms) != 1 {
			t.Fatalf("no line for %q", name)
		}
		ref := strings.Fields(ms[0].Line)[0]
		el, err := tab.element(t.Context(), ref, "")
		if err != nil {
			t.Fatalf("element(%s): %v", ref, err)
		}
		got := evalOn(t, el, `function() { return this.textContent }`)
		if got != name {
			t.Errorf("%s resolves to an element with text %q, want %q", ref, got, name)
		}
		if name == "Cross button" && el.Session.ID() == tab.sess.ID() {
			t.Errorf("%s resolved in the page session, want the out-of-process frame's", ref)
		}
	}
}

// evalOn calls fn on the element and returns its string result.
func evalOn(t *testing.T, el *element, fn string) string {
	t.Helper()
	obj := el.Object
	yes := true
	r, err := cdpapi.Call(t.Context(), el.Session, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, ReturnByValue: &yes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(string(r.Result.Value), `"`)
}

func TestRefsStayPut(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/list.html"); err != nil {
		t.Fatal(err)
	}
	first, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refOf := func(res snapshot.Result, needle string) string {
		t.Helper()
		ms, _ := snapshot.Find(res.Lines, func(s string) bool { return strings.Contains(s, needle) }, 1)
		if len(ms) == 0 {
			return ""
		}
		return strings.Fields(ms[0].Line)[0]
	}
	milk, report, sam := refOf(first, `"Delete Buy milk"`), refOf(first, `"Delete Write report"`), refOf(first, `"Delete Call Sam"`)

	// Mutate: remove one item, add one, relabel one.
	s, _ := tab.session(t.Context())
	if _, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: `
		document.getElementById('i2').remove();
		const li = document.createElement('li');
		li.innerHTML = '<input type=checkbox aria-label="Done: Water plants"> Water plants <button aria-label="Delete Water plants">×</button>';
		document.getElementById('items').appendChild(li);
		document.querySelector('#i3 button').setAttribute('aria-label', 'Remove Call Sam');
	`}); err != nil {
		t.Fatal(err)
	}
	second, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := refOf(second, `"Delete Buy milk"`); got != milk {
		t.Errorf("untouched button's ref = %q, want %q as before", got, milk)
	}
	if got := refOf(second, `"Remove Call Sam"`); got != sam {
		t.Errorf("relabelled button's ref = %q, want %q (same node)", got, sam)
	}
	if got := refOf(second, `"Delete Water plants"`); got == "" || got == milk || got == report || got == sam {
		t.Errorf("new button's ref = %q, want a fresh one", got)
	}
	if _, err := tab.element(t.Context(), report, ""); !errors.Is(err, driver.ErrRefStale) {
		t.Errorf("ref of the removed button: %v, want ErrRefStale", err)
	}
	if _, err := tab.element(t.Context(), "@"+milk, ""); err != nil {
		t.Errorf("@%s: %v, want it to resolve", milk, err)
	}

	// After a reload every old ref is stale, and new refs are new numbers.
	if _, err := tab.Navigate(t.Context(), srv.URL+"/list.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.element(t.Context(), milk, ""); !errors.Is(err, driver.ErrRefStale) {
		t.Errorf("ref after reload: %v, want ErrRefStale", err)
	}
	third, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := refOf(third, `"Delete Buy milk"`); got == milk {
		t.Errorf("after reload the button kept ref %s; numbers must not be reused across documents", got)
	}
	if _, err := tab.element(t.Context(), "e99999", ""); !errors.Is(err, driver.ErrRefNotFound) {
		t.Errorf("never-issued ref: %v, want ErrRefNotFound", err)
	}
}

func TestSnapshotScopeAndDiff(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/list.html"); err != nil {
		t.Fatal(err)
	}
	scoped, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{Scope: "#items"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(scoped.Text, "Settings") || !strings.Contains(scoped.Text, "Buy milk") {
		t.Errorf("scope #items:\n%s", scoped.Text)
	}
	if _, _, err := tab.SnapshotDiff(t.Context(), driver.SnapshotOptions{}); err != nil {
		t.Fatal(err)
	}
	s, _ := tab.session(t.Context())
	cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: `document.getElementById('count').textContent = '1 item left'`})
	_, changes, err := tab.SnapshotDiff(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := changes.Text(0); got != "+ \"1 item left\"\n- \"2 items left\"\n" {
		t.Errorf("diff = %q", got)
	}
}
