package browser

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/rpc"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// maxFrameDepth bounds how deep iframes are followed.
const maxFrameDepth = 5

// pageText cuts the strings of the replies that carry a page's text (the
// accessibility tree, the DOM snapshot) before they are decoded: a page
// of one 60 MB text node otherwise cost cdpkit over a GB to decode. A
// snapshot line shows at most 100 runes of a name or value, 1,200 bytes
// as JSON escapes them at worst, so cutting each string to 2 KiB changes
// no line; past 8 MiB of strings in one reply, they are cut to 256 bytes
// (100 runes of most text).
var pageText = rpc.StringCap{Each: 2 << 10, Total: 8 << 20, Rest: 256}

// Snapshot returns the tab's accessibility tree as compact text with refs,
// iframes (same- and cross-process) inline under their iframe element.
// Refs stay the same across snapshots of one document.
//
// A page with more than o.MaxElements elements is not read whole (see
// [DefaultSnapshotElements]): without a scope the result is one line,
// marked truncated, saying how to read part of it.
func (t *Tab) Snapshot(ctx context.Context, o driver.SnapshotOptions) (snapshot.Result, error) {
	budget := noBudget
	if o.Scope == "" {
		budget = o.MaxElements
		if budget <= 0 {
			budget = DefaultSnapshotElements
		}
	}
	root, n, unchecked, err := t.axTree(ctx, o.Scope, budget)
	if cdp.IsReplyTooLarge(err) {
		return treeTooLarge(), nil
	}
	if err != nil {
		return snapshot.Result{}, err
	}
	if budget != noBudget && n > budget {
		return overBudget(n, budget), nil
	}
	res := snapshot.Format(root, t.refs.refFor(), o.Options)
	res.Unchecked = unchecked
	return res, nil
}

// bigTree is the number of accessibility nodes from which a snapshot's
// read is a large transient (Chromium gives each line of text a node):
// its memory is handed back to the OS once the snapshot is made.
const bigTree = 50_000

// SnapshotDiff returns what changed since this tab's previous snapshot of
// the same kind (mode and scope), and remembers this one. The first call
// reports every line as added.
func (t *Tab) SnapshotDiff(ctx context.Context, o driver.SnapshotOptions) (snapshot.Result, snapshot.Changes, error) {
	res, err := t.Snapshot(ctx, o)
	if err != nil {
		return res, snapshot.Changes{}, err
	}
	kind := snapshotKind(o)
	prev := t.refs.previous(kind)
	if prev == nil && o.Interactive && o.Scope == "" {
		// The agent may have looked in default mode: compare with the
		// interactive part of that.
		prev = snapshot.InteractiveLines(t.refs.previous(snapshotKind(driver.SnapshotOptions{})))
	}
	changes := snapshot.Diff(prev, res.Lines)
	t.refs.remember(kind, res.Lines)
	return res, changes, nil
}

func snapshotKind(o driver.SnapshotOptions) string {
	return fmt.Sprintf("i=%v s=%s d=%d u=%v", o.Interactive, o.Scope, o.Depth, o.URLs)
}

