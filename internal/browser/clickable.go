package browser

import (
	"context"
	"strconv"
	"strings"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/rpc"
)

// Clickable elements are those a user can click although their role says
// nothing of it: a <span onclick>, a card with a click listener, a div
// styled cursor:pointer, an element with tabindex ≥ 0 or contenteditable.
// They are found with one DOMSnapshot.captureSnapshot per session, whose
// isClickable flag is Chromium's own "responds to mouse clicks" (click,
// mousedown and mouseup listeners added from script included, which no
// page script can see) and which carries each rendered element's computed
// cursor. See docs/decisions/2026-12-03-clickable-refs.md for why this and
// not an in-page check.

// maxClickableInside is how many actionable descendants an element may
// hold and still count as one clickable thing. An element holding more is
// a container that delegates events (a framework's root, a list with one
// listener for its rows), whose descendants have refs of their own.
const maxClickableInside = 1

// nativeActionable are tags that are actionable by themselves (the
// accessibility tree gives them an interactive role) or pass clicks on to
// a control that has its own ref (label), and the document's own boxes.
var nativeActionable = map[string]bool{
	"A": true, "BUTTON": true, "INPUT": true, "SELECT": true, "TEXTAREA": true, "OPTION": true,
	"LABEL": true, "SUMMARY": true, "IFRAME": true, "FRAME": true, "VIDEO": true, "AUDIO": true,
	"HTML": true, "BODY": true, "OPTGROUP": true,
}

// clickableBackends returns the backend node ids of frame's clickable
// elements (in session s), or nil when it cannot tell: the snapshot then
// shows what the accessibility tree alone shows. It runs under ctx.
func clickableBackends(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID) map[cdpapi.BackendNodeID]domMark {
	return clickableByFrame(ctx, s)[frame]
}

// clickableByFrame returns the clickable elements of every document
// session s renders (its frame and same-process iframes), by frame: one
// DOMSnapshot serves them all. It is nil when it cannot tell.
func clickableByFrame(ctx context.Context, s cdpapi.Session) map[cdpapi.FrameID]map[cdpapi.BackendNodeID]domMark {
	out, _ := clickableRead(ctx, s)
	return out
}

// clickableRead is clickableByFrame that also reports whether the session
// renders one document without shadow roots of a page's own (open or
// closed): one a snapshot may be reused for (snapshot_reuse.go).
func clickableRead(ctx context.Context, s cdpapi.Session) (map[cdpapi.FrameID]map[cdpapi.BackendNodeID]domMark, bool) {
	// The snapshot's string table holds every text node's text.
	res, err := cdpapi.Call(rpc.WithStringCap(ctx, pageText), s, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{"cursor"}})
	if err != nil {
		return nil, false
	}
	plain := len(res.Documents) == 1
	out := make(map[cdpapi.FrameID]map[cdpapi.BackendNodeID]domMark, len(res.Documents))
	for _, d := range res.Documents {
		if d != nil && d.Nodes != nil && int(d.FrameID) >= 0 && int(d.FrameID) < len(res.Strings) {
			out[cdpapi.FrameID(res.Strings[d.FrameID])] = findClickable(flatten(d, res.Strings))
			plain = plain && !pageShadow(d.Nodes, res.Strings)
		}
	}
	return out, plain
}

// pageShadow reports whether a document has a shadow root of the page's
// own, whose changes a MutationObserver on the document does not see.
// The browser's own (user-agent) shadow roots of inputs do not count.
func pageShadow(n *domsnapshot.NodeTreeSnapshot, str []string) bool {
	if n.ShadowRootType == nil {
		return false
	}
	for _, v := range n.ShadowRootType.Value {
		if v < 0 || int(v) >= len(str) || str[v] != "user-agent" {
			return true
		}
	}
	return false
}

// domMark is what the DOMSnapshot says of an element.
type domMark uint8

const (
	markClick     domMark = 1 << iota // clickable although its role says nothing of it
	markToast                         // an open popover: its text is a message
	markToastText                     // a node inside an open popover
)

// clickCaptures are one snapshot call's DOMSnapshots, one per session,
// each started once in the background as the session's first frame is
// read (concurrently with its accessibility tree) and shared by its
// frames. The zero value is ready.
type clickCaptures struct {
	mu sync.Mutex
	m  map[*cdp.Session]*clickCapture // guarded by mu
}

// clickCapture is one session's DOMSnapshot, read in the background.
type clickCapture struct {
	done    chan struct{} // closed when byFrame and plain are set
	byFrame map[cdpapi.FrameID]map[cdpapi.BackendNodeID]domMark
	plain   bool // see clickableRead
}

