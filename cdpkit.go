// Package cdpkit drives a real Chromium from Go with the same operations,
// rules and errors that cdpkit's MCP tools and CLI give an agent: open
// tabs, navigate, read the page as a compact snapshot with element refs,
// act on elements by ref, and learn what each action changed.
//
//	b, err := cdpkit.Launch(ctx, nil)
//	if err != nil { … }
//	defer b.Close()
//	tab, err := b.NewTab(ctx, "https://example.com")
//	snap, err := tab.Snapshot(ctx, nil)
//	changes, err := tab.Click(ctx, cdpkit.Ref(snap.RefOf("More information")))
//
// Every method runs the tool of the same name through cdpkit's registry:
// the same argument checks, URL policy, per-tab queue, dialog and crash
// checks, deadlines and error taxonomy as an MCP client or the CLI gets.
// A failed call returns an *Error carrying the code, message, recoverable
// flag and hint that MCP and the CLI show.
//
// AddTools puts cdpkit's tools into another go-sdk MCP server.
package cdpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// Options configure a Browser. Nil means defaults; the zero value of each
// field is its default.
type Options struct {
	// ExecPath is the Chromium to launch; empty means search the usual
	// places and PATH.
	ExecPath string
	// Args are extra command-line flags for a launched browser.
	Args []string
	// Headful shows a window instead of running headless.
	Headful bool

	// ArtifactDir is where screenshots and saved files go; empty means a
	// new temporary directory, removed by Close.
	ArtifactDir string
	// Timeout bounds each call that the caller's context does not bound
	// sooner; zero means 30 s, and at most 120 s.
	Timeout time.Duration
	// AllowEval enables Tab.Evaluate (and the evaluate_script tool), which
	// runs JavaScript in the page; it is off by default, as in MCP.
	AllowEval bool
	// Dialogs says which JavaScript dialogs are answered without the
	// caller: "report" (the default: alerts and beforeunload are accepted,
	// confirm and prompt wait for an answer), "accept" or "dismiss".
	Dialogs string
	// AllowedOrigins, BlockedOrigins, AllowPrivateNetworks and
	// BlockLoopback are the URL policy, as cdpkit's flags of the same
	// names: by default private networks are refused and loopback allowed.
	AllowedOrigins       []string
	BlockedOrigins       []string
	AllowPrivateNetworks bool
	BlockLoopback        bool

	// Logger receives cdpkit's logs; nil discards them.
	Logger *slog.Logger
}

// Browser is a Chromium that cdpkit launched or attached to, with its tabs.
// Its methods may be called from any goroutine: calls on different tabs
// run concurrently, and state-changing calls on one tab wait their turn.
// If the browser crashes, the next call starts a new one.
type Browser struct {
	env     *tools.Env
	tools   map[string]*tools.Tool
	tempDir string // the artifact dir Close removes; "" when the caller chose it
}

// Launch starts a headless Chromium (see Options) and returns it once it
// answers. ctx bounds only the launch; the browser runs until Close.
func Launch(ctx context.Context, o *Options) (*Browser, error) {
	return open(ctx, "", o)
}

// Attach connects to a running Chromium at endpoint: http://host:port
// (its remote debugging port) or a ws:// DevTools URL. ctx bounds only
// connecting; Close disconnects and leaves that browser running.
func Attach(ctx context.Context, endpoint string, o *Options) (*Browser, error) {
	if endpoint == "" {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "no endpoint to attach to", Hint: "give http://host:port or a ws:// DevTools URL"}
	}
	return open(ctx, endpoint, o)
}

func open(ctx context.Context, endpoint string, o *Options) (*Browser, error) {
	if o == nil {
		o = &Options{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dialogs, err := browser.ParseDialogPolicy(o.Dialogs)
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error(), Hint: "use report, accept or dismiss"}
	}
	b := &Browser{tools: map[string]*tools.Tool{}}
	dir := o.ArtifactDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "cdpkit-artifacts-"); err != nil {
			return nil, fmt.Errorf("cdpkit: creating an artifact dir: %w", err)
		}
		b.tempDir = dir
	}
	artifacts, err := policy.OpenArtifacts(dir)
	if err != nil {
		b.removeTemp()
		return nil, fmt.Errorf("cdpkit: %w", err)
	}
	urls := &policy.Policy{AllowedOrigins: o.AllowedOrigins, BlockedOrigins: o.BlockedOrigins,
		AllowPrivateNetworks: o.AllowPrivateNetworks, BlockLoopback: o.BlockLoopback}
	bo := browser.Options{ExecPath: o.ExecPath, Args: o.Args, Headful: o.Headful, Logger: log, URLPolicy: urls}
	switch {
	case strings.HasPrefix(endpoint, "ws://"), strings.HasPrefix(endpoint, "wss://"):
		bo.WSEndpoint = endpoint
	case endpoint != "":
		bo.BrowserURL = endpoint
	}
	b.env = &tools.Env{Browsers: browser.NewManager(&bo), Artifacts: artifacts, Log: log, Timeout: o.Timeout,
		AllowEval: o.AllowEval, DialogPolicy: dialogs, URLPolicy: urls}
	for _, t := range tools.All() {
		b.tools[t.Name] = &t
	}
	if _, err := b.env.Browsers.Browser(ctx); err != nil {
		b.Close()
		return nil, asError(err)
	}
	return b, nil
}