// axTree fetches the accessibility tree of the page, or of the scope
// element's subtree, with iframes expanded. Without a scope it also
// returns the main document's element count, and no tree when that is over
// budget; and whether a hidden-text check stopped short.
func (t *Tab) axTree(ctx context.Context, scope string, budget int) (*snapshot.Node, int, bool, error) {
	s, err := t.session(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	ctx = cdp.ReadOnly(ctx) // a snapshot only reads (snapshot_reuse.go)
	ctx = rpc.WithStringCap(ctx, pageText)
	driver.Step(ctx, "reading the accessibility tree")
	var call snapCall
	// Last, once the clickable reads are done too: what the call read
	// (trees, DOM snapshots, a reply too large to keep) is garbage now.
	defer func() {
		if call.nodes >= bigTree {
			// At once, not in the background: the answer leaves with the
			// memory returned. One collection, on a page that took seconds.
			debug.FreeOSMemory()
		} else {
			rpc.ReturnHeap()
		}
	}()
	defer call.clicks.wait()
	if scope == "" {
		root, n, err := t.pageTree(ctx, s, budget, &call)
		return root, n, call.unchecked, err
	}
	var el *element
	if looksLikeRef(scope) {
		el, err = t.element(ctx, scope, "")
	} else {
		el, err = t.element(ctx, "", scope)
	}
	if err != nil {
		return nil, 0, false, err
	}
	lds, main, err := t.loaders(ctx, el.Session)
	if err != nil {
		return nil, 0, false, fmt.Errorf("browser: reading frames: %w", err)
	}
	frame := frameOf(ctx, el.Session, el.Backend, main)
	clicks := call.clicks.start(ctx, el.Session)
	hidden := t.startHidden(ctx, el.Session, frame, lds[frame], noBudget, false)
	// A partial query: only the scope's subtree is computed, which matters
	// on pages with tens of thousands of nodes.
	res, err := cdpapi.Call(ctx, el.Session, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{BackendNodeID: el.Backend})
	if err != nil {
		hidden.wait()
		return nil, 0, false, fmt.Errorf("browser: reading the accessibility tree: %w", err)
	}
	call.nodes += len(res.Nodes)
	b := &treeBuilder{t: t, s: el.Session, loader: lds[frame], frame: frame, lds: lds, call: &call}
	_, b.hidden = hidden.wait()
	call.unchecked = b.hidden.partial
	b.clickable = clicks.frame(ctx, frame)
	root, err := b.build(ctx, res.Nodes, el.Backend, 0)
	return root, 0, call.unchecked, err
}

// snapCall is what one snapshot call shares between its frames.
type snapCall struct {
	clicks clickCaptures
	nodes  int // accessibility nodes read, in all frames
	// unchecked says a frame's hidden-text check stopped short; cut that
	// the tree reached its cutoff and leaves out all that follows.
	unchecked, cut bool
	framed         bool // the tree holds an iframe element
	plain          bool // the main frame's DOMSnapshot found one document without shadow roots (clickableRead)
}

// hiddenRead is a pageFacts read in the background. A nil *hiddenRead
// reads nothing.
type hiddenRead struct {
	done   chan struct{}
	count  int
	hidden hiddenNodes
	token  string        // the watch token, when asked for
	queued chan struct{} // closed once the evaluation is queued (or given up); nil without a token
}

// startHidden begins reading pageFacts of frame under ctx.
// With watch it also reads the watch token (snapshot_reuse.go).
func (t *Tab) startHidden(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID, budget int, watch bool) *hiddenRead {
	h := &hiddenRead{done: make(chan struct{})}
	var queued func()
	if watch {
		h.queued = make(chan struct{})
		var once sync.Once
		queued = func() { once.Do(func() { close(h.queued) }) }
	}
	go func() {
		defer close(h.done)
		if queued != nil {
			defer queued()
		}
		h.count, h.hidden, h.token = t.pageFacts(ctx, s, frame, loader, budget, queued)
	}()
	return h
}

// sent waits until the read's evaluation is queued, so that commands
// sent after it run in the page after it, or until the read ends.
func (h *hiddenRead) sent() {
	if h != nil && h.queued != nil {
		<-h.queued
	}
}

// wait returns the read's element count (-1: unknown) and hidden elements.
func (h *hiddenRead) wait() (int, hiddenNodes) {
	if h == nil {
		return -1, hiddenNodes{}
	}
	<-h.done
	return h.count, h.hidden
}

// pageTree reads the page's main frame (and its iframes) in session s.
// The element count and hidden elements (one evaluation), the
// accessibility tree and the clickable elements (one DOMSnapshot) are
// asked for at once; only when the document is not known to be well
// under budget is the count awaited first, so that a huge page's tree is
// never asked for. The tree of an unchanged document is reused instead
// (snapshot_reuse.go).
func (t *Tab) pageTree(ctx context.Context, s *cdp.Session, budget int, call *snapCall) (*snapshot.Node, int, error) {
	lds, main, err := t.loaders(ctx, s)
	if err != nil {
		return nil, 0, fmt.Errorf("browser: reading frames: %w", err)
	}
	loader := lds[main]
	writes, reusable := t.reusable(s, loader)
	if reusable {
		if root, n, ok := t.reuse.reuse(ctx, t, s, main, loader, writes); ok {
			return root, n, nil
		}
	}
	watch := reusable && t.reuse.watch(s, loader, writes)
	facts := t.startHidden(ctx, s, main, loader, budget, watch)
	if watch {
		facts.sent() // the token is read before the tree (snapshot_reuse.go)
	}
	if !t.small.is(s, loader) {
		if n, _ := facts.wait(); budget != noBudget && n > budget {
			return nil, n, nil
		}
	}
	root, err := t.frameTree(ctx, s, main, 0, call, facts)
	n, _ := facts.wait()
	t.small.note(s, loader, n, budget)
	if err != nil {
		return nil, n, err
	}
	if reusable {
		t.reuse.note(s, loader, writes, facts.token, call.plain && !call.framed && !call.unchecked && n >= 0, root, n)
	}
	return root, n, nil
}

// frameOf returns the frame that owns a node: the main frame unless the
// node lives in a same-process iframe.
func frameOf(ctx context.Context, s cdpapi.Session, backend cdpapi.BackendNodeID, main cdpapi.FrameID) cdpapi.FrameID {
	d, err := cdpapi.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: backend})
	if err != nil || d.Node == nil || d.Node.FrameID == "" {
		return main
	}
	return d.Node.FrameID
}

