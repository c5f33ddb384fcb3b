package driver

import (
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// SnapshotOptions choose what Snapshot shows.
type SnapshotOptions struct {
	snapshot.Options
	// Scope limits the snapshot to one element's subtree: a ref or, when
	// it does not look like one, a CSS selector.
	Scope string
	// MaxElements is the node budget of a snapshot without Scope: a page
	// with more elements gets a one-line truncated snapshot that says so.
	// Zero means DefaultSnapshotElements.
	MaxElements int
}
