package firefox

import (
	"context"
	"io"

	"github.com/cdpkit/cdpkit/internal/browser"
)

// The TabDriver methods below have no Firefox implementation yet. The
// tools that call them declare capabilities this backend lacks (see
// Lacks), so they are not offered under Firefox and these errors are a
// backstop, not something an agent meets in normal use.

// HeapSnapshot implements browser.TabDriver; unsupported (BiDi has no
// heap profiler).
func (t *Tab) HeapSnapshot(context.Context, io.Writer, func(done, total int64)) (int64, error) {
	return 0, unsupported("heap snapshots")
}

// StartScreencast implements browser.TabDriver; unsupported (BiDi has no
// screencast).
func (t *Tab) StartScreencast(context.Context, browser.ScreencastOptions, browser.FrameSink) (browser.ScreencastStream, error) {
	return nil, unsupported("screen recording")
}

// StartTrace implements browser.TabDriver; unsupported (BiDi has no
// tracing).
func (t *Tab) StartTrace(context.Context, browser.TraceOptions) error {
	return unsupported("performance traces")
}

// StopTrace implements browser.TabDriver; unsupported.
func (t *Tab) StopTrace(context.Context) (*browser.TraceFile, error) {
	return nil, unsupported("performance traces")
}

// LastURL keeps nothing: callers read Location.
func (t *Tab) LastURL() (string, bool) { return "", false }

var _ browser.TabDriver = (*Tab)(nil)