func looksLikeRef(s string) bool {
	_, err := (&refTable{}).lookupNumber(s)
	return err == nil
}

// frameTree fetches the tree of one frame in session s ("" = its main
// frame). The frame's clickable elements and, for a session's main frame,
// its hidden elements are read while the accessibility tree is; main is
// a read already begun for the frame, or nil.
func (t *Tab) frameTree(ctx context.Context, s *cdp.Session, frame cdpapi.FrameID, depth int, call *snapCall, main *hiddenRead) (*snapshot.Node, error) {
	lds, top, err := t.loaders(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("browser: reading frames: %w", err)
	}
	if frame == "" {
		frame = top
	}
	t.refs.prune(s, lds)
	clicks := call.clicks.start(ctx, s)
	hidden := main
	if hidden == nil {
		// Every frame is checked: a same-process iframe is a document of
		// its own.
		hidden = t.startHidden(ctx, s, frame, lds[frame], noBudget, false)
	}
	res, err := cdpapi.Call(ctx, s, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: frame})
	if cdp.IsReplyTooLarge(err) {
		call.nodes += bigTree // read in full, then dropped: as large a transient
	}
	_, hid := hidden.wait()
	call.unchecked = call.unchecked || hid.partial
	if err != nil {
		return nil, fmt.Errorf("browser: reading the accessibility tree: %w", err)
	}
	call.nodes += len(res.Nodes)
	if len(res.Nodes) == 0 {
		return nil, nil
	}
	b := &treeBuilder{t: t, s: s, loader: lds[frame], frame: frame, lds: lds, call: call, hidden: hid}
	b.clickable = clicks.frame(ctx, frame)
	if main != nil && b.clickable != nil {
		call.plain = clicks.plain
	}
	return b.build(ctx, res.Nodes, 0, depth)
}

// treeBuilder links the flat AX nodes of one frame into snapshot nodes.
type treeBuilder struct {
	t      *Tab
	s      *cdp.Session
	frame  cdpapi.FrameID
	loader cdpapi.LoaderID
	lds    map[cdpapi.FrameID]cdpapi.LoaderID
	call   *snapCall
	hidden hiddenNodes // nodes a user cannot see, left out with their subtrees (hidden.go)
	// clickable are elements a user can click whose role does not say so
	// (clickable.go).
	clickable map[cdpapi.BackendNodeID]domMark
}

