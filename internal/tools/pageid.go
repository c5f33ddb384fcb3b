package tools

import (
	"sync"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// chrome-devtools-mcp names a tab by pageId: a number it gives each page
// when it first sees it, counting from 1, and never changes or gives again
// while the server runs. cdpkit's index:N is a position, which shifts when
// a tab before it closes, so cdpkit keeps pageIds of its own the same way,
// one sequence per client (scope) as each client of chrome-devtools-mcp
// has its own server: list_pages, new_page, select_page and close_page
// show them, and a tool that acts on a tab takes pageId instead of target
// (compat turns it into the target "pageId:N", which the door resolves
// here).

// pageIDPrefix starts the target a pageId argument becomes.
const pageIDPrefix = "pageId:"

// tabNumbers are the pageIds of the tabs one scope of one browser
// manager sees.
type tabNumbers struct {
	mu   sync.Mutex
	last int            // guarded by mu; the last number given
	byID map[string]int // guarded by mu; the live tabs' numbers, replaced whole (never changed once handed out)
}

// numbersKey names the tabs one table numbers.
type numbersKey struct {
	m *driver.Manager
	s *driver.Scope // nil: every tab (stdio, the CLI daemon)
}

var (
	numbersMu sync.Mutex
	// numbers holds a table per scope and browser manager; a scope's
	// table goes when the scope ends (forgetPageIDs).
	numbers = map[numbersKey]*tabNumbers{}
)

// pageIDs numbers the tabs env's scope sees in b (env's browser) that
// have no pageId yet, in the order the browser first saw them, forgets
// those of tabs that are gone, and returns the pageIds by tab id. The map
// is never changed afterwards; the caller may keep it.
func (env *Env) pageIDs(b driver.Driver) (map[string]int, error) {
	key := numbersKey{env.Browsers, env.Scope}
	numbersMu.Lock()
	n := numbers[key]
	if n == nil {
		n = &tabNumbers{}
		numbers[key] = n
	}
	numbersMu.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	// Listed under n.mu: a list read earlier must not replace a later one,
	// or a tab dropped from the table would come back with a new number.
	all, err := b.PagesNow(env.Scope)
	if err != nil {
		return nil, err
	}
	live := make(map[string]int, len(all))
	for _, p := range all {
		id, ok := n.byID[p.ID]
		if !ok {
			n.last++
			id = n.last
		}
		live[p.ID] = id
	}
	n.byID = live
	return live, nil
}

// numberedPage is a tab with its pageId.
type numberedPage struct {
	PageID int `json:"pageId"`
	driver.Page
}

// numbered gives pages their pageIds.
func (env *Env) numbered(b driver.Driver, pages []driver.Page) ([]numberedPage, error) {
	ids, err := env.pageIDs(b)
	if err != nil {
		return nil, err
	}
	out := make([]numberedPage, 0, len(pages))
	for _, p := range pages {
		out = append(out, numberedPage{PageID: ids[p.ID], Page: p})
	}
	return out, nil
}

// forgetPageIDs drops the pageIds of env's scope, which has ended.
func (env *Env) forgetPageIDs() {
	numbersMu.Lock()
	delete(numbers, numbersKey{env.Browsers, env.Scope})
	numbersMu.Unlock()
}
