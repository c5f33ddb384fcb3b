package driver

import (
	"context"
	"io"
)

// The roles a TabDriver may play beyond the core: a backend implements a
// role or not, and a tool that needs one finds it by type assertion
// (tools.role), refusing with an *UnsupportedError when it is absent.

// LocationCache remembers the URL the last Location (or navigation) read.
// LastURL returns it if no navigation has committed since; false when
// unknown. It asks the browser nothing.
type LocationCache interface {
	LastURL() (string, bool)
}

// NetworkLog is the tab's request log.
type NetworkLog interface {
	NetworkRequests(ctx context.Context, q RequestQuery) ([]Request, int, error)
	NetworkRequest(ctx context.Context, id int) (RequestDetail, error)
	RequestPostData(ctx context.Context, id int) ([]byte, error)
	ResponseBody(ctx context.Context, id int) (body []byte, binary bool, err error)
}

// Mocker answers matching requests itself (mock_request).
type Mocker interface {
	AddMock(ctx context.Context, r MockRule) (Mock, error)
}

// CookieStore reads and writes cookies and whole storage states.
type CookieStore interface {
	Cookies(ctx context.Context, urls []string) ([]Cookie, error)
	SetCookie(ctx context.Context, c CookieSpec) error
	DeleteCookies(ctx context.Context, name, rawURL, domain, path string) (int, error)
	SaveStorageState(ctx context.Context) (*StorageState, error)
	LoadStorageState(ctx context.Context, st *StorageState) error
}

// Console is the tab's console log.
type Console interface {
	ConsoleMessages(ctx context.Context, q ConsoleQuery) ([]ConsoleMessage, int, error)
	ConsoleMessage(ctx context.Context, id int) (ConsoleMessage, error)
	SetConsolePreserve(on bool)
}

// Uploader sets the files of file inputs, and reports a file chooser an
// action opened.
type Uploader interface {
	SetFiles(ctx context.Context, ref, selector string, paths []string) error
	FileChooser(ctx context.Context) (*FileChooser, error)
}

// DragScroller drags one element onto another and scrolls elements or the
// page.
type DragScroller interface {
	Drag(ctx context.Context, o DragOptions) (*DragResult, error)
	Scroll(ctx context.Context, o ScrollOptions) (*ScrollResult, error)
}

// Pointer acts at coordinates of the last screenshot (the vision tools);
// the image scale maps its pixels to CSS pixels.
type Pointer interface {
	ClickAt(ctx context.Context, o PointOptions) (*PointResult, error)
	MoveMouseTo(ctx context.Context, x, y float64) (*PointResult, error)
	DragAt(ctx context.Context, from, to PointOptions) (*PointResult, error)
	ScrollAt(ctx context.Context, x, y, dx, dy float64) (*PointResult, error)
	SetImageScale(s float64)
	ImageScale() float64
}

// Emulator sets the viewport and emulates devices, networks and more.
type Emulator interface {
	SetViewport(ctx context.Context, v *Viewport) (ViewportMetrics, error)
	Emulate(ctx context.Context, c EmulationChange) (Emulation, error)
}

// Screencaster streams the tab's repaints to sink until the stream's Stop,
// the tab's end, or a sink error.
type Screencaster interface {
	StartScreencast(ctx context.Context, o ScreencastOptions, sink FrameSink) (ScreencastStream, error)
}

// Tracer records performance traces: one records at a time per browser.
type Tracer interface {
	StartTrace(ctx context.Context, o TraceOptions) error
	StopTrace(ctx context.Context) (*TraceFile, error)
}

// HeapSnapshotter writes the tab's JavaScript heap snapshot to w.
type HeapSnapshotter interface {
	HeapSnapshot(ctx context.Context, w io.Writer, progress func(done, total int64)) (int64, error)
}

// PDFPrinter prints the tab as PDF to w.
type PDFPrinter interface {
	PrintPDF(ctx context.Context, o PDFOptions, w io.Writer) (int64, error)
}
