package browser

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// maxRefs bounds the refs a tab remembers. Past it the oldest are
// forgotten and reported stale.
const maxRefs = 100_000

// refKey identifies a DOM node across snapshots: backend node ids are only
// unique within one renderer's document, so the document (its loader) and
// the session are part of the key.
type refKey struct {
	session string
	loader  cdpapi.LoaderID
	backend cdpapi.BackendNodeID
}

// refEntry is where a ref points.
type refEntry struct {
	session *cdp.Session
	frame   cdpapi.FrameID
	loader  cdpapi.LoaderID
	backend cdpapi.BackendNodeID
}

// refTable hands out "eN" refs per tab. A node keeps its number while its
// document lives; numbers are never reused, so an old ref can never name a
// different element.
//
// Refs of a document that is gone are forgotten as soon as a snapshot
// shows its frame with a new document (or its session has ended), so a
// tab that navigates all day holds the refs of its current documents
// only; a forgotten ref is reported stale, as it would be on use.
type refTable struct {
	mu      sync.Mutex
	next    int                 // guarded by mu; the last number issued
	byKey   map[refKey]int      // guarded by mu
	byNum   map[int]refEntry    // guarded by mu
	docs    map[docKey]*docRefs // guarded by mu; the refs issued in each frame's current document
	lastRun map[string][]string // guarded by mu; previous snapshot lines, by snapshot kind
}

// docKey is a frame as one session renders it.
type docKey struct {
	session string
	frame   cdpapi.FrameID
}

// docRefs are the numbers issued in a frame's document.
type docRefs struct {
	session *cdp.Session
	loader  cdpapi.LoaderID
	nums    []int
}

func newRefTable() *refTable {
	return &refTable{byKey: make(map[refKey]int), byNum: make(map[int]refEntry), docs: make(map[docKey]*docRefs),
		lastRun: make(map[string][]string)}
}

// ref returns the ref for e, issuing one on first sight.
func (r *refTable) ref(e refEntry) string {
	k := refKey{e.session.ID(), e.loader, e.backend}
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.byKey[k]
	if !ok {
		r.next++
		n = r.next
		r.byKey[k] = n
		r.byNum[n] = e
		d := r.document(e)
		d.nums = append(d.nums, n)
		if len(r.byNum) > maxRefs {
			r.forgetOldestLocked()
		}
	}
	return "e" + strconv.Itoa(n)
}

// document returns the refs of e's document, first forgetting those of
// the frame's previous document: its loader changed, so that document is
// gone and its refs are stale (as element finds on use). r.mu must be
// held.
func (r *refTable) document(e refEntry) *docRefs {
	dk := docKey{e.session.ID(), e.frame}
	d := r.docs[dk]
	if d != nil && d.loader == e.loader {
		return d
	}
	if d != nil {
		r.forgetLocked(d)
	}
	d = &docRefs{session: e.session, loader: e.loader}
	r.docs[dk] = d
	return d
}

// prune forgets the refs of documents that are gone: session s's frames
// no longer in its frame tree (lds, from loaders) or with a new document
// since, and every frame of a session that has ended (an out-of-process
// iframe that went away). Navigating drops a page's iframes, whose frame
// ids are never seen again.
func (r *refTable) prune(s *cdp.Session, lds map[cdpapi.FrameID]cdpapi.LoaderID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, d := range r.docs {
		gone := false
		select {
		case <-d.session.Done():
			gone = true
		default:
			if k.session == s.ID() {
				l, ok := lds[k.frame]
				gone = !ok || l != d.loader
			}
		}
		if gone {
			r.forgetLocked(d)
			delete(r.docs, k)
		}
	}
}

// forgetLocked drops a document's refs. r.mu must be held.
func (r *refTable) forgetLocked(d *docRefs) {
	for _, n := range d.nums {
		if e, ok := r.byNum[n]; ok {
			delete(r.byNum, n)
			delete(r.byKey, refKey{e.session.ID(), e.loader, e.backend})
		}
	}
	d.nums = nil
	if len(r.byNum) == 0 {
		// A map keeps the room it once grew to; after a page of
		// thousands of refs, start small again.
		r.byKey = make(map[refKey]int)
		r.byNum = make(map[int]refEntry)
	}
}

