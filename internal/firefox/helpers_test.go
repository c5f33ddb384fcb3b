package firefox

import "github.com/cdpkit/cdpkit/internal/snapshot"

func snapshotOptions(interactive bool) snapshot.Options {
	return snapshot.Options{Interactive: interactive}
}
