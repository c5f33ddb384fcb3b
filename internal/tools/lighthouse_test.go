package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/lighthouse"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// needNode skips the test when node or npm is missing, unless
// CDPKIT_REQUIRE_BROWSER=1 (CI), where that is a failure.
func needNode(t *testing.T) {
	t.Helper()
	for _, c := range []string{"node", "npm"} {
		if _, err := exec.LookPath(c); err != nil {
			if os.Getenv("CDPKIT_REQUIRE_BROWSER") == "1" {
				t.Fatalf("%s is required (CDPKIT_REQUIRE_BROWSER=1): %v", c, err)
			}
			t.Skipf("%s not found: %v", c, err)
		}
	}
}

// TestLighthouseAudit audits a fixture page. The test's browser has a URL
// policy that resolves every name to loopback and blocks loopback except
// for ok.test, the page's origin; the page embeds an image from
// evil.test and a frame from frame.test, an origin the policy blocks: the result has the four category
// scores and both reports in the artifact dir, the audit browser sent the
// cookie set in the tab, and neither evil.test nor frame.test was reached:
// the audit browser has the URL guard and the egress proxy of cdpkit's own. The first run
// installs Lighthouse into the user cache dir (once; later runs reuse it).
func TestLighthouseAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (runs Lighthouse): skipped by -short")
	}
	needNode(t)
	t.Parallel()
	// The first run installs Lighthouse (~200 MB) before the call, so that
	// the install does not eat the call's deadline.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	if _, _, err := defaultLighthouse.Ensure(ctx, func(s string) { t.Logf("%s into %s", s, lighthouse.DefaultCacheDir()) }); err != nil {
		t.Fatalf("installing lighthouse: %v", err)
	}
	var sawCookie, evilHits, frameHits atomic.Int32
	evil := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "frame.test") {
			frameHits.Add(1)
		} else {
			evilHits.Add(1)
		}
	}))
	_, evilPort, _ := net.SplitHostPort(strings.TrimPrefix(evil.URL, "http://"))
	site := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("audit_session"); err == nil && c.Value == "s3cret" {
			sawCookie.Add(1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A page for auditing.">
<title>Audit fixture</title></head><body><main><h1>Audit fixture</h1>
<p>Some text to read.</p><img src="http://evil.test:%[1]s/pixel.png" alt="pixel" width="10" height="10">
<iframe src="http://frame.test:%[1]s/" title="blocked frame"></iframe>
</main></body></html>`, evilPort)
	}))
	_, sitePort, _ := net.SplitHostPort(strings.TrimPrefix(site.URL, "http://"))
	// Loopback is blocked except for ok.test and frame.test, so evil.test
	// (loopback too) is an address the policy refuses for every request;
	// frame.test is an origin it refuses for documents only, which the
	// egress proxy lets through and the URL guard must refuse.
	pol := &policy.Policy{
		BlockLoopback:  true,
		AllowedOrigins: []string{"ok.test", "frame.test"},
		BlockedOrigins: []string{"frame.test"},
		Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
	}
	h := newHarness(t, &harnessOptions{Browser: &browser.Options{URLPolicy: pol}}).with(func(env *Env) { env.URLPolicy = pol })
	page := "http://ok.test:" + sitePort + "/"
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, page))
	h.mustCall(t, "set_cookie", fmt.Sprintf(`{"name":"audit_session","value":"s3cret","url":%q}`, page))
	sawCookie.Store(0)
	evilHits.Store(0)
	frameHits.Store(0)

	var stages []string
	res, err := toolNamed(t, "lighthouse_audit").Call(WithProgress(t.Context(), func(msg string) { stages = append(stages, msg) }),
		h.env, json.RawMessage(`{"formFactor":"desktop"}`))
	if err != nil {
		t.Fatalf("lighthouse_audit: %v", err)
	}
	d := res.Data.(lighthouseData)
	raw, _ := json.Marshal(d)
	t.Logf("lighthouse_audit → %s", truncate(string(raw), 1500))
	t.Logf("progress: %q", stages)
	for _, c := range lighthouse.Categories {
		if s, ok := d.Scores[c]; !ok || s == nil || *s < 0 || *s > 100 {
			t.Errorf("score of %s = %v, want 0-100", c, s)
		}
	}
	if d.Version != lighthouse.Version || d.FormFactor != "desktop" || d.RuntimeError != "" {
		t.Errorf("version %q, formFactor %q, runtimeError %q; want %s, desktop, none", d.Version, d.FormFactor, d.RuntimeError, lighthouse.Version)
	}
	if len(d.Failing) > maxFailingAudits {
		t.Errorf("%d failing audits listed, want at most %d", len(d.Failing), maxFailingAudits)
	}
	for _, p := range []string{d.ReportJSON, d.ReportHTML} {
		rel, err := filepath.Rel(h.env.Artifacts.Dir(), p)
		fi, serr := os.Stat(p)
		if err != nil || strings.HasPrefix(rel, "..") || serr != nil || fi.Size() == 0 {
			t.Errorf("report %s: want a non-empty file in the artifact dir %s (%v)", p, h.env.Artifacts.Dir(), serr)
		}
	}
	if sawCookie.Load() == 0 {
		t.Error("the audit browser never sent the tab's cookie")
	}
	if n := evilHits.Load(); n != 0 {
		t.Errorf("the blocked address of evil.test was reached %d times during the audit", n)
	}
	if n := frameHits.Load(); n != 0 {
		t.Errorf("the blocked origin frame.test was loaded as a frame %d times during the audit", n)
	}
	if !strings.Contains(strings.Join(stages, "\n"), "lighthouse: ") {
		t.Errorf("progress %q has no lighthouse stage", stages)
	}
}

// TestLighthouseRefusals: without node or npm the audit is
// LIGHTHOUSE_UNAVAILABLE with the install hint; a URL the policy blocks,
// or a bad argument, is refused before anything is installed or launched.
func TestLighthouseRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	missing := func(file string) (string, error) { return "", &exec.Error{Name: file, Err: exec.ErrNotFound} }
	for _, missingOne := range []string{"node", "npm"} {
		h := h.with(func(env *Env) {
			env.Lighthouse = &lighthouse.Runner{CacheDir: t.TempDir(), LookPath: func(file string) (string, error) {
				if file == missingOne {
					return missing(file)
				}
				return exec.LookPath(file)
			}}
		})
		_, err := h.call(t, "lighthouse_audit", `{"url":"http://127.0.0.1:1/"}`)
		te := wantCode(t, err, LighthouseUnavailable, missingOne)
		if !strings.Contains(te.Hint, "npm") {
			t.Errorf("hint %q does not say how to install", te.Hint)
		}
	}
	blocked := h.with(func(env *Env) { env.URLPolicy = &policy.Policy{BlockLoopback: true} })
	_, err := blocked.call(t, "lighthouse_audit", `{"url":"http://127.0.0.1:1/"}`)
	wantCode(t, err, URLBlocked, "127.0.0.1")
	_, err = h.call(t, "lighthouse_audit", `{"url":"file:///etc/passwd"}`)
	if te := AsError(err); te.Code != URLBlocked && te.Code != InvalidURL {
		t.Errorf("file: URL: error %v, want URL_BLOCKED or INVALID_URL", err)
	}
	_, err = h.call(t, "lighthouse_audit", `{"categories":["pwa"]}`)
	wantCode(t, err, InvalidArgs, "pwa")
	_, err = h.call(t, "lighthouse_audit", `{"formFactor":"tablet"}`)
	wantCode(t, err, InvalidArgs, "tablet")
}
