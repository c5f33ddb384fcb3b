package browser

import (
	"context"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// cdpkit reads pages in isolated worlds of its own (hidden.go, text.go,
// snapshot_budget.go), where the DOM's functions are the browser's whatever
// the page did to its prototypes. Page.createIsolatedWorld makes a new
// world on every call, so a tab remembers each world's execution context
// for its document's life: one round trip per snapshot or get_text saved,
// and a page that stays open all day does not collect a world per call.

// maxWorlds bounds the contexts a tab remembers; past it they are all
// forgotten (and made again on use).
const maxWorlds = 64

// worldKey is one named world of one frame as a session renders it.
type worldKey struct {
	session cdpapi.Session
	frame   cdpapi.FrameID
	name    string
}

// worldEntry is a world's context in one document of its frame.
type worldEntry struct {
	loader cdpapi.LoaderID
	id     runtime.ExecutionContextID
}

// worldCache is a tab's remembered worlds. The zero value is ready.
type worldCache struct {
	mu sync.Mutex
	m  map[worldKey]worldEntry // guarded by mu
}

func (w *worldCache) get(k worldKey, loader cdpapi.LoaderID) (runtime.ExecutionContextID, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[k]
	return e.id, ok && loader != "" && e.loader == loader
}

func (w *worldCache) put(k worldKey, loader cdpapi.LoaderID, id runtime.ExecutionContextID) {
	if loader == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil || len(w.m) >= maxWorlds {
		w.m = make(map[worldKey]worldEntry)
	}
	w.m[k] = worldEntry{loader, id}
}

func (w *worldCache) forget(k worldKey, id runtime.ExecutionContextID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[k]; ok && e.id == id {
		delete(w.m, k)
	}
}

// isolatedWorld makes cdpkit's isolated world named name in frame and
// returns its execution context.
func isolatedWorld(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID, name string) (runtime.ExecutionContextID, error) {
	w, err := cdpapi.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: name})
	if err != nil {
		return 0, err
	}
	return w.ExecutionContextID, nil
}

// inWorld runs fn in the execution context of the isolated world name of
// frame, whose current document is loader ("" when unknown: a new world,
// not remembered). The world is made on first use in a document and
// remembered for it; if fn reports that a remembered context is gone, it
// runs once more in a new world. ctx bounds making the world; fn bounds
// its own calls.
func (t *Tab) inWorld(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID, name string, fn func(runtime.ExecutionContextID) error) error {
	if name == hiddenWorld {
		if id, ok := t.live.get(s, frame); ok {
			err := fn(id)
			if err == nil || cdp.Classify(err) != cdp.KindContextGone || ctx.Err() != nil {
				return err
			}
			t.live.forget(s, frame, id)
		}
	}
	k := worldKey{s, frame, name}
	id, remembered := t.worlds.get(k, loader)
	if !remembered {
		var err error
		if id, err = isolatedWorld(ctx, s, frame, name); err != nil {
			return err
		}
		t.worlds.put(k, loader, id)
	}
	err := fn(id)
	if err == nil || !remembered || cdp.Classify(err) != cdp.KindContextGone || ctx.Err() != nil {
		return err
	}
	t.worlds.forget(k, id)
	id, werr := isolatedWorld(ctx, s, frame, name)
	if werr != nil {
		return err
	}
	t.worlds.put(k, loader, id)
	return fn(id)
}