// build links nodes; the root is the node of rootBackend, or the first
// node when rootBackend is 0.
func (b *treeBuilder) build(ctx context.Context, nodes []*accessibility.Node, rootBackend cdpapi.BackendNodeID, depth int) (*snapshot.Node, error) {
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	var root *accessibility.Node
	for _, n := range nodes {
		if (rootBackend == 0 && root == nil) || (rootBackend != 0 && n.BackendDOMNodeID == rootBackend && !n.Ignored) {
			root = n
			if rootBackend != 0 {
				break
			}
		}
	}
	if root == nil && rootBackend != 0 {
		for _, n := range nodes {
			if n.BackendDOMNodeID == rootBackend {
				root = n
				break
			}
		}
	}
	if root == nil {
		return nil, nil
	}
	seen := make(map[accessibility.NodeID]bool)
	// live is set while linking the inside of a message region.
	var link func(n *accessibility.Node, live bool) *snapshot.Node
	link = func(n *accessibility.Node, live bool) *snapshot.Node {
		seen[n.NodeID] = true
		out := convert(n)
		if n.BackendDOMNodeID != 0 {
			out.Key = refEntry{session: b.s, frame: b.frame, loader: b.loader, backend: n.BackendDOMNodeID}
			m := b.clickable[n.BackendDOMNodeID]
			if m&markClick != 0 {
				out.Clickable, out.Ignored = true, false
			}
			if m&markToast != 0 {
				out.Live, out.Ignored = true, false
			}
			if m&markToastText != 0 && !live && out.Role == "StaticText" {
				// A popover's text without the popover's node: the
				// text stands for the region.
				text := out
				out = &snapshot.Node{Role: "generic", Live: true, Key: text.Key, Children: []*snapshot.Node{text}}
				text.Key = nil
				return out
			}
		}
		live = live || out.Live || out.Role == "alert" || out.Role == "status" || out.Role == "log"
		for _, id := range n.ChildIDs {
			// A line of text is a node of its own, never shown: its
			// text is its parent's name. Leaving it out keeps a page of
			// long text from costing a node a line.
			c := byID[id]
			if c == nil || seen[id] || inlineTextBox(c) {
				continue
			}
			if b.hidden.cutoff != 0 && c.BackendDOMNodeID == b.hidden.cutoff {
				b.call.cut = true // from here on, nothing was checked
			}
			if b.call.cut {
				break
			}
			if !b.hidden.roots[c.BackendDOMNodeID] {
				out.Children = append(out.Children, link(c, live))
			}
		}
		if out.Role == "Iframe" || out.Role == "IframePresentational" {
			b.call.framed = true
		}
		if (out.Role == "Iframe" || out.Role == "IframePresentational") && n.BackendDOMNodeID != 0 && depth < maxFrameDepth {
			if sub := b.iframe(ctx, n.BackendDOMNodeID, depth); sub != nil {
				out.Children = append(out.Children, sub)
			}
		}
		return out
	}
	top := link(root, false)
	snapshot.NameClickables(top)
	return top, nil
}

// iframe fetches the content of the iframe element backend: from this
// session if the frame is in-process, else from the frame's own session.
// A frame that cannot be read is left empty rather than failing the
// snapshot.
func (b *treeBuilder) iframe(ctx context.Context, backend cdpapi.BackendNodeID, depth int) *snapshot.Node {
	d, err := cdpapi.Call(ctx, b.s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: backend})
	if err != nil || d.Node == nil || d.Node.FrameID == "" {
		return nil
	}
	id := d.Node.FrameID
	if _, inProcess := b.lds[id]; inProcess {
		sub, err := b.t.frameTree(ctx, b.s, id, depth+1, b.call, nil)
		if err != nil {
			return nil
		}
		return sub
	}
	child := b.t.frameSession(ctx, id)
	if child == nil {
		return nil
	}
	sub, err := b.t.frameTree(ctx, child, "", depth+1, b.call, nil)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return sub
}

func inlineTextBox(n *accessibility.Node) bool {
	return n.Role != nil && string(n.Role.Value) == `"InlineTextBox"`
}

// convert copies what the formatter needs from a CDP AX node.
func convert(n *accessibility.Node) *snapshot.Node {
	out := &snapshot.Node{
		Role:    axString(n.Role),
		Name:    axString(n.Name),
		Value:   axString(n.Value),
		Ignored: n.Ignored,
	}
	// Chromium masks a password field's value as bullets; even their count
	// is not the agent's business.
	if out.Value != "" && strings.Trim(out.Value, "•") == "" {
		out.Password = true
	}
	for _, p := range n.Properties {
		if p == nil || p.Value == nil {
			continue
		}
		switch p.Name {
		case "checked":
			out.Checked = axString(p.Value)
		case "disabled":
			out.Disabled = axBool(p.Value)
		case "expanded":
			out.Expanded = axBool(p.Value)
		case "selected":
			out.Selected = axBool(p.Value)
		case "required":
			out.Required = axBool(p.Value)
		case "focused":
			out.Focused = axBool(p.Value)
		case "focusable":
			out.Focusable = axBool(p.Value)
		case "readonly":
			out.Readonly = axBool(p.Value)
		case "level":
			out.Level = int(axNumber(p.Value))
		case "url":
			out.URL = axString(p.Value)
		case "live":
			v := axString(p.Value)
			out.Live = v == "polite" || v == "assertive"
		}
	}
	return out
}

// axString reads an AX value as text: strings as they are, other JSON
// (true, 3) as written.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if jsonv2.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}

func axBool(v *accessibility.Value) bool {
	s := axString(v)
	return s == "true"
}

func axNumber(v *accessibility.Value) float64 {
	var f float64
	if v == nil || jsonv2.Unmarshal(v.Value, &f) != nil {
		return 0
	}
	return f
}
