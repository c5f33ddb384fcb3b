package browser

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestLaunchPortTransport launches the way cdpkit does on Windows (a
// loopback port read from DevToolsActivePort, then a websocket) and checks
// that the browser works and Close leaves no process or profile.
func TestLaunchPortTransport(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	srv := browsertest.Server(t, os.DirFS("testdata"))
	b, err := Start(t.Context(), &Options{ExecPath: exe, portTransport: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	profile := b.ProfileDir()
	tab, err := b.NewTab(t.Context())
	if err != nil {
		b.Close()
		t.Fatalf("NewTab: %v", err)
	}
	res, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html")
	if err != nil {
		b.Close()
		t.Fatalf("Navigate: %v", err)
	}
	if res.Title != "Alpha page" {
		t.Errorf("title = %q, want %q", res.Title, "Alpha page")
	}
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	browsertest.WaitNoProcesses(t, userDataDirArg(profile), 10*time.Second)
	if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile %s after Close: stat err = %v, want not exist", profile, err)
	}
}

// TestBrowserTempDirOwned checks issue #25 item 18: Chromium's own scratch
// dirs (org.chromium.Chromium.*) land in a TMPDIR cdpkit owns, and Close
// leaves nothing in the temp dir.
func TestBrowserTempDirOwned(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	// A short temp dir: Chromium puts a unix socket under it.
	root, err := os.MkdirTemp("/tmp", "cdk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	if !browserTempDirFits(root) {
		t.Fatalf("browserTempDirFits(%q) = false", root)
	}
	b, err := Start(t.Context(), &Options{ExecPath: exe, tempDir: root})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tab, err := b.NewTab(t.Context())
	if err == nil {
		_, err = tab.Navigate(t.Context(), "about:blank")
	}
	if err != nil {
		b.Close()
		t.Fatalf("NewTab/Navigate: %v", err)
	}
	loose, _ := filepath.Glob(filepath.Join(root, "org.chromium.*"))
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if len(loose) > 0 {
		t.Errorf("Chromium scratch dirs in the temp dir itself: %v; want them under cdpkit's %s*", loose, tmpPrefix)
	}
	browsertest.WaitNoProcesses(t, "--user-data-dir="+root, 10*time.Second)
	left, _ := os.ReadDir(root)
	for _, e := range left {
		t.Errorf("left in the temp dir after Close: %s", e.Name())
	}
}