// start begins s's capture, unless begun. The capture runs under ctx.
func (c *clickCaptures) start(ctx context.Context, s *cdp.Session) *clickCapture {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc := c.m[s]; cc != nil {
		return cc
	}
	if c.m == nil {
		c.m = make(map[*cdp.Session]*clickCapture)
	}
	cc := &clickCapture{done: make(chan struct{})}
	c.m[s] = cc
	go func() {
		defer close(cc.done)
		cc.byFrame, cc.plain = clickableRead(ctx, s)
	}()
	return cc
}

// wait waits for every capture begun, so that none outlives its call.
func (c *clickCaptures) wait() {
	c.mu.Lock()
	all := make([]*clickCapture, 0, len(c.m))
	for _, cc := range c.m {
		all = append(all, cc)
	}
	c.mu.Unlock()
	for _, cc := range all {
		<-cc.done
	}
}

// frame waits for the capture and returns frame's clickable elements, or
// nil when it cannot tell (or ctx ends first).
func (cc *clickCapture) frame(ctx context.Context, frame cdpapi.FrameID) map[cdpapi.BackendNodeID]domMark {
	select {
	case <-cc.done:
		return cc.byFrame[frame]
	case <-ctx.Done():
		return nil
	}
}

// flatNode is one DOM node of a DOMSnapshot document, with what
// findClickable needs.
type flatNode struct {
	parent    int // index, -1 for the root
	element   bool
	tag       string
	backend   cdpapi.BackendNodeID
	attrs     map[string]string // only onclick, tabindex, contenteditable, role, href, draggable, for, popover
	listener  bool              // Chromium: responds to mouse clicks
	rendered  bool              // has a layout box
	cursor    string
	hasCursor bool
	id        string // the id attribute
}

// flatten reads document d of a DOMSnapshot with string table str.
func flatten(d *domsnapshot.DocumentSnapshot, str []string) []flatNode {
	s := func(i domsnapshot.StringIndex) string {
		if i < 0 || int(i) >= len(str) {
			return ""
		}
		return str[i]
	}
	n := d.Nodes
	out := make([]flatNode, len(n.NodeName))
	for i := range out {
		f := &out[i]
		f.parent = -1
		if i < len(n.ParentIndex) {
			f.parent = int(n.ParentIndex[i])
		}
		f.tag = strings.ToUpper(s(n.NodeName[i]))
		f.element = i < len(n.NodeType) && n.NodeType[i] == 1
		if i < len(n.BackendNodeID) {
			f.backend = n.BackendNodeID[i]
		}
		if i < len(n.Attributes) {
			a := n.Attributes[i]
			for j := 0; j+1 < len(a); j += 2 {
				switch k := strings.ToLower(s(domsnapshot.StringIndex(a[j]))); k {
				case "id":
					f.id = s(domsnapshot.StringIndex(a[j+1]))
				case "onclick", "tabindex", "contenteditable", "role", "href", "draggable", "for", "popover":
					if f.attrs == nil {
						f.attrs = map[string]string{}
					}
					f.attrs[k] = s(domsnapshot.StringIndex(a[j+1]))
				}
			}
		}
	}
	if n.IsClickable != nil {
		for _, i := range n.IsClickable.Index {
			if int(i) < len(out) {
				out[i].listener = true
			}
		}
	}
	if d.Layout != nil {
		for j, i := range d.Layout.NodeIndex {
			if int(i) >= len(out) {
				continue
			}
			out[i].rendered = true
			if j < len(d.Layout.Styles) && len(d.Layout.Styles[j]) > 0 {
				out[i].cursor, out[i].hasCursor = s(domsnapshot.StringIndex(d.Layout.Styles[j][0])), true
			}
		}
	}
	return out
}

