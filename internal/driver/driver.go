package driver

import (
	"context"
	"io"
	"time"

	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// Driver is a browser as cdpkit's tools drive it: its tabs, per scope.
// Its methods speak in this package's own value types, never in a
// protocol's, so that a backend other than Chromium over CDP (Firefox over
// WebDriver BiDi) can implement it; ChromiumDriver is the Chromium one.
// Implementations are safe for concurrent use.
type Driver interface {
	// PagesIn lists the tabs s sees (every tab for a nil s) in the order
	// they were opened.
	PagesIn(ctx context.Context, s *Scope) ([]Page, error)
	// PagesNow is PagesIn from memory, without a round trip to the
	// browser; a title may lag behind the page's.
	PagesNow(s *Scope) ([]Page, error)
	// DownloadMark marks the downloads begun so far; DownloadsSince
	// returns those tab tabID began after mark, once finished or when
	// ctx is done.
	DownloadMark() int
	DownloadsSince(ctx context.Context, mark int, tabID string) []Download
	// TabIn returns the tab selector names among those s sees: "active"
	// (or ""), "index:N", "url:SUBSTR", "title:SUBSTR" or a tab ID.
	TabIn(ctx context.Context, s *Scope, selector string) (TabDriver, error)
	// NewTab opens a tab as o says.
	NewTab(ctx context.Context, o *TabOptions) (TabDriver, error)
	// CloseScope closes the tabs (and context) of an ended scope.
	CloseScope(ctx context.Context, s *Scope)
}

// TabDriver is one tab as cdpkit's tools drive it: navigation, the
// snapshot source, input, screenshots, dialogs, console, evaluation,
// emulation, waiting, and the tab's queue and health. See Driver.
type TabDriver interface {
	ID() string
	// Scope is the scope that owns the tab; nil for a tab no scope claimed.
	Scope() *Scope
	// MakeActive makes the tab the one its scope's calls act on by
	// default; with front, it also shows it in front.
	MakeActive(ctx context.Context, front bool) error
	// Close closes the tab.
	Close(ctx context.Context) error

	Navigate(ctx context.Context, url string) (*NavResult, error)
	NavigateWith(ctx context.Context, url string, o *NavOptions) (*NavResult, error)
	GoBack(ctx context.Context, o *NavOptions) (*NavResult, error)
	GoForward(ctx context.Context, o *NavOptions) (*NavResult, error)
	Reload(ctx context.Context, ignoreCache bool, o *NavOptions) (*NavResult, error)
	Location(ctx context.Context) (Location, error)
	// LastURL is the URL the last Location (or navigation) read, if no
	// navigation has committed since; false when unknown. It asks the
	// browser nothing.
	LastURL() (string, bool)
	DocumentState(ctx context.Context) (DocumentState, error)

	Snapshot(ctx context.Context, o SnapshotOptions) (snapshot.Result, error)
	SnapshotDiff(ctx context.Context, o SnapshotOptions) (snapshot.Result, snapshot.Changes, error)
	Text(ctx context.Context, o TextOptions) (*TextResult, error)

	Click(ctx context.Context, o ClickOptions) (*ClickResult, error)
	Hover(ctx context.Context, ref, selector string) (*HoverResult, error)
	ClickAt(ctx context.Context, o PointOptions) (*PointResult, error)
	MoveMouseTo(ctx context.Context, x, y float64) (*PointResult, error)
	DragAt(ctx context.Context, from, to PointOptions) (*PointResult, error)
	ScrollAt(ctx context.Context, x, y, dx, dy float64) (*PointResult, error)
	SetImageScale(s float64)
	ImageScale() float64
	Drag(ctx context.Context, o DragOptions) (*DragResult, error)
	Scroll(ctx context.Context, o ScrollOptions) (*ScrollResult, error)
	Fill(ctx context.Context, ref, selector, value string) (*FillResult, error)
	SelectOptions(ctx context.Context, ref, selector string, values []string) ([]string, error)
	SetFiles(ctx context.Context, ref, selector string, paths []string) error
	FileChooser(ctx context.Context) (*FileChooser, error)
	TypeText(ctx context.Context, ref, selector, text string) error
	PressKey(ctx context.Context, ref, selector, key string) error

	Screenshot(ctx context.Context, o ScreenshotOptions) (*Screenshot, error)
	PrintPDF(ctx context.Context, o PDFOptions, w io.Writer) (int64, error)
	// StartScreencast streams the tab's repaints to sink until the
	// stream's Stop, the tab's end, or a sink error; see
	// [TabDriver.StartScreencast].
	StartScreencast(ctx context.Context, o ScreencastOptions, sink FrameSink) (ScreencastStream, error)

	SetDialogPolicy(p DialogPolicy)
	CheckDialog() error
	// BlockNote returns the URL guard's latest unreported refusal of a
	// navigation the page started itself, or nil; see Tab.BlockNote.
	BlockNote() *BlockedError

	// The network: the request log, mocks, cookies and storage state.
	NetworkRequests(ctx context.Context, q RequestQuery) ([]Request, int, error)
	NetworkRequest(ctx context.Context, id int) (RequestDetail, error)
	RequestPostData(ctx context.Context, id int) ([]byte, error)
	ResponseBody(ctx context.Context, id int) (body []byte, binary bool, err error)
	AddMock(ctx context.Context, r MockRule) (Mock, error)
	Cookies(ctx context.Context, urls []string) ([]Cookie, error)
	SetCookie(ctx context.Context, c CookieSpec) error
	DeleteCookies(ctx context.Context, name, rawURL, domain, path string) (int, error)
	SaveStorageState(ctx context.Context) (*StorageState, error)
	LoadStorageState(ctx context.Context, st *StorageState) error
	DialogNote() *Dialog
	HandleDialog(ctx context.Context, accept bool, promptText string) (*Dialog, error)

	ConsoleMessages(ctx context.Context, q ConsoleQuery) ([]ConsoleMessage, int, error)
	ConsoleMessage(ctx context.Context, id int) (ConsoleMessage, error)
	SetConsolePreserve(on bool)

	Evaluate(ctx context.Context, fn string, args []EvalArg, lim EvalLimits) (*EvalResult, error)

	SetViewport(ctx context.Context, v *Viewport) (ViewportMetrics, error)
	Emulate(ctx context.Context, c EmulationChange) (Emulation, error)

	WaitFor(ctx context.Context, c WaitCondition, timeout time.Duration) (*WaitResult, error)
	Settle(ctx context.Context, bound time.Duration)

	// HeapSnapshot writes the tab's JavaScript heap snapshot to w; see
	// Tab.HeapSnapshot.
	HeapSnapshot(ctx context.Context, w io.Writer, progress func(done, total int64)) (int64, error)
	// Performance traces (trace.go): one records at a time per browser.
	StartTrace(ctx context.Context, o TraceOptions) error
	StopTrace(ctx context.Context) (*TraceFile, error)

	Acquire(ctx context.Context, op string, limit int) (release func(), err error)
	AwaitNavigation(ctx context.Context) error
	CheckCrashed() error
}
