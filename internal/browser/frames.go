package browser

import (
	"context"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/poll"
)

// autoAttach makes the browser attach cdpkit to the out-of-process iframes
// under s (flattened, not paused), and records their sessions in the tab by
// frame id. It returns once the subscription is in place; a goroutine
// follows the session until it closes.
func (t *Tab) autoAttach(ctx context.Context, s *cdp.Session) error {
	events, stop := s.SubscribeEvents("Target.attachedToTarget", "Target.detachedFromTarget")
	flatten := true
	if _, err := cdpapi.Call(ctx, s, target.SetAutoAttach, target.SetAutoAttachParams{
		AutoAttach: true, WaitForDebuggerOnStart: false, Flatten: &flatten,
	}); err != nil {
		stop()
		return err
	}
	go func() {
		defer stop()
		for ev := range events {
			t.handleAttach(s.Conn(), ev)
		}
	}()
	return nil
}

func (t *Tab) handleAttach(conn *cdp.Conn, ev cdp.Event) {
	switch ev.Method {
	case "Target.attachedToTarget":
		var a target.EventAttachedToTarget
		if jsonv2.Unmarshal(ev.Params, &a) != nil || a.TargetInfo == nil {
			return
		}
		if a.TargetInfo.Type == "worker" {
			// A dedicated worker's requests are the tab's too.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			t.enableNetwork(ctx, conn.Session(string(a.SessionID)))
			return
		}
		if a.TargetInfo.Type != "iframe" {
			return
		}
		child := conn.Session(string(a.SessionID))
		t.fmu.Lock()
		t.frames[cdpapi.FrameID(a.TargetInfo.TargetID)] = child
		t.fmu.Unlock()
		// Iframes nested in this one are out of process too, possibly.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		t.enableNetwork(ctx, child)
		t.autoAttach(ctx, child)
	case "Target.detachedFromTarget":
		var d target.EventDetachedFromTarget
		if jsonv2.Unmarshal(ev.Params, &d) != nil {
			return
		}
		t.fmu.Lock()
		for id, s := range t.frames {
			if s.ID() == string(d.SessionID) {
				delete(t.frames, id)
			}
		}
		t.fmu.Unlock()
	}
}

// frameSession returns the session of an out-of-process iframe, waiting
// briefly for its attachment, which can trail a navigation.
func (t *Tab) frameSession(ctx context.Context, id cdpapi.FrameID) *cdp.Session {
	var s *cdp.Session
	poll.Until(ctx, poll.Options{Interval: 20 * time.Millisecond, Within: time.Second}, func(context.Context) bool {
		t.fmu.Lock()
		s = t.frames[id]
		t.fmu.Unlock()
		return s != nil
	})
	return s
}

// loaders maps each frame a session renders to its current loader id,
// which changes whenever the frame gets a new document.
func loaders(ctx context.Context, s cdpapi.Session) (map[cdpapi.FrameID]cdpapi.LoaderID, cdpapi.FrameID, error) {
	res, err := cdpapi.Call(ctx, s, page.GetFrameTree, cdpapi.Empty{})
	if err != nil {
		return nil, "", err
	}
	m := make(map[cdpapi.FrameID]cdpapi.LoaderID)
	var walk func(ft *page.FrameTree)
	walk = func(ft *page.FrameTree) {
		if ft == nil || ft.Frame == nil {
			return
		}
		m[ft.Frame.ID] = ft.Frame.LoaderID
		for _, c := range ft.ChildFrames {
			walk(c)
		}
	}
	walk(res.FrameTree)
	if res.FrameTree == nil || res.FrameTree.Frame == nil {
		return m, "", nil
	}
	return m, res.FrameTree.Frame.ID, nil
}
