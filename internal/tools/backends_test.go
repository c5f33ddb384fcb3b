package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/firefox"
	"github.com/cdpkit/cdpkit/internal/lease"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// The tables of this file run under every backend: the same tool calls
// and the same expectations on Chromium and on Firefox. Each backend is one
// browser for the package (Chromium's is sharedManager's, Firefox's is
// started on first use here), and each case a scope of its own in it.

// backendsShared holds the package's Firefox and the forbidden server both
// backends' URL guard refuses. TestMain closes them.
var backendsShared struct {
	once      sync.Once
	forbidden *httptest.Server
	hits      *hitLog
	policy    *policy.Policy

	ffOnce sync.Once
	ff     *driver.Manager
}

// backendsPolicy is the URL policy of the package's browsers: the
// default, but with the forbidden server's origin refused, so that a
// request that slipped past a guard shows in that server's log.
func backendsPolicy() *policy.Policy {
	backendsShared.once.Do(func() {
		backendsShared.hits = &hitLog{}
		backendsShared.forbidden = httptest.NewServer(backendsShared.hits)
		backendsShared.policy = &policy.Policy{BlockedOrigins: []string{backendsShared.forbidden.URL}}
	})
	return backendsShared.policy
}

// closeBackends closes what backendsPolicy and firefoxManager started.
func closeBackends() error {
	var err error
	if backendsShared.ff != nil {
		err = backendsShared.ff.Close()
	}
	if backendsShared.forbidden != nil {
		backendsShared.forbidden.Close()
	}
	return err
}

// firefoxManager returns the package's Firefox Manager; it skips the test
// when no Firefox is installed (a failure with CDPKIT_REQUIRE_BROWSER=1).
func firefoxManager(t *testing.T) *driver.Manager {
	t.Helper()
	exe := browsertest.FirefoxPath(t)
	pol := backendsPolicy()
	backendsShared.ffOnce.Do(func() {
		log := slog.New(slog.NewTextHandler(&logBuffer{}, nil))
		backendsShared.ff = driver.NewManager(firefox.NewBackend(&firefox.Options{ExecPath: exe, URLPolicy: pol, Logger: log, LaunchTimeout: 2 * time.Minute}), &driver.ManagerOptions{Logger: log})
	})
	return backendsShared.ff
}

// backends are the backends every table here runs under.
var backends = []string{BackendChromium, BackendFirefox}

// backendHarness is newHarness in a scope of its own of the backend's
// shared browser, with the package's URL policy.
func backendHarness(t *testing.T, backend string) *harness {
	t.Helper()
	if backend == BackendChromium {
		h := newHarness(t, nil)
		h.env.URLPolicy = backendsPolicy()
		return h
	}
	m := firefoxManager(t)
	logs := &logBuffer{}
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	scope := driver.NewScope(&driver.ScopeOptions{Isolate: true})
	h := &harness{logs: logs, scope: scope, env: &Env{Browsers: m, Scope: scope, Artifacts: artifacts, Timeout: 2 * time.Minute,
		AllowEval: true, URLPolicy: backendsPolicy(), Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}}
	t.Cleanup(func() {
		if d := m.CurrentDriver(); d != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			d.CloseScope(ctx, scope)
		}
	})
	return h
}

// eachBackend runs f as a parallel subtest per backend.
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	for _, be := range backends {
		t.Run(be, func(t *testing.T) {
			t.Parallel()
			f(t, be)
		})
	}
}

// backendsRef returns the ref of the snapshot line `role "name"`
// (anywhere in the line, so a frame's nested lines count).
func backendsRef(t *testing.T, h *harness, line string) string {
	t.Helper()
	res, err := h.result(t, "take_snapshot", `{}`)
	if err != nil {
		t.Fatalf("take_snapshot: %v", err)
	}
	m := regexp.MustCompile(`(?m)^\s*(e\d+) ` + regexp.QuoteMeta(line)).FindStringSubmatch(res.Text)
	if m == nil {
		t.Fatalf("no line %q in the snapshot:\n%s", line, res.Text)
	}
	return m[1]
}

