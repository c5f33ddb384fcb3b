package heapsnap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata/widgets.heapsnapshot was recorded by take_heapsnapshot from a
// page holding 3,000 HeapFixtureWidget objects (internal/tools'
// heapPage), then cut to keep it small: the first 1,500 nodes and every
// HeapFixtureWidget, the edges among them, and the strings they use. The
// expectations below were computed from it with an independent script
// (Python's json module, grouping as DevTools does).
func TestSummarizeRecorded(t *testing.T) {
	f, err := os.Open("testdata/widgets.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := Summarize(f, 0)
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	if sum.Nodes != 4500 || sum.Edges != 10088 || sum.SelfSize != 79104 {
		t.Errorf("nodes %d, edges %d, self size %d; want 4500, 10088, 79104", sum.Nodes, sum.Edges, sum.SelfSize)
	}
	if len(sum.Top) != DefaultTop {
		t.Errorf("%d classes, want %d", len(sum.Top), DefaultTop)
	}
	want := []Class{
		{Name: "HeapFixtureWidget", Count: 3000, SelfSize: 72000},
		{Name: "(array)", Count: 17, SelfSize: 4888, Internal: true},
		{Name: "system / DoubleStringCache", Count: 1, SelfSize: 1544, Internal: true},
		{Name: "system / PropertyCell", Count: 22, SelfSize: 440, Internal: true},
		{Name: "(compiled code)", Count: 384, SelfSize: 88, Internal: true},
	}
	if diff := cmp.Diff(want, sum.Top[:len(want)]); diff != "" {
		t.Errorf("top classes (-want +got):\n%s", diff)
	}
}

// tiny is a hand-written snapshot in V8's layout with one node of each
// kind of group, and the members V8 writes after the edges.
const tiny = `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],
 "node_types":[["hidden","array","string","object","code","closure","native"],"string","number","number","number"],
 "edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property"],"string_or_number","node"]},
 "node_count":7,"edge_count":2,"trace_function_count":0},
"nodes":[0,0,1,10,1, 3,1,3,40,1, 3,1,5,40,0, 3,2,7,100,0, 4,0,9,5,0, 2,3,11,16,0, 6,4,13,1,0],
"edges":[2,1,5, 1,0,15],
"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],
"strings":["(GC roots)","Point","Wid\"get\u00e9","a string","HTMLDivElement"]}`

func TestSummarizeTiny(t *testing.T) {
	sum, err := Summarize(strings.NewReader(tiny), 10)
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	want := &Summary{
		Nodes: 7, Edges: 2, SelfSize: 212,
		Top: []Class{
			// The page's constructors first, the engine's groups after.
			{Name: "Wid\"get\u00e9", Count: 1, SelfSize: 100},
			{Name: "Point", Count: 2, SelfSize: 80},
			{Name: "HTMLDivElement", Count: 1, SelfSize: 1},
			{Name: "(string)", Count: 1, SelfSize: 16, Internal: true},
			{Name: "(system)", Count: 1, SelfSize: 10, Internal: true},
			{Name: "(compiled code)", Count: 1, SelfSize: 5, Internal: true},
		},
		NodeTypes: []string{"hidden", "array", "string", "object", "code", "closure", "native"},
	}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	top2, err := Summarize(strings.NewReader(tiny), 2)
	if err != nil || len(top2.Top) != 2 || top2.Top[1].Name != "Point" {
		t.Errorf("top 2 = %+v, %v; want the two largest", top2, err)
	}
}

func TestSummarizeMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, in string
	}{
		{"empty", ""},
		{"not JSON", "hello"},
		{"truncated", tiny[:len(tiny)/2]},
		{"node count disagrees", strings.Replace(tiny, `"node_count":7`, `"node_count":8`, 1)},
		{"edge count disagrees", strings.Replace(tiny, `"edge_count":2`, `"edge_count":3`, 1)},
		{"a record cut short", strings.Replace(tiny, `6,4,13,1,0]`, `6,4,13,1]`, 1)},
		{"no self_size field", strings.Replace(tiny, `"self_size"`, `"size"`, 1)},
		{"strings first", `{"strings":[],"snapshot":{"meta":{"node_fields":["type","name","self_size"],"node_types":[["object"]]},"node_count":0},"nodes":[]}`},
		{"nodes before the header", `{"nodes":[],"snapshot":{}}`},
		{"a float", strings.Replace(tiny, `100,0`, `100.5,0`, 1)},
		{"no strings", `{"snapshot":{"meta":{"node_fields":["type","name","self_size"],"node_types":[["object"]]},"node_count":0},"nodes":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Summarize(strings.NewReader(tc.in), 0)
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error = %v, want ErrFormat", err)
			}
		})
	}
}

// synthetic returns a snapshot of n objects of 3 classes, generated as it
// is read, never held whole.
func synthetic(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		fmt.Fprintf(w, `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object"]],`+
			`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element"]]},"node_count":%d,"edge_count":0},"nodes":[`, n)
		for i := range n {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "1,%d,%d,%d,0", i%3, i*2+1, 16+8*(i%3))
		}
		w.WriteString(`],"edges":[],"strings":["A","B","C"]}`)
		pw.CloseWithError(w.Flush())
	}()
	return pr
}

// TestSummarizeBoundedMemory reads a 1M-node snapshot (about 20 MB) and
// checks that what Summarize allocates is a small fraction of it: the
// node array is never held.
func TestSummarizeBoundedMemory(t *testing.T) {
	const n = 1_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sum, err := Summarize(synthetic(n), 0)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Nodes != n || len(sum.Top) != 3 || sum.Top[0].Name != "C" || sum.Top[0].Count != n/3 {
		t.Errorf("summary %+v, want %d nodes with C first", sum, n)
	}
	// The generator's own allocations (fmt) count too; Summarize's are a
	// few buffers and one map.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MiB reading the snapshot", alloc>>20)
	}
}
