package browser

import (
	"fmt"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// DefaultSnapshotElements is the node budget of a whole-page snapshot: a
// document with more elements than this is not read whole. Chromium
// builds and sends the accessibility tree of the whole document in one
// reply, which for 200,000 nodes took longer than any call's deadline
// (issue #25 item 20); a scoped snapshot reads only the scope's subtree.
const DefaultSnapshotElements = 30_000

// smallDoc remembers the main document last counted well under budget
// (half of it), whose snapshot can ask for the accessibility tree without
// first awaiting the count: a document does not grow from that to a size
// whose tree cannot be read between two snapshots.
type smallDoc struct {
	mu     sync.Mutex
	sess   *cdp.Session    // guarded by mu
	loader cdpapi.LoaderID // guarded by mu
}

func (d *smallDoc) is(s *cdp.Session, loader cdpapi.LoaderID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return loader != "" && d.sess == s && d.loader == loader
}

// note records a count n of s's document loader under budget.
func (d *smallDoc) note(s *cdp.Session, loader cdpapi.LoaderID, n, budget int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n >= 0 && (budget == noBudget || n <= budget/2) {
		d.sess, d.loader = s, loader
	} else if d.sess == s && d.loader == loader {
		d.sess, d.loader = nil, ""
	}
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

// treeTooLarge is the snapshot of a page whose accessibility tree is
// longer than cdpkit reads in one reply (Chromium gives each line of text
// a node of its own, so tens of MB of text make hundreds of MB of tree).
func treeTooLarge() snapshot.Result {
	line := "… truncated: the page's accessibility tree is too large to read whole (a node for each line of its text); " +
		"pass scope (a CSS selector or ref) to read part of it; get_text reads the text"
	return snapshot.Result{Text: line + "\n", Truncated: true, Lines: []string{line}}
}
