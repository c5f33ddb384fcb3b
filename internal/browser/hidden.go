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
// boxes of zero size that clip their content, and boxes entirely off the
// page (left:-10000px). Transparent or clipped-to-a-pixel content stays:
// custom checkboxes and file inputs are often transparent, and
// screen-reader-only text labels real controls.

// hiddenJS defines hiddenRoots(root): the top-most elements under root a
// user cannot see, and visibleText(root): root's innerText without them.
const hiddenJS = `
const hiddenRoots = (root) => {
	const out = [], sx = window.scrollX, sy = window.scrollY;
	const hidden = (el) => {
		if (el.getAttribute("aria-hidden") === "true") return true;
		const cs = getComputedStyle(el);
		if (cs.display === "contents" || cs.display === "none") return false;
		const r = el.getBoundingClientRect();
		if ((r.width === 0 && cs.overflowX !== "visible") || (r.height === 0 && cs.overflowY !== "visible")) return true;
		if (r.width === 0 || r.height === 0) return false;
		const x = cs.position === "fixed" ? 0 : sx, y = cs.position === "fixed" ? 0 : sy;
		return r.right + x <= 0 || r.bottom + y <= 0;
	};
	const walk = (el) => {
		for (const c of el.children) {
			if (out.length >= 500) return; // bounds the work on a hostile page
			if (hidden(c)) out.push(c); else walk(c);
		}
	};
	walk(root);
	return out;
};
const visibleText = (root) => {
	let s = root.innerText, at = 0;
	for (const h of hiddenRoots(root)) {
		if (h.getClientRects().length === 0) continue; // not rendered: not in innerText
		const t = h.innerText.trim();
		if (!t) continue;
		const i = s.indexOf(t, at);
		if (i < 0) continue;
		s = s.slice(0, i) + s.slice(i + t.length);
		at = i;
	}
	return s.replace(/\n{3,}/g, "\n\n").trim();
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
func (t *Tab) pageFacts(ctx context.Context, s cdpapi.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID, budget int, queued func()) (count int, hidden map[cdpapi.BackendNodeID]bool, token string) {
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
		hiddenJS + "const h = document.body ? hiddenRoots(document.body) : [];" + tok +
		"if (h.length === 0) return k === null ? n : n + ' ' + k; h.push(n); if (k !== null) h.push(k); return h;})()"
	err := t.inWorld(ctx, s, frame, loader, hiddenWorld, func(world runtime.ExecutionContextID) error {
		var err error
		res, err = cdpapi.Call(ectx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, ContextID: world, ObjectGroup: "cdpkit-hidden", Silent: &yes,
		})
		return err
	})
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return -1, nil, ""
	}
	if res.Result.ObjectID == "" {
		v := string(res.Result.Value)
		if res.Result.Type == runtime.RemoteObjectTypeString {
			if jsonv2.Unmarshal(res.Result.Value, &v) != nil {
				return -1, nil, ""
			}
			v, token, _ = strings.Cut(v, " ")
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return -1, nil, ""
		}
		return n, map[cdpapi.BackendNodeID]bool{}, token
	}
	// Under the caller's deadline: once it has passed, the handles are
	// left to die with the document rather than holding the call.
	defer cdpapi.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "cdpkit-hidden"})
	props, err := cdpapi.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: &yes})
	if err != nil {
		return -1, nil, ""
	}
	count = -1
	out := make(map[cdpapi.BackendNodeID]bool)
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
		out[d.Node.BackendNodeID] = true
	}
	return count, out, token
}
