package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// whereResult is a tool result that says where the tab is: the location
// it read as the tool's work ended.
type whereResult interface {
	where() (driver.Location, bool)
}

func (r navigateResult) where() (driver.Location, bool) {
	if r.NavResult == nil {
		return driver.Location{}, false
	}
	return driver.Location{URL: r.URL, Title: r.Title}, true
}

// toolLocation notes, for the changes of a tool that says where the tab
// is, the location its result gives: read a moment ago, after the
// navigation's last event, so reading the history again would only cost
// a round trip on the call's critical path. A document that replaces it
// meanwhile is caught as for any action (see before.snapshotOf).
func (o *before) toolLocation(data any) {
	if w, ok := data.(whereResult); ok {
		if loc, ok := w.where(); ok {
			o.now = &loc
		}
	}
}

// location returns where the tab is now: the tool's own reading if it
// gave one, else the tab's history.
func (o *before) location(ctx context.Context) (driver.Location, error) {
	if o.now != nil {
		return *o.now, nil
	}
	return o.tab.Location(ctx)
}

// beforeLocation returns where the tab is before a tool acts. With
// urlOnly it is the URL the tab last read, when no navigation has
// committed since (no round trip), and no title.
func beforeLocation(ctx context.Context, tab driver.TabDriver, urlOnly bool) (driver.Location, error) {
	if urlOnly {
		if lc, ok := tab.(driver.LocationCache); !ok {
		} else if url, ok := lc.LastURL(); ok {
			return driver.Location{URL: url}, nil
		}
	}
	return tab.Location(ctx)
}