// findClickable applies the rules to a flattened document: a rendered
// element that is not natively actionable and has no interactive role,
// with a click listener or onclick, a cursor:pointer its parent does not
// have, tabindex ≥ 0, or that is the root of a contenteditable region,
// and that holds at most maxClickableInside actionable descendants.
// Descendants that only inherit the pointer (the icon and the text of a
// card) are not clickable themselves.
func findClickable(nodes []flatNode) map[cdpapi.BackendNodeID]domMark {
	candidate := make([]bool, len(nodes))
	actionable := make([]bool, len(nodes))
	for i := range nodes {
		f := &nodes[i]
		if !f.element {
			continue
		}
		native := nativeActionable[f.tag] || interactiveRoleAttr(f.attrs["role"])
		if (native && f.tag != "HTML" && f.tag != "BODY" && f.tag != "LABEL") || f.tag == "LI" || f.tag == "TR" {
			// List items and rows have refs of their own: a list or
			// table listening for them delegates, as for controls.
			actionable[i] = true
		}
		if native || !f.rendered {
			continue
		}
		if clickReason(nodes, i) {
			candidate[i], actionable[i] = true, true
		}
	}
	// A label whose control is not rendered (display:none, a styled
	// checkbox drawn by the label) is what a person clicks.
	var ids map[string]int
	for i := range nodes {
		if !nodes[i].element || nodes[i].tag != "LABEL" || !nodes[i].rendered {
			continue
		}
		if ids == nil && nodes[i].attrs["for"] != "" {
			ids = make(map[string]int)
			for j := range nodes {
				if _, dup := ids[nodes[j].id]; nodes[j].id != "" && !dup {
					ids[nodes[j].id] = j
				}
			}
		}
		if labelsHidden(nodes, i, ids) {
			candidate[i] = true
		}
	}
	// Count each element's actionable descendants.
	inside := make([]int, len(nodes))
	for i := range nodes {
		if !actionable[i] {
			continue
		}
		for p := nodes[i].parent; p >= 0 && p < len(nodes) && p != i; p = nodes[p].parent {
			inside[p]++
		}
	}
	out := make(map[cdpapi.BackendNodeID]domMark)
	for i, c := range candidate {
		if c && inside[i] <= maxClickableInside && nodes[i].backend != 0 {
			out[nodes[i].backend] |= markClick
		}
	}
	// An open popover is in the top layer: a toast, a menu, a tip. Its
	// text is a message like a live region's.
	for i := range nodes {
		if _, ok := nodes[i].attrs["popover"]; !ok || !nodes[i].element || !nodes[i].rendered || nodes[i].backend == 0 {
			continue
		}
		out[nodes[i].backend] |= markToast
		// Its text, which the accessibility tree may hold without the
		// popover's own box (a plain <div> is left out).
		for j := i + 1; j < len(nodes) && within(nodes, j, i); j++ {
			if nodes[j].backend != 0 {
				out[nodes[j].backend] |= markToastText
			}
		}
	}
	return out
}

// labelsHidden reports whether label i holds a form control that has no
// layout box, or names one with its for attribute that has none.
// ids maps element ids to their index.
func labelsHidden(nodes []flatNode, i int, ids map[string]int) bool {
	if id := nodes[i].attrs["for"]; id != "" {
		j, ok := ids[id]
		return ok && formControl[nodes[j].tag] && !nodes[j].rendered
	}
	for j := i + 1; j < len(nodes); j++ {
		if !within(nodes, j, i) {
			break // a document's nodes are in tree order: the subtree ended
		}
		if nodes[j].element && formControl[nodes[j].tag] {
			return !nodes[j].rendered
		}
	}
	return false
}

// within reports whether node j is a descendant of node i.
func within(nodes []flatNode, j, i int) bool {
	for p := nodes[j].parent; p >= 0 && p < len(nodes); p = nodes[p].parent {
		if p == i {
			return true
		}
		if p < i {
			return false
		}
	}
	return false
}

// formControl are the elements a label passes its clicks to.
var formControl = map[string]bool{"INPUT": true, "SELECT": true, "TEXTAREA": true, "BUTTON": true}

// clickReason reports whether element i has a reason to be clicked.
func clickReason(nodes []flatNode, i int) bool {
	f := &nodes[i]
	if f.listener {
		return true
	}
	if _, ok := f.attrs["onclick"]; ok {
		return true
	}
	if t, ok := f.attrs["tabindex"]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(t)); err == nil && n >= 0 {
			return true
		}
	}
	if ce, ok := f.attrs["contenteditable"]; ok && ce != "false" {
		p := f.parent
		if p < 0 || p >= len(nodes) {
			return true
		}
		pce, pok := nodes[p].attrs["contenteditable"]
		return !pok || pce == "false"
	}
	if f.attrs["draggable"] == "true" {
		return true
	}
	if f.hasCursor && pointerCursor[f.cursor] {
		p := f.parent
		return p < 0 || p >= len(nodes) || !nodes[p].hasCursor || nodes[p].cursor != f.cursor
	}
	return false
}

// pointerCursor are the cursors that say "act here": a link's hand and a
// drag handle's.
var pointerCursor = map[string]bool{"pointer": true, "grab": true, "move": true}

// interactiveRoleAttr reports whether an explicit role attribute already
// makes an element interactive in the accessibility tree.
func interactiveRoleAttr(role string) bool {
	switch strings.ToLower(strings.TrimSpace(strings.Fields(role + " x")[0])) {
	case "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option",
		"menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem":
		return true
	}
	return false
}
