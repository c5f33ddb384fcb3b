package firefox

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMain runs the package's tests, then closes the one shared Firefox,
// then fails the run if goroutines were left running.
func TestMain(m *testing.M) { browsertest.Main(m, closeShared) }

var (
	sharedMu  sync.Mutex
	sharedFF  *Browser
	sharedErr error
)

// shared returns the package's one Firefox, launched on first use; tests
// open a tab of their own in it.
func shared(t *testing.T) *Browser {
	t.Helper()
	exe := browsertest.FirefoxPath(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedFF == nil && sharedErr == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		sharedFF, sharedErr = Launch(ctx, &Options{ExecPath: exe, LaunchTimeout: 90 * time.Second})
	}
	if sharedErr != nil {
		t.Fatalf("launching firefox: %v", sharedErr)
	}
	return sharedFF
}

func closeShared() error {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedFF == nil {
		return nil
	}
	return sharedFF.Close()
}

// newTab opens a tab for one test, closed when it ends.
func newTab(t *testing.T) *Tab {
	t.Helper()
	b := shared(t)
	td, err := b.NewTab(t.Context(), nil)
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		td.Close(ctx)
	})
	return td.(*Tab)
}
