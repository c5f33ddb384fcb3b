package firefox

import (
	"context"
	"io"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// The TabDriver methods below have no Firefox implementation yet. The
// tools that call them declare capabilities this backend lacks (see
// Lacks), so they are not offered under Firefox and these errors are a
// backstop, not something an agent meets in normal use.

// Drag implements driver.TabDriver; unsupported.
func (t *Tab) Drag(context.Context, driver.DragOptions) (*driver.DragResult, error) {
	return nil, unsupported("drag")
}

// Scroll implements driver.TabDriver; unsupported.
func (t *Tab) Scroll(context.Context, driver.ScrollOptions) (*driver.ScrollResult, error) {
	return nil, unsupported("scroll")
}

// SetFiles implements driver.TabDriver; unsupported.
func (t *Tab) SetFiles(context.Context, string, string, []string) error {
	return unsupported("upload_file")
}

// NetworkRequests implements driver.TabDriver; unsupported.
func (t *Tab) NetworkRequests(context.Context, driver.RequestQuery) ([]driver.Request, int, error) {
	return nil, 0, unsupported("the network log")
}

// NetworkRequest implements driver.TabDriver; unsupported.
func (t *Tab) NetworkRequest(context.Context, int) (driver.RequestDetail, error) {
	return driver.RequestDetail{}, unsupported("the network log")
}

// RequestPostData implements driver.TabDriver; unsupported.
func (t *Tab) RequestPostData(context.Context, int) ([]byte, error) {
	return nil, unsupported("the network log")
}

// ResponseBody implements driver.TabDriver; unsupported.
func (t *Tab) ResponseBody(context.Context, int) ([]byte, bool, error) {
	return nil, false, unsupported("the network log")
}

// AddMock implements driver.TabDriver; unsupported.
func (t *Tab) AddMock(context.Context, driver.MockRule) (driver.Mock, error) {
	return driver.Mock{}, unsupported("network mocks")
}

// Cookies implements driver.TabDriver; unsupported.
func (t *Tab) Cookies(context.Context, []string) ([]driver.Cookie, error) {
	return nil, unsupported("cookies")
}

// SetCookie implements driver.TabDriver; unsupported.
func (t *Tab) SetCookie(context.Context, driver.CookieSpec) error { return unsupported("cookies") }

// DeleteCookies implements driver.TabDriver; unsupported.
func (t *Tab) DeleteCookies(context.Context, string, string, string, string) (int, error) {
	return 0, unsupported("cookies")
}

// SaveStorageState implements driver.TabDriver; unsupported.
func (t *Tab) SaveStorageState(context.Context) (*driver.StorageState, error) {
	return nil, unsupported("storage state")
}

// LoadStorageState implements driver.TabDriver; unsupported.
func (t *Tab) LoadStorageState(context.Context, *driver.StorageState) error {
	return unsupported("storage state")
}

// ConsoleMessages implements driver.TabDriver; unsupported.
func (t *Tab) ConsoleMessages(context.Context, driver.ConsoleQuery) ([]driver.ConsoleMessage, int, error) {
	return nil, 0, unsupported("the console log")
}

// ConsoleMessage implements driver.TabDriver; unsupported.
func (t *Tab) ConsoleMessage(context.Context, int) (driver.ConsoleMessage, error) {
	return driver.ConsoleMessage{}, unsupported("the console log")
}

// SetConsolePreserve implements driver.TabDriver; it does nothing.
func (t *Tab) SetConsolePreserve(bool) {}

// SetViewport implements driver.TabDriver; unsupported.
func (t *Tab) SetViewport(context.Context, *driver.Viewport) (driver.ViewportMetrics, error) {
	return driver.ViewportMetrics{}, unsupported("resize_page")
}

// Emulate implements driver.TabDriver; unsupported.
func (t *Tab) Emulate(context.Context, driver.EmulationChange) (driver.Emulation, error) {
	return driver.Emulation{}, unsupported("emulate")
}

// FileChooser implements driver.TabDriver: file choosers are not tracked
// on Firefox (upload_file is not offered), so there is never one.
func (t *Tab) FileChooser(context.Context) (*driver.FileChooser, error) { return nil, nil }

// HeapSnapshot implements driver.TabDriver; unsupported (BiDi has no
// heap profiler).
func (t *Tab) HeapSnapshot(context.Context, io.Writer, func(done, total int64)) (int64, error) {
	return 0, unsupported("heap snapshots")
}

// ClickAt implements driver.TabDriver; unsupported (the vision tools are
// not offered on Firefox).
func (t *Tab) ClickAt(context.Context, driver.PointOptions) (*driver.PointResult, error) {
	return nil, unsupported("click_at")
}

// MoveMouseTo implements driver.TabDriver; unsupported.
func (t *Tab) MoveMouseTo(context.Context, float64, float64) (*driver.PointResult, error) {
	return nil, unsupported("move_mouse")
}

// DragAt implements driver.TabDriver; unsupported.
func (t *Tab) DragAt(context.Context, driver.PointOptions, driver.PointOptions) (*driver.PointResult, error) {
	return nil, unsupported("drag_at")
}

// ScrollAt implements driver.TabDriver; unsupported.
func (t *Tab) ScrollAt(context.Context, float64, float64, float64, float64) (*driver.PointResult, error) {
	return nil, unsupported("scroll_at")
}

// SetImageScale implements driver.TabDriver; it does nothing.
func (t *Tab) SetImageScale(float64) {}

// ImageScale implements driver.TabDriver: always 0.
func (t *Tab) ImageScale() float64 { return 0 }

// StartScreencast implements driver.TabDriver; unsupported (BiDi has no
// screencast).
func (t *Tab) StartScreencast(context.Context, driver.ScreencastOptions, driver.FrameSink) (driver.ScreencastStream, error) {
	return nil, unsupported("screen recording")
}

// StartTrace implements driver.TabDriver; unsupported (BiDi has no
// tracing).
func (t *Tab) StartTrace(context.Context, driver.TraceOptions) error {
	return unsupported("performance traces")
}

// StopTrace implements driver.TabDriver; unsupported.
func (t *Tab) StopTrace(context.Context) (*driver.TraceFile, error) {
	return nil, unsupported("performance traces")
}

// LastURL keeps nothing: callers read Location.
func (t *Tab) LastURL() (string, bool) { return "", false }

var _ driver.TabDriver = (*Tab)(nil)
