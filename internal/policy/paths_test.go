package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestArtifactsWriteFile(t *testing.T) {
	base := t.TempDir()
	a, err := OpenArtifacts(filepath.Join(base, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(a.Dir(), "link")); err != nil {
		t.Fatal(err)
	}

	for _, ok := range []string{"shot.png", "sub/dir/shot.png", filepath.Join(a.Dir(), "abs.png"), "./x/../y.png"} {
		if err := a.Check(ok); err != nil {
			t.Errorf("Check(%q) = %v, want nil", ok, err)
		}
		p, err := a.WriteFile(ok, []byte("x"))
		if err != nil {
			t.Errorf("WriteFile(%q) = %v, want ok", ok, err)
			continue
		}
		if !strings.HasPrefix(p, a.Dir()+string(filepath.Separator)) {
			t.Errorf("WriteFile(%q) wrote %s, outside %s", ok, p, a.Dir())
		}
	}
	for _, bad := range []string{"", "../escape.png", "a/../../escape.png", "/etc/cdpkit-test.png",
		filepath.Join(outside, "abs.png"), "link/escape.png", "nul\x00.png", strings.Repeat("a", 600)} {
		_, err := a.WriteFile(bad, []byte("x"))
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("WriteFile(%q) = %v, want ErrUnsafePath", bad, err)
		}
		if err := a.Check(bad); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Check(%q) = %v, want ErrUnsafePath", bad, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files written outside the artifact dir: %v", entries)
	}
	if _, err := os.Stat("/etc/cdpkit-test.png"); err == nil {
		t.Error("wrote /etc/cdpkit-test.png")
	}
}
