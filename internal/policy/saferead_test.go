package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileCapsAndContext: a regular file is read whole; one over the
// cap wraps ErrTooLarge; a call whose context has ended reads nothing.
func TestReadFileCapsAndContext(t *testing.T) {
	a, err := OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := os.WriteFile(filepath.Join(a.Dir(), "s.json"), []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := a.ReadFile(t.Context(), "s.json", 7); err != nil || string(got) != `{"a":1}` {
		t.Errorf("ReadFile = %q, %v; want the file", got, err)
	}
	if _, err := a.ReadFile(t.Context(), "s.json", 6); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over the cap = %v, want ErrTooLarge", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := a.ReadFile(ctx, "s.json", 7); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with an ended context = %v, want context.Canceled", err)
	}
	if _, err := ReadRegular(t.Context(), filepath.Join(a.Dir(), "s.json"), 7); err != nil {
		t.Errorf("ReadRegular(a regular file) = %v", err)
	}
}
