package browser

import (
	"context"
	"errors"
	"fmt"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// readTextJS runs on the page's document or an element. It gets maxChars as
// an argument: nothing the caller gives is ever part of script source.
var readTextJS = loadScript("read_text").withPrelude(hiddenJS)

// Text returns the visible text of the page (its body's innerText) or of
// one element (its innerText). A form field gives its value instead, except
// a password field, which gives nothing and sets Password. Elements are
// resolved by [Tab.Element]. The context bounds the call.
func (t *Tab) Text(ctx context.Context, o driver.TextOptions) (*driver.TextResult, error) {
	if o.MaxChars < 0 {
		return nil, fmt.Errorf("%w: maxChars must not be negative", driver.ErrInvalidArgument)
	}
	limit := o.MaxChars
	if limit == 0 {
		limit = driver.DefaultTextChars
	}
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	var out struct {
		Text      string `json:"text"`
		Chars     int    `json:"chars"`
		Truncated bool   `json:"truncated"`
		Field     string `json:"field"`
		Password  bool   `json:"password"`
		Unchecked bool   `json:"unchecked"`
	}
	var sess cdpapi.Session = s
	var backend cdpapi.BackendNodeID
	if o.Ref != "" || o.Selector != "" {
		el, err := t.element(ctx, o.Ref, o.Selector)
		if err != nil {
			return nil, err
		}
		el.Release(ctx)
		sess, backend = el.Session, el.Backend
	}
	// The reader runs in an isolated world, where the DOM's functions are
	// the browser's own: a page that overrides them cannot put the text it
	// hides back in.
	obj, err := t.isolatedNode(ctx, sess, backend)
	if err != nil {
		return nil, fmt.Errorf("browser: reading the page's text: %w", err)
	}
	defer cdpapi.Call(ctx, sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj})
	err = callJS(ctx, sess, jsCall{this: obj}, readTextJS, &out, limit)
	if err != nil {
		return nil, fmt.Errorf("browser: reading text: %w", err)
	}
	r := driver.TextResult(out)
	return &r, nil
}

// isolatedNode returns a handle on the node backend (0: the document of
// the session's main frame) in cdpkit's hidden-filter isolated world of
// the frame the node belongs to.
func (t *Tab) isolatedNode(ctx context.Context, s cdpapi.Session, backend cdpapi.BackendNodeID) (runtime.RemoteObjectID, error) {
	lds, main, err := loaders(ctx, s)
	if err != nil {
		return "", err
	}
	if backend == 0 {
		yes := true
		var doc runtime.EvaluateResult
		err := t.inWorld(ctx, s, main, lds[main], hiddenWorld, func(world runtime.ExecutionContextID) error {
			var err error
			doc, err = cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "document", ContextID: world, Silent: &yes})
			return err
		})
		if err != nil {
			return "", err
		}
		if doc.ExceptionDetails != nil || doc.Result == nil || doc.Result.ObjectID == "" {
			return "", errors.New("no document")
		}
		return doc.Result.ObjectID, nil
	}
	// A node resolves only in a world of its own frame: the main frame's
	// first, then the session's other frames.
	frames := []cdpapi.FrameID{main}
	for f := range lds {
		if f != main {
			frames = append(frames, f)
		}
	}
	err = errors.New("no frame holds the node")
	for _, f := range frames {
		var r dom.ResolveNodeResult
		rerr := t.inWorld(ctx, s, f, lds[f], hiddenWorld, func(world runtime.ExecutionContextID) error {
			var err error
			r, err = cdpapi.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: backend, ExecutionContextID: world})
			return err
		})
		if rerr == nil && r.Object != nil && r.Object.ObjectID != "" {
			return r.Object.ObjectID, nil
		}
		if rerr != nil {
			err = rerr
		}
		if ctx.Err() != nil {
			break
		}
	}
	return "", err
}

// documentStateJS reads the current document, so
// it sees same-document navigations (#hash, pushState) at once.
var documentStateJS = loadScript("document_state")

// DocumentState returns the tab's URL, title and document.readyState. When
// the page cannot run script (between documents), it falls back to the
// navigation history and leaves ReadyState empty. The context bounds the
// call.
func (t *Tab) DocumentState(ctx context.Context) (driver.DocumentState, error) {
	s, err := t.session(ctx)
	if err != nil {
		return driver.DocumentState{}, err
	}
	var st driver.DocumentState
	if err := callJS(ctx, s, jsCall{}, documentStateJS, &st); err == nil && st.URL != "" {
		return st, nil
	}
	if ctx.Err() != nil {
		return driver.DocumentState{}, fmt.Errorf("browser: reading the document state: %w", ctx.Err())
	}
	loc, err := location(ctx, s)
	if err != nil {
		return driver.DocumentState{}, err
	}
	return driver.DocumentState{URL: loc.URL, Title: loc.Title}, nil
}