// TestBackendsCoreLoop is the agent's core loop on every backend: open →
// snapshot → fill → click (by ref) → verify → screenshot.
func TestBackendsCoreLoop(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.checkChanges = true
		nav := h.mustCall(t, "navigate_page", `{"url":"`+base+`/greeter.html"}`)
		if nav["title"] != "Greeter" {
			t.Errorf("navigate_page = %v, want the Greeter page", nav)
		}
		h.mustCall(t, "fill", `{"uid":"`+backendsRef(t, h, `textbox "Name"`)+`","value":"Ada"}`)
		h.mustCall(t, "click", `{"uid":"`+backendsRef(t, h, `button "Greet"`)+`"}`)
		h.checkChanges = false
		h.mustCall(t, "wait_for", `{"text":["Hello, Ada"]}`)
		res, err := h.result(t, "take_screenshot", `{}`)
		if err != nil {
			t.Fatalf("take_screenshot: %v", err)
		}
		if res.Image == nil || res.Image.MIMEType != "image/png" || len(res.Image.Data) < 8 || string(res.Image.Data[1:4]) != "PNG" {
			t.Errorf("take_screenshot: got %+v, want a PNG", res.Image)
		}
		// The loop's tab is the scope's own: a new scope sees none of it.
		other := backendHarness(t, backend)
		if pages := other.mustCall(t, "list_pages", `{}`); fmt.Sprint(pages["pages"]) == fmt.Sprint(h.mustCall(t, "list_pages", `{}`)["pages"]) {
			t.Errorf("another scope lists the same pages: %v", pages)
		}
	})
}

// TestBackendsDialogMatrix: alert, confirm and prompt, answered by the
// agent (accept or dismiss) or by the dialogs policy, on every backend.
func TestBackendsDialogMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (every dialog on both backends): skipped by -short")
	}
	t.Parallel()
	base := serveFixtures(t)
	tests := []struct {
		name   string
		policy driver.DialogPolicy // "" is the default, report
		typ    string
		answer string // the handle_dialog arguments when the dialog waits for the agent
		want   string // the page's text afterwards
	}{
		{"report/alert is accepted for the agent", "", "alert", "", `alert returned "undefined"`},
		{"report/confirm accepted", "", "confirm", `{"action":"accept"}`, "confirm returned true"},
		{"report/confirm dismissed", "", "confirm", `{"action":"dismiss"}`, "confirm returned false"},
		{"report/prompt accepted with text", "", "prompt", `{"action":"accept","promptText":"Ada"}`, `prompt returned "Ada"`},
		{"report/prompt dismissed", "", "prompt", `{"action":"dismiss"}`, "prompt returned null"},
		{"accept/alert", driver.DialogsAccept, "alert", "", `alert returned "undefined"`},
		{"accept/confirm", driver.DialogsAccept, "confirm", "", "confirm returned true"},
		{"accept/prompt", driver.DialogsAccept, "prompt", "", `prompt returned "default text"`},
		{"dismiss/alert", driver.DialogsDismiss, "alert", "", `alert returned "undefined"`},
		{"dismiss/confirm", driver.DialogsDismiss, "confirm", "", "confirm returned false"},
		{"dismiss/prompt", driver.DialogsDismiss, "prompt", "", "prompt returned null"},
	}
	eachBackend(t, func(t *testing.T, backend string) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				h := backendHarness(t, backend).with(func(env *Env) { env.DialogPolicy = tt.policy })
				h.mustCall(t, "navigate_page", `{"url":"`+base+`/dialog-matrix.html?type=`+tt.typ+`"}`)
				clicked := h.mustCall(t, "click", `{"uid":"`+backendsRef(t, h, `button "Open dialog"`)+`"}`)
				d := reportedDialog(clicked)
				if d == nil || d["type"] != tt.typ {
					t.Fatalf("click = %v, want the %s reported", clicked, tt.typ)
				}
				if tt.answer != "" {
					if d["handled"] != "open" {
						t.Fatalf("dialog = %v, want it open for the agent", d)
					}
					_, err := h.call(t, "evaluate_script", `{"function":"() => 1"}`)
					wantCode(t, err, DialogOpen, tt.typ)
					h.mustCall(t, "handle_dialog", tt.answer)
				} else if d["handled"] == "open" {
					t.Fatalf("dialog = %v, want it answered without the agent", d)
				}
				h.mustCall(t, "wait_for", fmt.Sprintf(`{"text":[%q]}`, tt.want))
				_, err := h.call(t, "handle_dialog", `{"action":"accept"}`)
				wantCode(t, err, NoDialog, "no JavaScript dialog")
			})
		}
	})
}

