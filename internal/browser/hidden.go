package browser

import (
	"context"
	"strconv"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/rpc"
)

// Page content is data, and a page can hide text meant for an agent, not
// its user. The accessibility tree already leaves out display:none,
// visibility:hidden and aria-hidden content, and innerText leaves out the
// first two; these helpers find the rest: aria-hidden subtrees (for text),
// boxes of zero size that clip their content, boxes entirely off the page
// (left:-10000px), boxes a transform collapses (scale(0)), boxes a
// clip-path or clip shows nothing of, and text set in a font of size 0.
// They walk the whole document, <head> and what follows <body> included,
// and open shadow roots; each frame is checked on its own. Transparent
// content stays (custom checkboxes and file inputs are often transparent),
// and so does content clipped within a box of a pixel: screen-reader-only
// text labels real controls.
//
// The walk is bounded (hiddenChecks elements, hiddenLimit hidden roots) so
// that a page cannot make it slow. Past either bound it stops and names the
// first element it did not check (the cutoff): what follows it in document
// order is left out as if hidden, and the answer says the check was cut
// short. No number of decoys lets text through.

// hiddenJS defines hiddenRoots(root): {out, cutoff, partial}, the
// top-most nodes under root a user cannot see (elements, and text nodes
// set in a zero font size), whether the walk stopped short and the first
// rendered element it did not check (null when none); and
// visibleText(root): {text, cut}, root's innerText without them (and
// without what was not checked), and whether the walk stopped short.
const hiddenJS = `
const hiddenChecks = 50000, hiddenLimit = 2000;
const hiddenRoots = (root) => {
	// cutoff is the first element not checked, partial whether there is one.
	const out = [], sx = window.scrollX, sy = window.scrollY;
	let checked = 0, cutoff = null;
	const nothing = (v, size) => {
		// A length of a clip-path's inset: all of size or more.
		if (v.endsWith("%")) return parseFloat(v) >= 100;
		return parseFloat(v) >= size;
	};
	const clipped = (cs, r) => {
		if (r.width <= 1 && r.height <= 1) return false; // screen-reader-only
		const c = cs.clipPath;
		let m = /^inset\(([^)]*)\)/.exec(c);
		if (m) {
			const v = m[1].split(" round")[0].trim().split(/\s+/);
			const [t, rt = t, b = t, l = rt] = v;
			const sum = (p, q, size) => (p.endsWith("%") && q.endsWith("%")) ? parseFloat(p) + parseFloat(q) >= 100 :
				nothing(p, size) || nothing(q, size) || (!p.endsWith("%") && !q.endsWith("%") && parseFloat(p) + parseFloat(q) >= size);
			if (sum(t, b, r.height) || sum(l, rt, r.width)) return true;
		}
		if (/^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(c) || /^ellipse\(\s*[^\s)]+\s+0(px|%)?[\s)]/.test(c)) return true;
		if ((cs.position === "absolute" || cs.position === "fixed") && /^rect\(0px,? 0px,? 0px,? 0px\)$/.test(cs.clip)) return true;
		return false;
	};
	const flat = (t) => {
		// A transform that maps the box to a line or a point (scale(0),
		// scaleX(0)): its 2D part has no area.
		const m = /^matrix(3d)?\(([^)]*)\)/.exec(t);
		if (!m) return false;
		const v = m[2].split(",").map(Number);
		const [a, b, c, d] = m[1] ? [v[0], v[1], v[4], v[5]] : v;
		return Math.abs(a * d - b * c) < 1e-9;
	};
	const hidden = (el, cs) => {
		if (el.getAttribute("aria-hidden") === "true") return true;
		if (cs.display === "contents") return false;
		const r = el.getBoundingClientRect();
		if ((r.width === 0 && cs.overflowX !== "visible") || (r.height === 0 && cs.overflowY !== "visible")) return true;
		if (cs.transform !== "none" && flat(cs.transform)) return true; // scale(0) shrinks the content too
		if (cs.clipPath !== "none" || cs.clip !== "auto") {
			if (clipped(cs, r)) return true;
		}
		if (r.width === 0 || r.height === 0) return false;
		const x = cs.position === "fixed" ? 0 : sx, y = cs.position === "fixed" ? 0 : sy;
		return r.right + x <= 0 || r.bottom + y <= 0;
	};
	const visit = (el) => {
		if (cutoff) return;
		if (++checked > hiddenChecks || out.length >= hiddenLimit) { cutoff = el; return; }
		const cs = getComputedStyle(el);
		if (cs.display === "none") return; // neither in the tree nor in innerText
		if (hidden(el, cs)) { out.push(el); return; }
		if (parseFloat(cs.fontSize) === 0) {
			for (const n of el.childNodes) if (n.nodeType === 3 && n.data.trim()) out.push(n);
		}
		if (el.shadowRoot) for (const c of el.shadowRoot.children) visit(c);
		for (const c of el.children) visit(c);
	};
	for (const c of root.children) visit(c);
	const partial = cutoff !== null;
	if (partial) {
		// The first element from the cutoff on that is rendered (and so
		// in the accessibility tree): what follows it is left out.
		const tw = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
		tw.currentNode = cutoff;
		let e = cutoff;
		for (let i = 0; e && e.getClientRects().length === 0 && i < 10000; i++) e = tw.nextNode();
		cutoff = e && e.getClientRects().length > 0 ? e : null;
	}
	return {out, cutoff, partial};
};
const visibleText = (root) => {
	let s = root.innerText, at = 0;
	const {out, cutoff, partial} = hiddenRoots(root);
	if (partial && cutoff) {
		// What was not checked is left out: the text from the first word
		// of the cutoff's text (or the text after it) on, or, if no such
		// word shows, all of it. Nothing rendered follows a null cutoff.
		let i = -1;
		const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		if (cutoff) tw.currentNode = cutoff;
		for (let n = cutoff ? tw.nextNode() : null, tries = 0; n && i < 0 && tries < 1000; n = tw.nextNode(), tries++) {
			const w = n.data.trim().split(/\s+/)[0];
			if (w) i = s.indexOf(w);
		}
		s = i < 0 ? "" : s.slice(0, i);
	}
	for (const h of out) {
		let t;
		if (h.nodeType === 3) {
			t = h.data.trim();
		} else {
			if (h.getClientRects().length === 0) continue; // not rendered: not in innerText
			t = h.innerText.trim();
		}
		if (!t) continue;
		const i = s.indexOf(t, at);
		if (i < 0) continue;
		s = s.slice(0, i) + s.slice(i + t.length);
		at = i;
	}
	return {text: s.replace(/\n{3,}/g, "\n\n").trim(), cut: partial};
};
`

