package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Browser is one Firefox, launched or attached to, driven over BiDi. It
// keeps its tabs (top-level browsing contexts) in a table fed by
// browsingContext events. It implements driver.Driver. Safe for
// concurrent use.
type Browser struct {
	conn *bidi.Conn
	proc *process // nil when attached
	o    Options

	mu     sync.Mutex
	tabs   map[string]*Tab // guarded by mu; by context id
	order  []string        // guarded by mu; context ids in the order opened
	active string          // guarded by mu; the tab calls act on by default
	// parents maps a frame's context to its parent's; guarded by mu.
	parents map[string]string
	// blocks are the guard's latest refusals, by tab; guarded by mu.
	blocks map[string]blockRecord
	// scopes and owner keep the scopes (scope.go): each scope's state,
	// and which scope owns a tab; guarded by mu.
	scopes map[*driver.Scope]*scopeState
	owner  map[string]*driver.Scope
	// collector is the BiDi data collector keeping response bodies, ""
	// without one; guarded by mu.
	collector string
	// mocks are the mock rules (mock.go).
	mocks driver.MockTable
	// downloads is the download table; nil unless Options.DownloadDir is
	// set (downloads.go). Set before the browser is returned.
	downloads *downloads
}

// Launch starts a headless Firefox with a throwaway profile (see Options)
// and returns it once its BiDi session runs. ctx bounds only the launch.
func Launch(ctx context.Context, o *Options) (*Browser, error) {
	if o == nil {
		o = &Options{}
	}
	if o.WSEndpoint != "" {
		conn, err := connect(ctx, o.WSEndpoint, o)
		if err != nil {
			return nil, &driver.NoBrowserError{Reason: fmt.Sprintf("attaching to %s: %v", o.WSEndpoint, err),
				Hint: "start Firefox with --remote-debugging-port and give its ws:// address"}
		}
		return start(ctx, conn, nil, o)
	}
	p, conn, err := launch(ctx, o)
	if err != nil {
		return nil, err
	}
	return start(ctx, conn, p, o)
}

func start(ctx context.Context, conn *bidi.Conn, p *process, o *Options) (*Browser, error) {
	b := &Browser{conn: conn, proc: p, o: *o, tabs: make(map[string]*Tab), parents: make(map[string]string), blocks: make(map[string]blockRecord),
		scopes: make(map[*driver.Scope]*scopeState), owner: make(map[string]*driver.Scope)}
	conn.On(b.onEvent, "browsingContext.contextCreated", "browsingContext.contextDestroyed",
		"browsingContext.userPromptOpened", "browsingContext.userPromptClosed",
		"browsingContext.navigationStarted", "browsingContext.load", "browsingContext.fragmentNavigated")
	err := conn.Subscribe(ctx, "browsingContext.contextCreated", "browsingContext.contextDestroyed",
		"browsingContext.userPromptOpened", "browsingContext.userPromptClosed",
		"browsingContext.navigationStarted", "browsingContext.load", "browsingContext.fragmentNavigated")
	if err == nil {
		err = b.startGuard(ctx)
	}
	if err == nil {
		err = b.followActivity(ctx)
	}
	if err == nil {
		err = b.startDownloads(ctx)
	}
	if err == nil {
		err = b.reconcile(ctx)
	}
	if err == nil {
		err = b.defaultViewport(ctx, "default")
	}
	if err != nil {
		b.Close()
		return nil, &driver.NoBrowserError{Reason: "setting up the BiDi session: " + err.Error(), Hint: "check that this is Firefox 129 or newer"}
	}
	return b, nil
}

// defaultViewport gives the tabs of a launched Firefox's user context,
// those open and those to come, driver.DefaultViewport: the headless
// window is 1366×768 with a page of 1366×682. A Firefox cdpkit attached to
// keeps its own.
func (b *Browser) defaultViewport(ctx context.Context, userContext string) error {
	if b.proc == nil {
		return nil
	}
	v := driver.DefaultViewport
	err := b.conn.Call(ctx, "browsingContext.setViewport", map[string]any{
		"userContexts": []string{userContext},
		"viewport":     map[string]int{"width": v.Width, "height": v.Height},
	}, nil)
	if err != nil {
		return fmt.Errorf("firefox: setting the default viewport: %w", err)
	}
	return nil
}