// TestBackendsFramesAndShadow: elements in an open shadow root, a
// same-origin iframe and a cross-origin iframe are in the snapshot with
// refs, and a click by ref reaches each.
func TestBackendsFramesAndShadow(t *testing.T) {
	t.Parallel()
	base := pointerServer(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+base+`/frames-shadow.html"}`)
		for _, name := range []string{"Shadow", "Same", "Cross"} {
			ref := backendsRef(t, h, `button "`+name+` button"`)
			h.mustCall(t, "click", `{"uid":"`+ref+`"}`)
			browsertest.Eventually(t, time.Minute, func() error {
				res, err := h.result(t, "take_snapshot", `{}`)
				if err != nil {
					return err
				}
				if !regexp.MustCompile(`(?m)^\s*(e\d+) button "` + name + ` done"`).MatchString(res.Text) {
					return fmt.Errorf("no %s done button in the snapshot:\n%s", name, res.Text)
				}
				return nil
			})
		}
	})
}

// TestBackendsURLGuard: a redirect, an iframe and a popup to an address
// the URL policy refuses never reach it, on every backend.
func TestBackendsURLGuard(t *testing.T) {
	t.Parallel()
	backendsPolicy()
	forbidden, hits := backendsShared.forbidden.URL, backendsShared.hits
	site := hostilePages(t, map[string]string{
		"attack": `<!doctype html><title>attack</title><p id="state">ready</p>
<button id="frame" onclick="const f = document.createElement('iframe'); f.onload = () => { state.textContent = 'frame settled' }; f.src = '` + forbidden + `/iframe'; document.body.append(f)">frame</button>
<button id="popup" onclick="window.open('` + forbidden + `/popup'); state.textContent = 'popup opened'">popup</button>`,
	})
	redirector := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, forbidden+"/redirected", http.StatusFound)
	}))
	noHits := func(t *testing.T) {
		t.Helper()
		if got := hits.get(); len(got) > 0 {
			t.Fatalf("the forbidden server was reached: %v", got)
		}
	}
	eachBackend(t, func(t *testing.T, backend string) {
		t.Run("direct", func(t *testing.T) {
			t.Parallel()
			h := backendHarness(t, backend)
			_, err := h.call(t, "navigate_page", `{"url":"`+forbidden+`/direct"}`)
			wantCode(t, err, URLBlocked, "")
		})
		t.Run("redirect", func(t *testing.T) {
			t.Parallel()
			h := backendHarness(t, backend)
			_, err := h.call(t, "navigate_page", `{"url":"`+redirector.URL+`/go"}`)
			wantCode(t, err, URLBlocked, "")
			noHits(t)
		})
		t.Run("iframe", func(t *testing.T) {
			t.Parallel()
			h := backendHarness(t, backend)
			h.mustCall(t, "navigate_page", `{"url":"`+site+`/attack"}`)
			clicked := h.mustCall(t, "click", `{"selector":"#frame"}`)
			// The frame's document request was answered (refused) once the
			// guard reports the refusal (Firefox) or the frame's load event
			// fired (Chromium shows an error page): a request that got
			// through would be logged by then.
			answered := jsonPath(clicked, "changes.blocked") != nil
			browsertest.Eventually(t, time.Minute, func() error {
				if answered {
					return nil
				}
				data, err := h.call(t, "press_key", `{"key":"Shift"}`)
				if err == nil && jsonPath(data, "changes.blocked") != nil {
					return nil
				}
				ev, err := h.call(t, "evaluate_script", `{"function":"() => document.getElementById('state').textContent"}`)
				if err == nil && ev["value"] == "frame settled" {
					return nil
				}
				return errors.New("the frame's request is not answered yet")
			})
			noHits(t)
		})
		t.Run("popup", func(t *testing.T) {
			t.Parallel()
			h := backendHarness(t, backend)
			h.mustCall(t, "navigate_page", `{"url":"`+site+`/attack"}`)
			before := h.mustCall(t, "list_pages", `{}`)
			h.mustCall(t, "click", `{"selector":"#popup"}`)
			// The popup is the scope's; its refusal is reported on it.
			browsertest.Eventually(t, time.Minute, func() error {
				pages := h.mustCall(t, "list_pages", `{}`)
				list, _ := pages["pages"].([]any)
				if len(list) <= len(before["pages"].([]any)) {
					return errors.New("no popup yet")
				}
				for _, p := range list {
					id, _ := jsonPath(p.(map[string]any), "id").(string)
					data, err := h.call(t, "press_key", `{"key":"Shift","target":"`+id+`"}`)
					if err != nil {
						continue
					}
					if b, _ := jsonPath(data, "changes.blocked").(map[string]any); b != nil && b["code"] == string(URLBlocked) {
						return nil
					}
				}
				return errors.New("no refusal reported on the popup yet")
			})
			noHits(t)
		})
	})
}

