package tools

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// TestArtifactWriteFailures: a tool whose artifact write the file system
// refuses (a full tmpfs, a read-only one) fails with IO_ERROR naming the
// file and the OS error, not INTERNAL or UNSAFE_PATH, and leaves no file.
func TestArtifactWriteFailures(t *testing.T) {
	t.Parallel()
	if syscall.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>art</title><h1>Artifacts</h1><p style="background:linear-gradient(red,blue);height:2000px">tall</p>`)
	}))
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL))
	tests := []struct {
		name, tool, args, file string
		flags                  uintptr
		wantOS                 string
	}{
		{"full disk", "take_screenshot", `{"fullPage":true,"filePath":"shot.png"}`, "shot.png", 0, "no space left on device"},
		{"read-only", "take_snapshot", `{"filePath":"snap.txt"}`, "snap.txt", syscall.MS_RDONLY, "read-only file system"},
		{"read-only", "evaluate_script", `{"function":"() => document.title","savePath":"v.json"}`, "v.json", syscall.MS_RDONLY, "read-only file system"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+tt.tool, func(t *testing.T) {
			dir := t.TempDir()
			if err := syscall.Mount("tmpfs", dir, "tmpfs", tt.flags, "size=4k"); err != nil {
				t.Skipf("cannot mount a tmpfs here: %v", err)
			}
			t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
			art, err := policy.OpenArtifacts(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer art.Close()
			h := h.with(func(env *Env) { env.Artifacts = art })

			_, err = h.call(t, tt.tool, tt.args)
			te := wantCode(t, err, IOError, tt.wantOS)
			if want := filepath.Join(dir, tt.file); !strings.Contains(te.Message, want) {
				t.Errorf("message %q does not name %s", te.Message, want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}
