package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// TestUploadRootsDefault checks that upload_file's roots are the artifact
// dir, the --upload-root dirs and, from the CLI's daemon only, the caller's
// directory when it is a safe root — never the process's working directory
// (issue #25 item 2).
func TestUploadRootsDefault(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	art, err := policy.OpenArtifacts(filepath.Join(t.TempDir(), "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	defer art.Close()
	project := filepath.Join(home, "project")
	explicit := t.TempDir()
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	tests := []struct {
		name      string
		env       *Env
		callerDir string
		want      []string
	}{
		{"default", &Env{Artifacts: art}, "", []string{art.Dir()}},
		{"explicit roots add to the artifact dir", &Env{Artifacts: art, UploadRoots: policy.UploadRoots{explicit}}, "", []string{art.Dir(), explicit}},
		{"a safe caller dir", &Env{Artifacts: art, CallerDirs: true}, project, []string{art.Dir(), project}},
		{"the caller runs in /", &Env{Artifacts: art, CallerDirs: true}, "/", []string{art.Dir()}},
		{"the caller runs in $HOME", &Env{Artifacts: art, CallerDirs: true}, home, []string{art.Dir()}},
		{"caller dirs not accepted (mcp, serve)", &Env{Artifacts: art}, project, []string{art.Dir()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.callerDir != "" {
				ctx = WithCallerDir(ctx, tt.callerDir)
			}
			got := tt.env.uploadRoots(ctx)
			if !slices.Equal([]string(got), tt.want) {
				t.Errorf("uploadRoots = %v, want %v", got, tt.want)
			}
			if slices.Contains(got, wd) && !slices.Contains(tt.want, wd) {
				t.Errorf("uploadRoots holds the working directory %s", wd)
			}
		})
	}
	// From /, /etc/hostname is outside every root.
	roots := (&Env{Artifacts: art, CallerDirs: true}).uploadRoots(WithCallerDir(t.Context(), "/"))
	if _, err := roots.Check("/etc/hostname"); err == nil {
		t.Error("/etc/hostname is uploadable when the caller runs in /")
	}
}
