package tools

import (
	"bytes"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// browserEnv returns an Env with a lazily started real browser and an
// artifact dir of the test's own, both closed when the test ends. log may
// be nil (discard).
func browserEnv(t *testing.T, log *slog.Logger) *Env {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	browsers := browser.NewManager(&browser.Options{ExecPath: browsertest.ExecPath(t), Logger: log})
	t.Cleanup(func() {
		if err := browsers.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	return &Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: 30 * time.Second}
}

// debugLog returns a debug-level logger and the buffer it writes to, so a
// test can look for secrets in everything cdpkit logs.
func debugLog() (*slog.Logger, *logBuffer) {
	logs := &logBuffer{}
	return slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), logs
}

// logBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
