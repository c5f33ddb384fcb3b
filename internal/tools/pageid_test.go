package tools

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// pageIDDriver is a browser whose open tabs the test sets; only PagesNow
// is used by the numbering.
type pageIDDriver struct {
	driver.Driver
	mu   sync.Mutex
	tabs []string // guarded by mu; ids in first-seen order
}

func (d *pageIDDriver) set(ids ...string) {
	d.mu.Lock()
	d.tabs = ids
	d.mu.Unlock()
}

func (d *pageIDDriver) PagesNow(*driver.Scope) ([]driver.Page, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []driver.Page
	for i, id := range d.tabs {
		out = append(out, driver.Page{ID: id, Index: i})
	}
	return out, nil
}

// TestPageIDNumbering checks chrome-devtools-mcp's numbering of tabs: from
// 1 in first-seen order, unchanged when another tab closes, never given
// again, separate per scope, and the same under concurrent calls.
func TestPageIDNumbering(t *testing.T) {
	t.Parallel()
	d := &pageIDDriver{}
	env := &Env{Browsers: new(driver.Manager)}
	scoped := &Env{Browsers: env.Browsers, Scope: driver.NewScope(nil)}
	t.Cleanup(func() { env.forgetPageIDs(); scoped.forgetPageIDs() })
	steps := []struct {
		open []string
		want map[string]int
	}{
		{[]string{"A"}, map[string]int{"A": 1}},
		{[]string{"A", "B", "C"}, map[string]int{"A": 1, "B": 2, "C": 3}},
		{[]string{"B", "C"}, map[string]int{"B": 2, "C": 3}},                           // A closed: no shift
		{[]string{"B", "C", "D"}, map[string]int{"B": 2, "C": 3, "D": 4}},              // 1 is not given again
		{[]string{"B", "C", "D", "A"}, map[string]int{"B": 2, "C": 3, "D": 4, "A": 5}}, // a gone id seen again is a new tab
	}
	for i, s := range steps {
		d.set(s.open...)
		got, err := env.pageIDs(d)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Errorf("step %d, tabs %v: pageIds %v, want %v", i, s.open, got, s.want)
		}
	}
	// Another scope counts on its own.
	d.set("X")
	if got, _ := scoped.pageIDs(d); got["X"] != 1 {
		t.Errorf("a scope's first tab has pageId %d, want 1", got["X"])
	}
	// Concurrent passes over the same tabs agree on every number.
	d.set("P", "Q", "R")
	var wg sync.WaitGroup
	results := make([]map[string]int, 8)
	for i := range results {
		wg.Go(func() { results[i], _ = env.pageIDs(d) })
	}
	wg.Wait()
	for _, r := range results {
		if fmt.Sprint(r) != fmt.Sprint(results[0]) || len(r) != 3 {
			t.Errorf("concurrent passes disagree: %v and %v", r, results[0])
		}
	}
	if results[0]["P"] != 6 || results[0]["R"] != 8 {
		t.Errorf("P, Q, R numbered %v, want 6, 7, 8", results[0])
	}
}

// TestEveryTabToolTakesPageID checks that pageId can become the target of
// every tool that acts on a tab: each has target in its schema.
func TestEveryTabToolTakesPageID(t *testing.T) {
	t.Parallel()
	for _, tool := range All() {
		if tool.Tab && tool.InputSchema.Properties["target"] == nil {
			t.Errorf("%s acts on a tab but has no target for pageId to become", tool.Name)
		}
	}
}