// forgetOldestLocked bounds one long-lived document's refs: past maxRefs
// the older half is forgotten. r.mu must be held.
func (r *refTable) forgetOldestLocked() {
	cut := r.next - maxRefs/2
	for n, e := range r.byNum {
		if n < cut {
			delete(r.byNum, n)
			delete(r.byKey, refKey{e.session.ID(), e.loader, e.backend})
		}
	}
	for _, d := range r.docs {
		d.nums = slices.DeleteFunc(d.nums, func(n int) bool { return n < cut })
	}
}

// lookupNumber parses "e12" or "@e12".
func (r *refTable) lookupNumber(ref string) (int, error) {
	s := strings.TrimPrefix(strings.TrimSpace(ref), "@")
	n, err := strconv.Atoi(strings.TrimPrefix(s, "e"))
	if !strings.HasPrefix(s, "e") || err != nil || n <= 0 {
		return 0, &driver.ElementError{Ref: ref, Err: fmt.Errorf("%w (refs look like e12)", driver.ErrInvalidArgument)}
	}
	return n, nil
}

// lookup returns the entry for "e12" or "@e12".
func (r *refTable) lookup(ref string) (refEntry, error) {
	n, err := r.lookupNumber(ref)
	if err != nil {
		return refEntry{}, err
	}
	s := "e" + strconv.Itoa(n)
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byNum[n]
	switch {
	case ok:
		return e, nil
	case n <= r.next:
		// Issued once, forgotten since: its document is gone.
		return refEntry{}, &driver.ElementError{Ref: s, Err: driver.ErrRefStale}
	default:
		return refEntry{}, &driver.ElementError{Ref: s, Err: driver.ErrRefNotFound}
	}
}

func (r *refTable) previous(kind string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRun[kind]
}

func (r *refTable) remember(kind string, lines []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastRun[kind] = lines
}

// element is a DOM node that a tool acts on, in the session whose renderer
// holds it (the page's, or an out-of-process iframe's), with a JavaScript
// handle to it in the "cdpkit" object group.
type element struct {
	Session *cdp.Session
	Backend cdpapi.BackendNodeID
	Object  runtime.RemoteObjectID
	Ref     string // the ref it was named by, if any
}

// elementGroup is the object group of element handles; Release frees them.
const elementGroup = "cdpkit"

// releaseTimeout bounds freeing a handle. A renderer that does not answer
// so small a request in that time is blocked (a dialog), looping or gone;
// the handle then dies with its document, and the call that held it must
// not wait for its own deadline.
const releaseTimeout = time.Second

// Release frees the element's JavaScript handle, best effort, within
// ctx and releaseTimeout. Handles also die with their document.
func (e *element) Release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	cdpapi.Call(ctx, e.Session, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: e.Object})
}

// element resolves what an element-taking tool was given: a ref from a
// snapshot ("e12" or "@e12") or, when ref is empty, a CSS selector matched
// in the page's main document. It is the one place element arguments are
// resolved. A ref of a changed document, or of a node no longer in it, is
// ErrRefStale; a ref never issued ErrRefNotFound; a selector matching
// nothing ErrElementNotFound. The caller should Release the element.
func (t *Tab) element(ctx context.Context, ref, selector string) (*element, error) {
	return t.lookupElement(ctx, ref, selector, true)
}