// Close stops a launched browser (or disconnects from an attached one),
// which closes its tabs, and removes the temporary artifact dir if
// Options.ArtifactDir was empty. Calls in flight fail. Close is safe to
// call more than once.
func (b *Browser) Close() error {
	err := b.env.Browsers.Close()
	b.env.Artifacts.Close()
	b.removeTemp()
	if errors.Is(err, browser.ErrClosed) {
		return nil
	}
	return err
}

func (b *Browser) removeTemp() {
	if b.tempDir != "" {
		os.RemoveAll(b.tempDir)
	}
}

// ArtifactDir is the directory screenshots and saved files go to.
func (b *Browser) ArtifactDir() string { return b.env.Artifacts.Dir() }

// TabInfo describes an open tab.
type TabInfo struct {
	ID     string `json:"id"`
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
	// Crashed says the tab's renderer crashed; navigating it recovers it.
	Crashed bool `json:"crashed,omitempty"`
}

// NewTab opens a tab, makes it the active one and loads url unless it is
// empty (about:blank). ctx bounds opening and loading.
func (b *Browser) NewTab(ctx context.Context, url string) (*Tab, error) {
	var out struct {
		ID string `json:"id"`
	}
	if err := b.call(ctx, "new_page", map[string]any{"url": url}, &out); err != nil {
		return nil, err
	}
	return &Tab{b: b, id: out.ID}, nil
}

// Tabs lists the open tabs in the order they were opened. ctx bounds the
// call (and starting a browser, after a crash).
func (b *Browser) Tabs(ctx context.Context) ([]TabInfo, error) {
	var out struct {
		Pages []TabInfo `json:"pages"`
	}
	if err := b.call(ctx, "list_pages", nil, &out); err != nil {
		return nil, err
	}
	return out.Pages, nil
}

// Tab returns the tab a selector names, as in the tools' target argument:
// "active" (or ""), "index:N", "url:SUBSTR", "title:SUBSTR" or a tab ID.
// The Tab keeps naming that tab (by its ID) until it closes.
func (b *Browser) Tab(ctx context.Context, selector string) (*Tab, error) {
	br, err := b.env.Browsers.Browser(ctx)
	if err != nil {
		return nil, asError(err)
	}
	t, err := br.ResolveIn(ctx, b.env.Scope, selector)
	if err != nil {
		return nil, asError(err)
	}
	return &Tab{b: b, id: string(t.ID())}, nil
}

// call runs the tool name with args, and decodes its data into out (if
// not nil). The error is always an *Error.
func (b *Browser) call(ctx context.Context, name string, args map[string]any, out any) error {
	res, err := b.run(ctx, name, args)
	if err != nil {
		return err
	}
	if out == nil || res.Data == nil {
		return nil
	}
	raw, err := json.Marshal(res.Data)
	if err == nil {
		err = json.Unmarshal(raw, out)
	}
	if err != nil {
		return &Error{Code: string(tools.Internal), Message: fmt.Sprintf("decoding %s's result: %v", name, err), Hint: "this is a cdpkit bug"}
	}
	return nil
}

// run runs the tool name with args and returns its result.
func (b *Browser) run(ctx context.Context, name string, args map[string]any) (*tools.Result, error) {
	t := b.tools[name]
	if args == nil {
		args = map[string]any{}
	}
	for k, v := range args {
		if v == nil || v == "" || v == false || v == 0 {
			delete(args, k) // absent, as the tools' defaults expect
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error()}
	}
	res, err := t.Call(ctx, b.env, raw)
	if err != nil {
		return nil, asError(err)
	}
	return res, nil
}