// reconcile reads the open tabs once, after subscribing: events keep the
// table from then on.
func (b *Browser) reconcile(ctx context.Context) error {
	var r struct {
		Contexts []contextInfo `json:"contexts"`
	}
	if err := b.conn.Call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0}, &r); err != nil {
		return err
	}
	for _, c := range r.Contexts {
		if t := b.added(c); t != nil && b.proc != nil {
			b.mu.Lock()
			t.made = true // a launched Firefox's first tab is cdpkit's
			b.mu.Unlock()
		}
	}
	return nil
}

type contextInfo struct {
	Context        string  `json:"context"`
	URL            string  `json:"url"`
	Parent         *string `json:"parent"`
	UserContext    string  `json:"userContext"`
	OriginalOpener string  `json:"originalOpener"`
}

func (b *Browser) added(c contextInfo) *Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.Parent != nil {
		b.parents[c.Context] = *c.Parent
		return nil // a frame, not a tab
	}
	if t := b.tabs[c.Context]; t != nil {
		return t
	}
	b.adoptLocked(c.Context, c.OriginalOpener, c.UserContext)
	t := makeTab(b, c.Context, c.URL)
	t.opener = c.OriginalOpener
	b.tabs[c.Context] = t
	b.order = append(b.order, c.Context)
	if b.active == "" {
		b.active = c.Context
	}
	return t
}

// onEvent keeps the tab table; it runs on the connection's reader and
// never blocks.
func (b *Browser) onEvent(e bidi.Event) {
	var p struct {
		contextInfo
		Type         string `json:"type"`
		Message      string `json:"message"`
		DefaultValue string `json:"defaultValue"`
		Accepted     bool   `json:"accepted"`
		Navigation   string `json:"navigation"`
	}
	if json.Unmarshal(e.Params, &p) != nil {
		return
	}
	if e.Method == "browsingContext.contextCreated" {
		b.added(p.contextInfo)
		return
	}
	b.mu.Lock()
	t := b.tabs[p.Context]
	if e.Method == "browsingContext.contextDestroyed" {
		delete(b.parents, p.Context)
	}
	if e.Method == "browsingContext.contextDestroyed" && t != nil {
		delete(b.tabs, p.Context)
		b.order = slices.DeleteFunc(b.order, func(id string) bool { return id == p.Context })
		b.forgetLocked(p.Context)
		if b.active == p.Context {
			b.active = ""
			if len(b.order) > 0 {
				b.active = b.order[len(b.order)-1]
			}
		}
	}
	b.mu.Unlock()
	if t == nil {
		return
	}
	switch e.Method {
	case "browsingContext.contextDestroyed":
		t.gone()
	case "browsingContext.navigationStarted":
		t.newDocument(p.URL, p.Navigation)
	case "browsingContext.load", "browsingContext.fragmentNavigated":
		t.setURL(p.URL)
	case "browsingContext.userPromptOpened":
		t.promptOpened(driver.Dialog{Type: p.Type, Message: p.Message, DefaultPrompt: p.DefaultValue, Handled: driver.DialogOpen})
	case "browsingContext.userPromptClosed":
		t.promptClosed(p.Accepted)
	}
}

// Done is closed when the connection to Firefox is gone.
func (b *Browser) Done() <-chan struct{} { return b.conn.Done() }

// Version is Firefox's name and version, such as "firefox/153.8.0".
func (b *Browser) Version() string { return b.conn.Version() }

// PID is the launched Firefox's process id; 0 when attached.
func (b *Browser) PID() int {
	if b.proc == nil || b.proc.cmd.Process == nil {
		return 0
	}
	return b.proc.cmd.Process.Pid
}

// Profile is the launched Firefox's throwaway profile; "" when attached.
func (b *Browser) Profile() string {
	if b.proc == nil {
		return ""
	}
	return b.proc.profile
}

// Close stops a launched Firefox (and removes its profile) or ends the
// session with an attached one. It waits for the process to exit, bounded
// by a few seconds.
func (b *Browser) Close() error {
	if b.proc == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2e9)
		b.conn.Call(ctx, "session.end", nil, nil)
		cancel()
		return b.conn.Close()
	}
	err := b.proc.close(b.conn)
	b.conn.Close()
	return err
}