// TestBackendsLeases: a tab leased by one client is refused to another
// and served with its token, on every backend (the lease store is keyed
// by backend and browser identity).
func TestBackendsLeases(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, backend string) {
		a, b := leased(t, backendHarness(t, backend))
		c := a.mustCall(t, "claim_page", `{"label":"fence"}`)
		id, token := c["targetId"].(string), c["lease"].(string)
		if got, _, _, _ := lease.ParseToken(token); got != map[string]string{BackendChromium: "chrome", BackendFirefox: "firefox"}[backend] {
			t.Errorf("lease token %q: want the %s backend's", token, backend)
		}
		_, err := b.call(t, "take_snapshot", fmt.Sprintf(`{"target":%q}`, id))
		wantCode(t, err, LeaseConflict, "fence")
		a.mustCall(t, "take_snapshot", fmt.Sprintf(`{"lease":%q}`, token))
		rows := a.mustCall(t, "list_leases", `{}`)
		if !strings.Contains(fmt.Sprint(rows), id) {
			t.Errorf("list_leases = %v, want the lease of %s", rows, id)
		}
		rel := b.mustCall(t, "release_page", fmt.Sprintf(`{"lease":%q}`, token))
		if rel["released"] != true || rel["closed"] != true {
			t.Errorf("release_page = %v: want released, and closed (cdpkit opened it)", rel)
		}
	})
}

