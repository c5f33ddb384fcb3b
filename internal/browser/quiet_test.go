package browser

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestQuietIdleBrowser checks issue #25 item 8: a launched browser left
// idle asks for no connection of its own (component updates, variations,
// sign-in, network time...). Every connection it makes goes through the
// egress proxy, which counts what it was asked for, allowed or refused, so
// nothing escapes the count. The idle spell is quietIdle. It also checks
// that the process is the real binary, not Debian's wrapper script, with
// no --load-extension. It starts its own browser: the shared one is busy
// with other tests' pages.
func TestQuietIdleBrowser(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	b, err := Start(t.Context(), &Options{ExecPath: exe})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer b.Close()
	if b.proc == nil || b.proc.egress == nil {
		t.Fatal("the default policy launched no egress proxy")
	}
	if runtime.GOOS == "linux" {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", b.PID()))
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if args[0] != RealBinary(exe) {
			t.Errorf("launched %s, want the real binary %s", args[0], RealBinary(exe))
		}
		for _, a := range args {
			if strings.HasPrefix(a, "--load-extension") || strings.HasPrefix(a, "--enable-remote-extensions") {
				t.Errorf("the browser runs with %s", a)
			}
		}
	}
	idle := quietIdle()
	timer := time.NewTimer(idle)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	if got := b.proc.egress.attempted(); len(got) > 0 {
		t.Errorf("in %v idle the browser asked for connections on its own: %v", idle, got)
	}
}

// quietIdle is how long TestQuietIdleBrowser leaves the browser idle: 20s
// by default, which covers what Chromium sends at start and the sign-in
// retries at 1, 3 and 12 s; 60s under CDPKIT_SOAK=1 (make soak), which
// also covers the component updater's one-minute timer.
// CDPKIT_QUIET_IDLE=<duration> overrides both.
func quietIdle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("CDPKIT_QUIET_IDLE")); err == nil {
		return d
	}
	if os.Getenv(soakEnv) == "1" {
		return 60 * time.Second
	}
	return 20 * time.Second
}

// TestQuietFlagsKeepCallerFeatures: a caller's --disable-features joins
// cdpkit's list (Chromium keeps only the last one), so it cannot turn the
// quiet features back on by accident.
func TestQuietFlagsKeepCallerFeatures(t *testing.T) {
	args := launchArgs("/p", "--remote-debugging-pipe", &Options{Args: []string{"--disable-features=Foo", "--lang=fr"}}, nil)
	var lists []string
	for _, a := range args {
		if l, ok := strings.CutPrefix(a, disableFeatures); ok {
			lists = append(lists, l)
		}
	}
	if len(lists) != 1 {
		t.Fatalf("%d --disable-features flags, want 1: %q", len(lists), args)
	}
	features := strings.Split(lists[0], ",")
	for _, want := range []string{"Foo", "NetworkTimeServiceQuerying", "Translate"} {
		if !slices.Contains(features, want) {
			t.Errorf("--disable-features lacks %s: %s", want, lists[0])
		}
	}
	if !slices.Contains(args, "--lang=fr") {
		t.Errorf("the caller's other flags are lost: %q", args)
	}
	for _, want := range []string{"--gaia-url=" + nowhere, "--component-updater=url-source=" + nowhere, "--variations-server-url=" + nowhere} {
		if !slices.Contains(args, want) {
			t.Errorf("launch args lack %s", want)
		}
	}
}

// TestNoTopChromeWebUI: the browser runs no omnibox popup pages. Headless
// Chromium gives each window its top-chrome WebUI (chrome://omnibox-popup
// and its AI-mode variant) in a renderer of its own that works on every
// navigation of every tab: at 16 sessions of `make load` it burned 10× the
// CPU of one session's renderer, for an omnibox nobody sees.
func TestNoTopChromeWebUI(t *testing.T) {
	t.Parallel()
	srv := serveFixtures(t)
	b, tab := newTab(t)
	_, other := newTab(t)
	for _, tb := range []*Tab{tab, other} {
		if _, err := tb.Navigate(t.Context(), srv.URL+"/alpha.html"); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := cdpapi.Call(t.Context(), b.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range infos.TargetInfos {
		if ti.Type == "browser_ui" || strings.HasPrefix(ti.URL, "chrome://omnibox") {
			t.Errorf("the browser runs %s %s", ti.Type, ti.URL)
		}
	}
}
