package browser

import (
	"context"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// Reading a page's accessibility tree is most of a snapshot's time (on
// the bench's list page, 4 of its 5 ms), and an agent often looks at a
// page that has not changed since it last looked. A tab therefore keeps
// the tree of its last whole-page snapshot, and the next snapshot of the
// same document reuses it, after one small evaluation, when all of this
// holds:
//
//   - the browser is headless and cdpkit launched it: no one else moves a
//     pointer over the page (a :hover rule changes what is shown with no
//     change to the DOM) or drives it through another connection;
//   - no command other than a read has been sent on the tab's session
//     since (cdp.Session.Writes): every action, script, emulation or
//     navigation of cdpkit's is one;
//   - the document has no iframe and no shadow root of its own, whose
//     changes the observer below does not see;
//   - its watch token (watchJS) is the same: no DOM mutation seen by a
//     MutationObserver in cdpkit's isolated world, the same focused
//     element, the same values and checked states of its form fields, the
//     same viewport, URL and ready state, and no animation running (one
//     running yields no token, so nothing is reused while it runs);
//   - the token was read before the tree: its evaluation is sent ahead of
//     the tree's reads on the session, which the page runs in order, so a
//     change made in between leaves a tree newer than its token, and the
//     next token differs.
//
// The token is not read by the snapshot right after an action (the one
// the action waits for): the next snapshot reads it, and the one after
// that reuses.
//
// What it cannot see: a click listener added by script with no change to
// the DOM (clickable.go's listener-only elements) or a style sheet changed
// through the CSSOM; either shows at the next action, navigation or
// change to the DOM.

// watchJS defines cdpkitToken(): a string that changes when anything a
// snapshot shows may have changed, "" when that cannot be told (an
// animation is running). The MutationObserver is made on the first call
// in a document's world and lives with it; the world's random id makes
// tokens of two worlds differ.
const watchJS = `
const cdpkitToken = () => {
	let w = globalThis.__cdpkitWatch;
	if (!w) {
		w = {n: 0, id: Math.random().toString(36).slice(2), els: new WeakMap(), next: 1};
		w.mo = new MutationObserver((rs) => { w.n += rs.length; });
		w.mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
		globalThis.__cdpkitWatch = w;
	}
	w.n += w.mo.takeRecords().length;
	for (const a of document.getAnimations()) if (a.playState === "running" || a.pending) return "";
	const id = (el) => {
		if (!el) return 0;
		let i = w.els.get(el);
		if (!i) { i = w.next++; w.els.set(el, i); }
		return i;
	};
	let s = "", h = 2166136261;
	for (const el of document.querySelectorAll("input,textarea,select")) {
		s += el.tagName === "SELECT" ? Array.from(el.selectedOptions, (o) => o.index).join(",") : el.value;
		s += (el.checked ? "+" : "-") + (el.indeterminate ? "?" : "") + "\u0000";
	}
	for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
	return [w.id, w.n, id(document.activeElement), h >>> 0, s.length, innerWidth, innerHeight,
		devicePixelRatio, document.readyState, document.hasFocus(), location.href].join(" ");
};
`

// snapReuse is a tab's last whole-page snapshot tree, for the next
// snapshot of the same unchanged document. The zero value holds none.
type snapReuse struct {
	mu sync.Mutex
	e  reuseEntry // guarded by mu
}

// reuseEntry is one read of a document and, when it read a token, the
// tree to reuse while the token holds.
type reuseEntry struct {
	sess   *cdp.Session
	loader cdpapi.LoaderID
	writes uint64 // the session's Writes count when the read began
	token  string // the document's watch token, read before the tree
	root   *snapshot.Node
	n      int
	ok     bool // root may be reused while the token holds; false while the page changes by itself
	// unwatched: the document is not one reuse can watch (an iframe, a
	// shadow root); no token is read until something is written.
	unwatched bool
}

// reusable reports whether a snapshot of s's main document loader may
// reuse or remember a tree at all, and s's write count.
func (t *Tab) reusable(s *cdp.Session, loader cdpapi.LoaderID) (uint64, bool) {
	writes, settled := s.Writes()
	return writes, settled && loader != "" && t.b.windowPerTab
}

// watch reports whether a read of s's document loader that begins at
// writes should read the watch token: when the read before it began at
// the same count, nothing was done since, and the document can be
// watched. Right after an action it is not read (the read that follows
// an action is the one actions wait for); the snapshot after that reads
// it, and the one after that can reuse.
func (r *snapReuse) watch(s *cdp.Session, loader cdpapi.LoaderID, writes uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.e.sess == s && r.e.loader == loader && r.e.writes == writes && !r.e.unwatched
}

// reuse returns the remembered tree of s's main document (frame, loader)
// if it still holds: nothing written on s since writes, and the same
// watch token now.
func (r *snapReuse) reuse(ctx context.Context, t *Tab, s *cdp.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID, writes uint64) (*snapshot.Node, int, bool) {
	r.mu.Lock()
	e := r.e
	r.mu.Unlock()
	if !e.ok || e.sess != s || e.loader != loader || e.writes != writes {
		return nil, 0, false
	}
	token := t.watchToken(ctx, s, frame, loader)
	if now, settled := s.Writes(); now != writes || !settled {
		return nil, 0, false
	}
	if token == "" || token != e.token {
		return nil, 0, false
	}
	return e.root, e.n, true
}

// note remembers a whole read of s's document loader that began at
// writes, with the token it read before the tree ("" when none), and
// whether the document is one reuse can watch (plain).
func (r *snapReuse) note(s *cdp.Session, loader cdpapi.LoaderID, writes uint64, token string, plain bool, root *snapshot.Node, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now, settled := s.Writes(); now != writes || !settled {
		r.e = reuseEntry{}
		return
	}
	if !plain || token == "" {
		r.e = reuseEntry{sess: s, loader: loader, writes: writes, unwatched: !plain}
		return
	}
	// A page that changes by itself (a clock, a feed) would only make
	// the next snapshot pay for a token that differs: probe again once two
	// reads in a row found the same token.
	prev := r.e
	changing := prev.sess == s && prev.loader == loader && prev.writes == writes && prev.token != "" && prev.token != token
	r.e = reuseEntry{sess: s, loader: loader, writes: writes, token: token, root: root, n: n, ok: !changing}
}

// watchToken reads the watch token of frame's document loader in s, ""
// when it cannot.
func (t *Tab) watchToken(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID) string {
	yes := true
	var res runtime.EvaluateResult
	err := t.inWorld(ctx, s, frame, loader, hiddenWorld, func(world runtime.ExecutionContextID) error {
		var err error
		res, err = cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "(() => {" + watchJS + "return cdpkitToken();})()", ContextID: world, Silent: &yes,
		})
		return err
	})
	var token string
	if err != nil || res.ExceptionDetails != nil || res.Result == nil || jsonv2.Unmarshal(res.Result.Value, &token) != nil {
		return ""
	}
	return token
}
