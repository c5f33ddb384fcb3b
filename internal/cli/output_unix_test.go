//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// TestSaveScreenshotRefusesLinksAndFIFOs: `cdpkit screenshot PATH` writes
// as the server does (issue #40 item 9): a planted symlink is refused and
// the file it points at left alone; a FIFO is refused without blocking (no
// reader ever opens it); a plain path gets the image.
func TestSaveScreenshotRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "shot.png")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.png"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &output{image: &mcp.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"}}
	for _, name := range []string{"shot.png", "pipe.png"} {
		err := o.saveScreenshot(t.Context(), filepath.Join(dir, name))
		if te := tools.AsError(err); te == nil || te.Code != tools.UnsafePath || te.Hint == "" {
			t.Errorf("saving to %s: %v, want UNSAFE_PATH with a hint", name, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the symlink's target now holds %q", b)
	}
	good := filepath.Join(dir, "sub", "ok.png")
	if err := o.saveScreenshot(t.Context(), good); err != nil {
		t.Fatalf("saving to a plain path: %v", err)
	}
	if b, _ := os.ReadFile(good); string(b) != "PNGDATA" {
		t.Errorf("the saved file holds %q, want the image", b)
	}
}
