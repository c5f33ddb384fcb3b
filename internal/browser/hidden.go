package browser

import (
	"context"
	"strconv"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/pagejs"
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

// hiddenJS defines the hidden-text filter: see pagejs.HiddenJS.
const hiddenJS = pagejs.HiddenJS

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
