package browser

import (
	"context"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Every snapshot reads its page in the hiddenWorld isolated world, and
// every action ends with a snapshot: making that world with
// Page.createIsolatedWorld cost a round trip (2–5 ms) on each new
// document. On the tab's page session the browser instead makes the
// world itself in each new document (Page.addScriptToEvaluateOnNewDocument
// with its name), and the tab learns each world's context from
// Runtime.executionContextCreated/Destroyed/Cleared, watched on the Conn's
// reader goroutine so that a context destroyed before a reply is
// forgotten before that reply returns. Sessions and frames without a
// known context fall back to worldCache (worlds.go).

// liveWorlds are the hiddenWorld contexts of the session it follows, by
// frame. The zero value follows nothing.
type liveWorlds struct {
	mu      sync.Mutex
	sess    *cdp.Session                 // guarded by mu
	byFrame map[cdpapi.FrameID]liveWorld // guarded by mu
}

// liveWorld is one frame's hiddenWorld context.
type liveWorld struct {
	id     runtime.ExecutionContextID
	unique string
}

// follow makes w follow s. Call it before Runtime.enable on s, which
// reports the contexts that exist.
func (w *liveWorlds) follow(s *cdp.Session) {
	w.mu.Lock()
	w.sess, w.byFrame = s, make(map[cdpapi.FrameID]liveWorld)
	w.mu.Unlock()
	s.Watch(func(ev cdp.Event) { w.handle(s, ev) },
		"Runtime.executionContextCreated", "Runtime.executionContextDestroyed", "Runtime.executionContextsCleared")
}

func (w *liveWorlds) handle(s *cdp.Session, ev cdp.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sess != s {
		return
	}
	switch ev.Method {
	case "Runtime.executionContextCreated":
		var p runtime.EventExecutionContextCreated
		if jsonv2.Unmarshal(ev.Params, &p) != nil || p.Context == nil || p.Context.Name != hiddenWorld {
			return
		}
		var aux struct {
			FrameID cdpapi.FrameID `json:"frameId"`
		}
		if jsonv2.Unmarshal(p.Context.AuxData, &aux) != nil || aux.FrameID == "" {
			return
		}
		w.byFrame[aux.FrameID] = liveWorld{p.Context.ID, p.Context.UniqueID}
	case "Runtime.executionContextDestroyed":
		var p struct {
			ID     runtime.ExecutionContextID `json:"executionContextId"`
			Unique string                     `json:"executionContextUniqueId"`
		}
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			clear(w.byFrame)
			return
		}
		for f, c := range w.byFrame {
			if (p.Unique != "" && c.unique == p.Unique) || (p.Unique == "" && c.id == p.ID) {
				delete(w.byFrame, f)
			}
		}
	case "Runtime.executionContextsCleared":
		clear(w.byFrame)
	}
}

// get returns frame's hiddenWorld context in s, if known.
func (w *liveWorlds) get(s cdpapi.Session, frame cdpapi.FrameID) (runtime.ExecutionContextID, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sess == nil || cdpapi.Session(w.sess) != s {
		return 0, false
	}
	c, ok := w.byFrame[frame]
	return c.id, ok
}

// forget drops frame's context id in s, found gone.
func (w *liveWorlds) forget(s cdpapi.Session, frame cdpapi.FrameID, id runtime.ExecutionContextID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sess != nil && cdpapi.Session(w.sess) == s && w.byFrame[frame].id == id {
		delete(w.byFrame, frame)
	}
}

// makeWorlds asks the browser to make hiddenWorld in every new document
// of s. The current ones are left alone (running script in them could
// wait on a dialog): their world is made on first use, as before.
func makeWorlds(ctx context.Context, s *cdp.Session) error {
	_, err := cdpapi.Call(ctx, s, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: "", WorldName: hiddenWorld,
	})
	return err
}