// hiddenWorld names the isolated world the hidden-text filter runs in. A
// page can replace getBoundingClientRect, getComputedStyle, getAttribute
// or innerText in its own world; in an isolated world the DOM's functions
// are the browser's, whatever the page did to its prototypes.
const hiddenWorld = "cdpkit-hidden"

// noBudget is the budget of a document that is not counted.
const noBudget = -1

// pageFacts reads, in one evaluation, how many elements frame's document
// (loader, in session s) has and, unless that is over budget (noBudget:
// never), the backend node ids of the top-most elements a user cannot see
// (see hiddenJS) and, when queued is not nil, the document's watch token
// (see watchJS; "" when none); queued runs as the evaluation is queued
// for writing, perhaps more than once. count is -1 and hidden nil when it
// cannot tell: the snapshot then shows everything, as before. Handles are
// made (and released) only when something is hidden. Every call, cleanup included,
// runs under ctx: a page that is slow or hung cannot keep the caller past
// its deadline.
func (t *Tab) pageFacts(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID, budget int, queued func()) (count int, hidden hiddenNodes, token string) {
	yes := true
	var res runtime.EvaluateResult
	// A count over budget comes back as a number; nothing hidden as the
	// count, or the count, a space and the token; else an array of the
	// hidden roots followed by the count and, when asked for, the token.
	tok := "const k = null;"
	ectx := ctx
	if queued != nil {
		ectx = rpc.WithQueued(ctx, queued)
		tok = "const k = (() => {" + watchJS + "return cdpkitToken();})();"
	}
	expr := "(() => {const n = document.getElementsByTagName('*').length;" +
		"if (" + strconv.Itoa(budget) + " >= 0 && n > " + strconv.Itoa(budget) + ") return n;" +
		hiddenJS + "const r = document.documentElement ? hiddenRoots(document.documentElement) : {out: [], cutoff: null, partial: false};" + tok +
		"const h = r.out; if (h.length === 0 && !r.partial) return k === null ? n : n + ' ' + k;" +
		"if (r.partial) h.push(true, r.cutoff); h.push(n); if (k !== null) h.push(k); return h;})()"
	err := t.inWorld(ctx, s, frame, loader, hiddenWorld, func(world runtime.ExecutionContextID) error {
		var err error
		res, err = cdpapi.Call(ectx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, ContextID: world, ObjectGroup: "cdpkit-hidden", Silent: &yes,
		})
		return err
	})
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return -1, hiddenNodes{}, ""
	}
	if res.Result.ObjectID == "" {
		v := string(res.Result.Value)
		if res.Result.Type == runtime.RemoteObjectTypeString {
			if jsonv2.Unmarshal(res.Result.Value, &v) != nil {
				return -1, hiddenNodes{}, ""
			}
			v, token, _ = strings.Cut(v, " ")
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return -1, hiddenNodes{}, ""
		}
		return n, hiddenNodes{roots: map[cdpapi.BackendNodeID]bool{}}, token
	}
	// Under the caller's deadline: once it has passed, the handles are
	// left to die with the document rather than holding the call.
	defer cdpapi.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "cdpkit-hidden"})
	props, err := cdpapi.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: &yes})
	if err != nil {
		return -1, hiddenNodes{}, ""
	}
	count = -1
	out := hiddenNodes{roots: make(map[cdpapi.BackendNodeID]bool)}
	cutoff := false // the next node is the cutoff
	for _, p := range props.Result {
		if p.Value == nil {
			continue
		}
		if p.Value.Type == runtime.RemoteObjectTypeString {
			if jsonv2.Unmarshal(p.Value.Value, &token) != nil {
				token = ""
			}
			continue
		}
		if p.Value.Type == runtime.RemoteObjectTypeBoolean {
			out.partial, cutoff = true, true
			continue
		}
		if p.Value.Type == runtime.RemoteObjectTypeNumber && p.Name != "length" {
			if n, err := strconv.Atoi(string(p.Value.Value)); err == nil {
				count = n
			}
			continue
		}
		if p.Value.ObjectID == "" || p.Value.Subtype != "node" {
			continue
		}
		d, err := cdpapi.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: p.Value.ObjectID})
		if err != nil || d.Node == nil {
			continue
		}
		if cutoff {
			out.cutoff, cutoff = d.Node.BackendNodeID, false
			continue
		}
		out.roots[d.Node.BackendNodeID] = true
	}
	return count, out, token
}

// hiddenNodes is what pageFacts found hidden in a document.
type hiddenNodes struct {
	roots map[cdpapi.BackendNodeID]bool // the top-most hidden nodes
	// partial says the check stopped short; cutoff is then the first
	// rendered element it did not check (0: none), which with all that
	// follows it is left out.
	partial bool
	cutoff  cdpapi.BackendNodeID
}
