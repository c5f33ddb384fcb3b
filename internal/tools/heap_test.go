package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// heapPage allocates n objects of the class HeapFixtureWidget and keeps
// them alive.
func heapPage(t *testing.T, n int) string {
	t.Helper()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Heap</title><script>
class HeapFixtureWidget { constructor(i) { this.id = i; this.label = "w"; this.next = null; } }
window.kept = [];
for (let i = 0; i < %d; i++) kept.push(new HeapFixtureWidget(i));
</script><p>allocated</p>`, n)
	}))
	return srv.URL + "/"
}

// TestTakeHeapSnapshot snapshots a page holding 200k objects of one class:
// that class ranks first, and the saved file is a whole snapshot whose
// header agrees with its node array and with the result.
func TestTakeHeapSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (heap snapshots of large pages): skipped by -short")
	}
	url := heapPage(t, 200_000)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, url))
	var stages []string
	res, err := toolNamed(t, "take_heapsnapshot").Call(WithProgress(t.Context(), func(msg string) { stages = append(stages, msg) }),
		h.env, json.RawMessage(`{}`))
	if err != nil {
		t.Fatalf("take_heapsnapshot: %v", err)
	}
	d := res.Data.(heapData)
	t.Logf("take_heapsnapshot: %s, %d bytes, %d nodes, top %+v", d.Path, d.Bytes, d.Nodes, d.Top[:3])
	if len(stages) == 0 || !strings.Contains(stages[0], "heap snapshot") {
		t.Errorf("progress stages = %q, want the snapshot stage", stages)
	}
	if d.RankedBy != "self_size" || len(d.Top) != 10 {
		t.Errorf("rankedBy %q with %d classes, want self_size with 10", d.RankedBy, len(d.Top))
	}
	if top := d.Top[0]; top.Name != "HeapFixtureWidget" || top.Count < 200_000 {
		t.Errorf("top class = %+v, want HeapFixtureWidget with at least 200000 instances", top)
	}
	if rel, err := filepath.Rel(h.env.Artifacts.Dir(), d.Path); err != nil || strings.HasPrefix(rel, "..") || filepath.Ext(d.Path) != ".heapsnapshot" {
		t.Errorf("saved to %s, want a .heapsnapshot in the artifact dir %s", d.Path, h.env.Artifacts.Dir())
	}

	// The file parses as a whole, independently of the streaming reader.
	raw, err := os.ReadFile(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(raw)) != d.Bytes {
		t.Errorf("file has %d bytes, result says %d", len(raw), d.Bytes)
	}
	var file struct {
		Snapshot struct {
			Meta struct {
				NodeFields []string `json:"node_fields"`
				EdgeFields []string `json:"edge_fields"`
			} `json:"meta"`
			NodeCount int `json:"node_count"`
			EdgeCount int `json:"edge_count"`
		} `json:"snapshot"`
		Nodes   []int64  `json:"nodes"`
		Edges   []int64  `json:"edges"`
		Strings []string `json:"strings"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("the snapshot file is not JSON: %v", err)
	}
	meta := file.Snapshot.Meta
	if len(meta.NodeFields) == 0 || len(file.Nodes)%len(meta.NodeFields) != 0 {
		t.Fatalf("%d node ints for node_fields %v", len(file.Nodes), meta.NodeFields)
	}
	if n := len(file.Nodes) / len(meta.NodeFields); n != file.Snapshot.NodeCount || n != d.Nodes {
		t.Errorf("nodes array holds %d nodes, snapshot.node_count %d, result %d", n, file.Snapshot.NodeCount, d.Nodes)
	}
	if e := len(file.Edges) / len(meta.EdgeFields); e != file.Snapshot.EdgeCount || e != d.Edges {
		t.Errorf("edges array holds %d edges, snapshot.edge_count %d, result %d", e, file.Snapshot.EdgeCount, d.Edges)
	}
	if len(file.Strings) == 0 {
		t.Error("no strings")
	}
}

// TestTakeHeapSnapshotCut ends calls before the snapshot is whole — at
// once by timeout_ms, and midway by cancelling when the browser reports
// progress: each fails (TIMEOUT, CANCELLED) and leaves no file, not even a
// temporary one, in the artifact dir.
func TestTakeHeapSnapshotCut(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (heap snapshots of large pages): skipped by -short")
	}
	url := heapPage(t, 50_000)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, url))
	_, err := h.call(t, "take_heapsnapshot", `{"filePath":"heap/cut.heapsnapshot","timeout_ms":1}`)
	wantCode(t, err, Timeout, "take_heapsnapshot")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err = toolNamed(t, "take_heapsnapshot").Call(WithProgress(ctx, func(msg string) {
		if strings.Contains(msg, "%") {
			cancel()
		}
	}), h.env, json.RawMessage(`{"filePath":"heap/cut.heapsnapshot"}`))
	var te *Error
	if !errors.As(err, &te) || te.Code != Cancelled {
		t.Fatalf("cancelled midway: error = %v, want CANCELLED", err)
	}
	var left []string
	filepath.WalkDir(h.env.Artifacts.Dir(), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("files left after cut snapshots: %q", left)
	}

	// The cut snapshot's chunks, still coming, stay out of the next one.
	d := h.mustCall(t, "take_heapsnapshot", `{"timeout_ms":120000}`)
	if top := d["top"].([]any)[0].(map[string]any); top["name"] != "HeapFixtureWidget" {
		t.Errorf("after a cut snapshot, top class = %v, want HeapFixtureWidget", top)
	}
}

// TestHeapSnapshotPageClassesFirst: a page that leaks 200,000 small
// objects of its own class sees that class near the top, not under V8's
// own groups ((object shape), system / …), which come after the page's
// constructors and are marked internal (issue #39).
func TestHeapSnapshotPageClassesFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (a heap snapshot of a 200,000-object page): skipped by -short")
	}
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Leak</title><script>
class LeakyThing {}
window.leaked = [];
for (let i = 0; i < 200000; i++) leaked.push(new LeakyThing());
</script><p>leaking</p>`)
	}))
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+"/"))
	res, err := h.result(t, "take_heapsnapshot", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	top := res.Data.(heapData).Top
	t.Logf("top: %+v", top)
	found := -1
	for i, c := range top {
		if c.Name == "LeakyThing" {
			found = i
		}
	}
	if found < 0 || found > 2 || top[found].Count < 200_000 {
		t.Errorf("LeakyThing at %d of the top, want in the top 3 with 200000 instances", found)
	}
	// The page's own constructors come first, V8's groups after them.
	internal := false
	for _, c := range top {
		if c.Internal {
			internal = true
		} else if internal {
			t.Errorf("%s comes after V8's internal groups", c.Name)
		}
	}
}