// lookupElement is element; without connected it skips the check that
// the node is still in its document, for a caller whose first script on
// the element checks it in the same call.
func (t *Tab) lookupElement(ctx context.Context, ref, selector string, connected bool) (*element, error) {
	if ref == "" && selector == "" {
		return nil, fmt.Errorf("%w: give a ref (uid) or a selector", driver.ErrInvalidArgument)
	}
	s, err := t.session(ctx)
	driver.Step(ctx, "finding the element")
	if err != nil {
		return nil, err
	}
	if ref == "" {
		el, err := querySelector(ctx, s, selector)
		if err != nil {
			return nil, err
		}
		return el, el.attach(ctx, connected)
	}
	e, err := t.refs.lookup(ref)
	if err != nil {
		return nil, err
	}
	el := &element{Session: e.session, Backend: e.backend, Ref: "e" + strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(ref), "@"), "e")}
	stale := &driver.ElementError{Ref: el.Ref, Err: driver.ErrRefStale}
	select {
	case <-e.session.Done():
		return nil, stale
	default:
	}
	cur, _, err := t.loaders(ctx, e.session)
	if err != nil {
		return nil, err
	}
	if cur[e.frame] != e.loader {
		return nil, stale
	}
	if err := el.attach(ctx, connected); err != nil {
		return nil, err
	}
	return el, nil
}

// attach gets the element's JavaScript handle and, with connected, checks
// that the node is still in its document.
func (e *element) attach(ctx context.Context, connected bool) error {
	stale := e.gone
	r, err := cdpapi.Call(ctx, e.Session, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: e.Backend, ObjectGroup: elementGroup})
	if err != nil {
		if cdp.IsProtocolError(err) {
			return stale()
		}
		return fmt.Errorf("browser: resolving the element: %w", err)
	}
	if r.Object == nil || r.Object.ObjectID == "" {
		return stale()
	}
	e.Object = r.Object.ObjectID
	if !connected {
		return nil
	}
	if err := callJS(ctx, e.Session, jsCall{this: e.Object}, isConnectedJS, &connected); err != nil {
		return fmt.Errorf("browser: checking the element: %w", err)
	}
	if !connected {
		e.Release(ctx)
		return stale()
	}
	return nil
}

// gone is the error of an element no longer in its document.
func (e *element) gone() error {
	if e.Ref != "" {
		return &driver.ElementError{Ref: e.Ref, Err: driver.ErrRefStale}
	}
	return fmt.Errorf("browser: the element left the document")
}

// isConnectedJS reports whether an element is still in its document.
var isConnectedJS = loadScript("is_connected")

// querySelector finds the first element matching selector in the main
// document. The selector travels as a CDP argument, never as script source.
func querySelector(ctx context.Context, s *cdp.Session, selector string) (*element, error) {
	var q dom.QuerySelectorResult
	var err error
	// Another DOM.getDocument on the session (a concurrent read) renumbers
	// the nodes between ours and the query; ask again then.
	for attempt := 0; attempt < 3; attempt++ {
		depth := int64(0)
		doc, derr := cdpapi.Call(ctx, s, dom.GetDocument, dom.GetDocumentParams{Depth: &depth})
		if derr != nil {
			return nil, fmt.Errorf("browser: reading the document: %w", derr)
		}
		q, err = cdpapi.Call(ctx, s, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: selector})
		if cdp.Classify(err) != cdp.KindNodeGone {
			break
		}
	}
	if err != nil {
		// Other errors (a document swapped mid-call) are not the agent's
		// selector's fault.
		if cdp.Classify(err) == cdp.KindBadSelector {
			return nil, &driver.ElementError{Selector: selector, Err: fmt.Errorf("%w: the CSS selector does not parse", driver.ErrInvalidArgument)}
		}
		return nil, fmt.Errorf("browser: querying %q: %w", selector, err)
	}
	if q.NodeID == 0 {
		return nil, &driver.ElementError{Selector: selector, Err: driver.ErrElementNotFound}
	}
	d, err := cdpapi.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{NodeID: q.NodeID})
	if err != nil {
		return nil, fmt.Errorf("browser: describing the element: %w", err)
	}
	return &element{Session: s, Backend: d.Node.BackendNodeID}, nil
}

// refFor returns the snapshot.RefFunc that issues refs for nodes whose Key
// is a refEntry.
func (r *refTable) refFor() snapshot.RefFunc {
	return func(n *snapshot.Node) string {
		e, ok := n.Key.(refEntry)
		if !ok {
			return ""
		}
		return r.ref(e)
	}
}
