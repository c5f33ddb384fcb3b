package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// frameOffsetJS lists the frames of a document: each one's window (which
// BiDi returns as its browsing context) and where its content box starts
// in the document's viewport.
const frameOffsetJS = `function() {
	return Array.from(document.querySelectorAll('iframe, frame'), f => {
		const r = f.getBoundingClientRect(), cs = getComputedStyle(f);
		return [f.contentWindow, r.left + f.clientLeft + parseFloat(cs.paddingLeft || 0),
			r.top + f.clientTop + parseFloat(cs.paddingTop || 0)];
	});
}`

// errFrameGone means a frame's element could not be found in its parent.
var errFrameGone = errors.New("firefox: the frame is gone from its parent document")

// frameOffset returns where the viewport of frame, a browsing context
// nested in the tab, starts in the tab's viewport: the sum of the frames'
// content-box origins up to the tab. Results report points in the tab's
// viewport, as on Chromium.
func (t *Tab) frameOffset(ctx context.Context, frame string) (x, y float64, err error) {
	for hops := 0; frame != t.id && frame != ""; hops++ {
		t.b.mu.Lock()
		parent, ok := t.b.parents[frame]
		t.b.mu.Unlock()
		if !ok || hops > maxFrameDepth+1 {
			return 0, 0, errFrameGone
		}
		rv, err := t.callRawIn(ctx, parent, frameOffsetJS, nil, 2)
		if err != nil {
			return 0, 0, err
		}
		dx, dy, err := findFrame(rv, frame)
		if err != nil {
			return 0, 0, err
		}
		x, y, frame = x+dx, y+dy, parent
	}
	return x, y, nil
}

// findFrame reads frameOffsetJS's value for the entry of frame.
func findFrame(rv *remoteValue, frame string) (x, y float64, err error) {
	var rows []remoteValue
	if rv.Type != "array" || json.Unmarshal(rv.Value, &rows) != nil {
		return 0, 0, fmt.Errorf("firefox: locating a frame: unexpected %s from the page", rv.Type)
	}
	for _, row := range rows {
		var cells []remoteValue
		if json.Unmarshal(row.Value, &cells) != nil || len(cells) != 3 || cells[0].Type != "window" {
			continue
		}
		var w struct {
			Context string `json:"context"`
		}
		if json.Unmarshal(cells[0].Value, &w) != nil || w.Context != frame {
			continue
		}
		if json.Unmarshal(cells[1].Value, &x) != nil || json.Unmarshal(cells[2].Value, &y) != nil {
			return 0, 0, fmt.Errorf("firefox: locating a frame: bad offsets")
		}
		return x, y, nil
	}
	return 0, 0, errFrameGone
}