// PagesIn implements driver.Driver: the tabs s sees (every tab for a
// nil s).
func (b *Browser) PagesIn(ctx context.Context, s *driver.Scope) ([]driver.Page, error) {
	tabs := b.visible(s)
	active := b.activeOf(s)
	out := make([]driver.Page, 0, len(tabs))
	for i, t := range tabs {
		loc, err := t.Location(ctx)
		if err != nil {
			loc = driver.Location{URL: t.url()}
		}
		made, opener := t.origin()
		out = append(out, driver.Page{ID: t.id, Index: i, URL: loc.URL, Title: loc.Title, Active: t.id == active, Made: made, OpenerID: opener})
	}
	return out, nil
}

// PagesNow implements driver.Driver, from the event-fed table.
func (b *Browser) PagesNow(s *driver.Scope) ([]driver.Page, error) {
	tabs := b.visible(s)
	active := b.activeOf(s)
	out := make([]driver.Page, 0, len(tabs))
	for i, t := range tabs {
		made, opener := t.origin()
		out = append(out, driver.Page{ID: t.id, Index: i, URL: t.url(), Title: t.title(), Active: t.id == active, Made: made, OpenerID: opener})
	}
	return out, nil
}

// TabIn implements driver.Driver: "active" (or ""), "index:N",
// "url:SUBSTR", "title:SUBSTR" or a context id (driver.ParseTabSelector).
// With no tab active, "active" is the last tab.
func (b *Browser) TabIn(ctx context.Context, s *driver.Scope, selector string) (driver.TabDriver, error) {
	sel, err := driver.ParseTabSelector(selector)
	if err != nil {
		return nil, err
	}
	tabs := b.visible(s)
	notFound := &driver.TargetNotFoundError{Selector: selector, Open: len(tabs)}
	if sel.Active() {
		active := b.activeOf(s)
		for _, t := range tabs {
			if t.id == active {
				return t, nil
			}
		}
		if len(tabs) == 0 {
			return b.NewTab(ctx, &driver.TabOptions{Scope: s})
		}
		return tabs[len(tabs)-1], nil
	}
	if sel.ByContent() {
		pages, err := b.PagesIn(ctx, s)
		if err != nil {
			return nil, err
		}
		for i, p := range pages {
			if sel.Match(i, p) && i < len(tabs) {
				return tabs[i], nil
			}
		}
		return nil, notFound
	}
	for i, t := range tabs {
		if sel.Match(i, driver.Page{ID: t.id}) {
			return t, nil
		}
	}
	return nil, notFound
}

// NewTab implements driver.Driver: browsingContext.create, on
// about:blank. The new tab becomes the active one unless o.Background.
func (b *Browser) NewTab(ctx context.Context, o *driver.TabOptions) (driver.TabDriver, error) {
	bg := o != nil && o.Background
	var s *driver.Scope
	if o != nil {
		s = o.Scope
	}
	if s != nil && s.Ended() {
		return nil, fmt.Errorf("firefox: opening a tab: %w", driver.ErrScopeClosed)
	}
	params := map[string]any{"type": "tab", "background": bg}
	uc, err := b.userContext(ctx, s)
	if err != nil {
		return nil, err
	}
	if uc != "" {
		params["userContext"] = uc
	}
	var r struct {
		Context string `json:"context"`
	}
	for range 3 {
		// Firefox may pick a tab that is closing as the new one's
		// neighbour and fail with "no such frame": ask again.
		err = b.conn.Call(ctx, "browsingContext.create", params, &r)
		if !errors.Is(err, bidi.ErrNoSuchFrame) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("firefox: opening a tab: %w", err)
	}
	t := b.added(contextInfo{Context: r.Context, URL: "about:blank", UserContext: uc})
	if t == nil {
		return nil, errors.New("firefox: opening a tab: no top-level context")
	}
	b.mu.Lock()
	t.made = true
	b.mu.Unlock()
	if err := b.claim(ctx, s, t.id, !bg); err != nil {
		return nil, err
	}
	return t, nil
}

var _ driver.Driver = (*Browser)(nil)
