package firefox

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/browser"
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
}

// Snapshot implements browser.TabDriver: an in-page walk of the DOM
// (js/snapshot.js) formatted like Chromium's accessibility snapshot, with
// refs keyed by BiDi shared ids.
func (t *Tab) Snapshot(ctx context.Context, o browser.SnapshotOptions) (snapshot.Result, error) {
	browser.Step(ctx, "reading the page")
	var scope []any
	if o.Scope != "" {
		ref, sel := "", o.Scope
		if looksLikeRef(o.Scope) {
			ref, sel = o.Scope, ""
		}
		el, err := t.element(ctx, ref, sel)
		if err != nil {
			return snapshot.Result{}, err
		}
		scope = append(scope, el)
	} else {
		scope = append(scope, map[string]any{"type": "null"})
	}
	if err := t.CheckDialog(); err != nil {
		return snapshot.Result{}, err
	}
	rv, err := t.callRaw(ctx, snapshotJS, nil, append(scope, map[string]any{"type": "number", "value": maxSnapshotNodes}), 1)
	if err != nil {
		return snapshot.Result{}, elementErr(o.Scope, "", t.wrap(err))
	}
	var items []remoteValue
	if rv.Type != "array" || json.Unmarshal(rv.Value, &items) != nil || len(items) == 0 {
		return snapshot.Result{}, fmt.Errorf("firefox: snapshot: unexpected %s from the page", rv.Type)
	}
	var head string
	if json.Unmarshal(items[0].Value, &head) != nil {
		return snapshot.Result{}, fmt.Errorf("firefox: snapshot: no tree from the page")
	}
	var tree struct {
		Root *walked `json:"root"`
	}
	if err := json.Unmarshal([]byte(head), &tree); err != nil {
		return snapshot.Result{}, fmt.Errorf("firefox: snapshot: decoding the tree: %w", err)
	}
	shared := make([]string, len(items)-1)
	for i, it := range items[1:] {
		shared[i] = it.SharedID
	}
	root := convert(tree.Root, shared)
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

func convert(w *walked, shared []string) *snapshot.Node {
	if w == nil {
		return nil
	}
	n := &snapshot.Node{Role: w.Role, Name: w.Name, Value: w.Value, Level: w.Level, Checked: w.Checked,
		Password: w.Password != 0, Required: w.Required != 0, Readonly: w.Readonly != 0, Disabled: w.Disabled != 0,
		Expanded: w.Expanded != 0, Selected: w.Selected != 0, Focused: w.Focused != 0, URL: w.URL}
	if w.Key != nil && *w.Key >= 0 && *w.Key < len(shared) && shared[*w.Key] != "" {
		n.Key = shared[*w.Key]
	}
	for _, c := range w.Children {
		n.Children = append(n.Children, convert(c, shared))
	}
	return n
}

// SnapshotDiff implements browser.TabDriver: the snapshot and its line
// diff against the last one of the same kind.
func (t *Tab) SnapshotDiff(ctx context.Context, o browser.SnapshotOptions) (snapshot.Result, snapshot.Changes, error) {
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
