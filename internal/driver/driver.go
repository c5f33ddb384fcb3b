package driver

import (
	"context"
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
	// TabIn returns the tab selector names among those s sees: "active"
	// (or ""), "index:N", "url:SUBSTR", "title:SUBSTR" or a tab ID.
	TabIn(ctx context.Context, s *Scope, selector string) (TabDriver, error)
	// NewTab opens a tab as o says.
	NewTab(ctx context.Context, o *TabOptions) (TabDriver, error)
	// CloseScope closes the tabs (and context) of an ended scope.
	CloseScope(ctx context.Context, s *Scope)
}

// TabDriver is one tab as cdpkit's tools drive it, the core every backend
// implements: navigation, the snapshot source, element input, screenshots,
// dialogs, evaluation, waiting, and the tab's queue and health. What only
// some backends can do is a role (contract.go) that a TabDriver
// implements or not, found by type assertion. See Driver.
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
	DocumentState(ctx context.Context) (DocumentState, error)

	Snapshot(ctx context.Context, o SnapshotOptions) (snapshot.Result, error)
	SnapshotDiff(ctx context.Context, o SnapshotOptions) (snapshot.Result, snapshot.Changes, error)
	Text(ctx context.Context, o TextOptions) (*TextResult, error)

	Click(ctx context.Context, o ClickOptions) (*ClickResult, error)
	Hover(ctx context.Context, ref, selector string) (*HoverResult, error)
	Fill(ctx context.Context, ref, selector, value string) (*FillResult, error)
	SelectOptions(ctx context.Context, ref, selector string, values []string) ([]string, error)
	TypeText(ctx context.Context, ref, selector, text string) error
	PressKey(ctx context.Context, ref, selector, key string) error

	Screenshot(ctx context.Context, o ScreenshotOptions) (*Screenshot, error)

	SetDialogPolicy(p DialogPolicy)
	CheckDialog() error
	// BlockNote returns the URL guard's latest unreported refusal of a
	// navigation the page started itself, or nil.
	BlockNote() *BlockedError
	DialogNote() *Dialog
	HandleDialog(ctx context.Context, accept bool, promptText string) (*Dialog, error)

	Evaluate(ctx context.Context, fn string, args []EvalArg, lim EvalLimits) (*EvalResult, error)

	WaitFor(ctx context.Context, c WaitCondition, timeout time.Duration) (*WaitResult, error)
	Settle(ctx context.Context, bound time.Duration)

	Acquire(ctx context.Context, op string, limit int) (release func(), err error)
	AwaitNavigation(ctx context.Context) error
	CheckCrashed() error
}