// TestBackendsFrameElementScreenshot: take_screenshot of an element inside
// a same-origin and a cross-origin iframe captures that element: its image
// is found, pixel for pixel, in a capture of the viewport, inside its
// frame's box there.
func TestBackendsFrameElementScreenshot(t *testing.T) {
	base := pointerServer(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+base+`/frames-shadow.html"}`)
		var frames [][4]float64 // each iframe's box in the viewport, CSS pixels
		js := `() => JSON.stringify([innerWidth, Array.from(document.querySelectorAll('iframe'), f => { const r = f.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })])`
		var vp []json.RawMessage
		if err := json.Unmarshal([]byte(fmt.Sprint(h.mustCall(t, "evaluate_script", `{"function":`+strconv.Quote(js)+`}`)["value"])), &vp); err != nil || len(vp) != 2 {
			t.Fatalf("reading the frames' boxes: %v", err)
		}
		var cssWidth float64
		json.Unmarshal(vp[0], &cssWidth)
		json.Unmarshal(vp[1], &frames)
		view := backendsImage(t, h, `{}`)
		scale := float64(view.Bounds().Dx()) / cssWidth
		for i, name := range []string{"Same", "Cross"} {
			shot := backendsImage(t, h, `{"uid":"`+backendsRef(t, h, `button "`+name+` button"`)+`"}`)
			b := shot.Bounds()
			if backendsUniform(shot) {
				t.Errorf("%s button: a blank %dx%d image", name, b.Dx(), b.Dy())
				continue
			}
			if b.Dx() < 10 || b.Dy() < 5 || b.Dx() > view.Bounds().Dx()/2 {
				t.Errorf("%s button: a %dx%d image, want a button's size", name, b.Dx(), b.Dy())
				continue
			}
			at, ok := backendsFindImage(view, shot)
			if !ok {
				t.Errorf("%s button: its %dx%d image is nowhere in the viewport's capture", name, b.Dx(), b.Dy())
				continue
			}
			f := frames[i]
			if x, y := float64(at.X)/scale, float64(at.Y)/scale; x < f[0] || y < f[1] || x > f[2] || y > f[3] {
				t.Errorf("%s button: its image is at (%.0f,%.0f) in the viewport, outside its frame %v", name, x, y, f)
			}
		}
	})
}

// backendsImage takes a screenshot with args and decodes it.
func backendsImage(t *testing.T, h *harness, args string) image.Image {
	t.Helper()
	res, err := h.result(t, "take_screenshot", args)
	if err != nil {
		t.Fatalf("take_screenshot %s: %v", args, err)
	}
	if res.Image == nil {
		t.Fatalf("take_screenshot %s: no image", args)
	}
	img, _, err := image.Decode(bytes.NewReader(res.Image.Data))
	if err != nil {
		t.Fatalf("take_screenshot %s: decoding: %v", args, err)
	}
	return img
}

// backendsFindImage returns where sub appears in img, each pixel's
// channels within a small tolerance (encoders and compositors may round
// differently), and whether it does.
func backendsFindImage(img, sub image.Image) (image.Point, bool) {
	ib, sb := img.Bounds(), sub.Bounds()
	near := func(a, b color.Color) bool {
		r1, g1, b1, _ := a.RGBA()
		r2, g2, b2, _ := b.RGBA()
		d := func(x, y uint32) bool { return x>>8 <= y>>8+8 && y>>8 <= x>>8+8 }
		return d(r1, r2) && d(g1, g2) && d(b1, b2)
	}
	for y := ib.Min.Y; y+sb.Dy() <= ib.Max.Y; y++ {
	next:
		for x := ib.Min.X; x+sb.Dx() <= ib.Max.X; x++ {
			for sy := range sb.Dy() {
				for sx := range sb.Dx() {
					if !near(img.At(x+sx, y+sy), sub.At(sb.Min.X+sx, sb.Min.Y+sy)) {
						continue next
					}
				}
			}
			return image.Pt(x-ib.Min.X, y-ib.Min.Y), true
		}
	}
	return image.Point{}, false
}

// backendsUniform reports whether every pixel of img has one colour.
func backendsUniform(img image.Image) bool {
	b := img.Bounds()
	first := color.RGBAModel.Convert(img.At(b.Min.X, b.Min.Y))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) != first {
				return false
			}
		}
	}
	return true
}

// TestBackendsDefaultViewport: both backends give a new tab a 1280×720
// page, as both peers do (issue #39).
func TestBackendsDefaultViewport(t *testing.T) {
	base := serveFixtures(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, base+"/form.html"))
		got := h.mustCall(t, "evaluate_script", `{"function":"() => innerWidth + 'x' + innerHeight"}`)["value"]
		if got != "1280x720" {
			t.Errorf("a new tab's viewport is %v, want 1280x720", got)
		}
	})
}
