package browser

import (
	"context"
	"fmt"
	"strconv"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// DefaultSnapshotElements is the node budget of a whole-page snapshot: a
// document with more elements than this is not read whole. Chromium
// builds and sends the accessibility tree of the whole document in one
// reply, which for 200,000 nodes took longer than any call's deadline
// (issue #25 item 20); a scoped snapshot reads only the scope's subtree.
const DefaultSnapshotElements = 30_000

// countWorld names the isolated world elements are counted in, where the
// page's own functions cannot answer for the browser's.
const countWorld = "cdpkit-count"

// elementCount returns how many elements frame's document (loader, in
// session s) has, or -1 when it cannot tell.
func (t *Tab) elementCount(ctx context.Context, s *cdp.Session, frame cdpapi.FrameID, loader cdpapi.LoaderID) int {
	yes := true
	var res runtime.EvaluateResult
	err := t.inWorld(ctx, s, frame, loader, countWorld, func(world runtime.ExecutionContextID) error {
		var err error
		res, err = cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "document.getElementsByTagName('*').length", ContextID: world, ReturnByValue: &yes, Silent: &yes,
		})
		return err
	})
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return -1
	}
	n, err := strconv.Atoi(string(res.Result.Value))
	if err != nil {
		return -1
	}
	return n
}

// checkBudget returns the over-budget snapshot when the tab's main
// document has more elements than budget, and ok false otherwise (or
// when it cannot tell: the snapshot is then attempted).
func (t *Tab) checkBudget(ctx context.Context, budget int) (snapshot.Result, bool) {
	s, err := t.session(ctx)
	if err != nil {
		return snapshot.Result{}, false
	}
	lds, main, err := loaders(ctx, s)
	if err != nil {
		return snapshot.Result{}, false
	}
	if n := t.elementCount(ctx, s, main, lds[main]); n > budget {
		return overBudget(n, budget), true
	}
	return snapshot.Result{}, false
}

// overBudget returns the snapshot of a page over the node budget: one
// line that says so and how to read it instead, marked truncated, so
// that the call (and every action's changes, which diff snapshots)
// returns at once instead of waiting out its deadline.
func overBudget(n, budget int) snapshot.Result {
	line := fmt.Sprintf("… truncated: the page has %d elements, over the snapshot budget of %d; "+
		"pass scope (a CSS selector or ref) to read part of it; get_text reads the whole page", n, budget)
	return snapshot.Result{Text: line + "\n", Truncated: true, Lines: []string{line}}
}
