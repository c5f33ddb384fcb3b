package browser

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestLaunchPortTransport launches the way cdpkit does on Windows (a
// loopback port read from DevToolsActivePort, then a websocket) and checks
// that the browser works and Close leaves no process or profile.
func TestLaunchPortTransport(t *testing.T) {
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
