package firefox

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// maxSnapshotNodes bounds the DOM nodes one snapshot walks.
const maxSnapshotNodes = 50000

var snapshotJS = ownScript("snapshot")

// walked is a node as js/snapshot.js returns it.
type walked struct {
	Role     string    `json:"r"`
	Name     string    `json:"n"`
	Value    string    `json:"v"`
	Key      *int      `json:"k"`
	Window   *int      `json:"w"`
	Level    int       `json:"l"`
	Checked  string    `json:"ck"`
	Password int       `json:"p"`
	Required int       `json:"rq"`
	Readonly int       `json:"ro"`
	Disabled int       `json:"d"`
	Expanded int       `json:"e"`
	Selected int       `json:"s"`
	Focused  int       `json:"f"`
	URL      string    `json:"u"`
	Children []*walked `json:"c"`

	// Focusable and Clickable, as in snapshot.Node.
	Focusable int `json:"fo"`
	Clickable int `json:"cl"`
}

// maxFrameDepth bounds how deep frames nest into one snapshot; deeper
// frames show as empty iframe nodes.
const maxFrameDepth = 4

// Snapshot implements driver.TabDriver: an in-page walk of the DOM
// (js/snapshot.js) formatted like Chromium's accessibility snapshot, with
// refs keyed by BiDi shared ids. Frames, cross-origin ones too, are walked
// in their own browsing contexts, so their elements get refs.
func (t *Tab) Snapshot(ctx context.Context, o driver.SnapshotOptions) (snapshot.Result, error) {
	driver.Step(ctx, "reading the page")
	var scope *sharedRef
	if o.Scope != "" {
		ref, sel := "", o.Scope
		if looksLikeRef(o.Scope) {
			ref, sel = o.Scope, ""
		}
		el, err := t.element(ctx, ref, sel)
		if err != nil {
			return snapshot.Result{}, err
		}
		scope = el
	}
	if err := t.CheckDialog(); err != nil {
		return snapshot.Result{}, err
	}
	budget := maxSnapshotNodes
	root, err := t.walkContext(ctx, t.targetOf(scope, nil), scope, 0, &budget)
	if err != nil {
		return snapshot.Result{}, elementErr(o.Scope, "", t.wrap(err))
	}
	snapshot.NameClickables(root)
	t.mu.Lock()
	defer t.mu.Unlock()
	return snapshot.Format(root, func(n *snapshot.Node) string {
		s, _ := n.Key.(string)
		if s == "" {
			return ""
		}
		return t.refs.ref(s)
	}, o.Options), nil
}

// walkContext walks the document of one browsing context (from scope, a
// node in it, or its body) and, within maxFrameDepth, the frames in it;
// budget is the nodes left to walk, shared by all of them.
func (t *Tab) walkContext(ctx context.Context, context string, scope *sharedRef, depth int, budget *int) (*snapshot.Node, error) {
	args := []any{map[string]any{"type": "null"}, map[string]any{"type": "number", "value": *budget}}
	if scope != nil {
		args[0] = scope
	}
	rv, err := t.callSandboxed(ctx, context, snapshotJS, args, 1)
	if err != nil {
		return nil, err
	}
	var items []remoteValue
	if rv.Type != "array" || json.Unmarshal(rv.Value, &items) != nil || len(items) == 0 {
		return nil, fmt.Errorf("firefox: snapshot: unexpected %s from the page", rv.Type)
	}
	var head string
	if json.Unmarshal(items[0].Value, &head) != nil {
		return nil, fmt.Errorf("firefox: snapshot: no tree from the page")
	}
	var tree struct {
		Root *walked `json:"root"`
		Els  int     `json:"els"`
	}
	if err := json.Unmarshal([]byte(head), &tree); err != nil {
		return nil, fmt.Errorf("firefox: snapshot: decoding the tree: %w", err)
	}
	items = items[1:]
	if tree.Els > len(items) {
		return nil, fmt.Errorf("firefox: snapshot: %d elements announced, %d returned", tree.Els, len(items))
	}
	*budget -= tree.Els
	keys := make([]string, tree.Els)
	for i, it := range items[:tree.Els] {
		if it.SharedID != "" {
			keys[i] = refKey(context, it.SharedID)
		}
	}
	frames := make([]*snapshot.Node, len(items)-tree.Els)
	for i, it := range items[tree.Els:] {
		var w struct {
			Context string `json:"context"`
		}
		if depth >= maxFrameDepth || *budget <= 0 || it.Type != "window" || json.Unmarshal(it.Value, &w) != nil || w.Context == "" {
			continue
		}
		// A frame that is gone or not loaded yet shows as an empty iframe.
		if f, err := t.walkContext(ctx, w.Context, nil, depth+1, budget); err == nil {
			frames[i] = f
		}
	}
	return convert(tree.Root, keys, frames), nil
}

func convert(w *walked, keys []string, frames []*snapshot.Node) *snapshot.Node {
	if w == nil {
		return nil
	}
	n := &snapshot.Node{Role: w.Role, Name: w.Name, Value: w.Value, Level: w.Level, Checked: w.Checked,
		Password: w.Password != 0, Required: w.Required != 0, Readonly: w.Readonly != 0, Disabled: w.Disabled != 0,
		Expanded: w.Expanded != 0, Selected: w.Selected != 0, Focused: w.Focused != 0, URL: w.URL,
		Focusable: w.Focusable != 0, Clickable: w.Clickable != 0}
	if w.Key != nil && *w.Key >= 0 && *w.Key < len(keys) && keys[*w.Key] != "" {
		n.Key = keys[*w.Key]
	}
	for _, c := range w.Children {
		n.Children = append(n.Children, convert(c, keys, frames))
	}
	if w.Window != nil && *w.Window >= 0 && *w.Window < len(frames) && frames[*w.Window] != nil {
		// The frame's document stands in for the iframe's children.
		n.Children = append(n.Children, frames[*w.Window].Children...)
	}
	return n
}

// SnapshotDiff implements driver.TabDriver: the snapshot and its line
// diff against the last one of the same kind.
func (t *Tab) SnapshotDiff(ctx context.Context, o driver.SnapshotOptions) (snapshot.Result, snapshot.Changes, error) {
	res, err := t.Snapshot(ctx, o)
	if err != nil {
		return res, snapshot.Changes{}, err
	}
	kind := fmt.Sprintf("i=%v s=%s d=%d u=%v", o.Interactive, o.Scope, o.Depth, o.URLs)
	t.mu.Lock()
	prev := t.lastLines[kind]
	if prev == nil && o.Interactive && o.Scope == "" {
		prev = snapshot.InteractiveLines(t.lastLines[fmt.Sprintf("i=%v s= d=%d u=%v", false, o.Depth, o.URLs)])
	}
	t.lastLines[kind] = res.Lines
	t.mu.Unlock()
	return res, snapshot.Diff(prev, res.Lines), nil
}

func looksLikeRef(s string) bool {
	if len(s) < 2 || s[0] != 'e' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
