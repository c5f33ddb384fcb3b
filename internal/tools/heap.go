package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/heapsnap"
	"github.com/cdpkit/cdpkit/internal/policy"
)

type heapArgs struct {
	Target   string `json:"target,omitempty"`
	FilePath string `json:"filePath,omitempty" jsonschema:"file name in the artifact dir (default heap/<time>.heapsnapshot)"`
}

func heapTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "take_heapsnapshot",
			Description: "Snapshot of the page's JavaScript heap, saved as a .heapsnapshot file (opens in DevTools' Memory panel). " +
				"Returns path, bytes, node count and the 10 constructors with the most shallow (self) size, the page's own before the engine's (internal).",
			ReadOnly: true,
		}, takeHeapSnapshot),
	}
}

// heapData is take_heapsnapshot's result.
type heapData struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Nodes int    `json:"nodeCount"`
	Edges int    `json:"edgeCount"`
	// RankedBy says what Top is ordered by: shallow size, since retained
	// sizes need the whole graph in memory.
	RankedBy string           `json:"rankedBy"`
	SelfSize int64            `json:"totalSelfSize"`
	Top      []heapsnap.Class `json:"top"`
}

func (in *heapArgs) check(_ context.Context, env *Env) error {
	if in.FilePath != "" {
		return env.Artifacts.Check(in.FilePath) // before the work whose result it would hold
	}
	return nil
}

func takeHeapSnapshot(ctx context.Context, env *Env, d *door, in heapArgs) (*Result, error) {
	tab := d.tab
	hs, err := role[driver.HeapSnapshotter](env, tab, "heap snapshots")
	if err != nil {
		return nil, err
	}
	name := in.FilePath
	if name == "" {
		id := strings.ToLower(tab.ID())
		name = filepath.Join("heap", time.Now().Format("20060102-150405.000")+"-"+id[:min(6, len(id))]+".heapsnapshot")
	}
	progress(ctx, "taking the heap snapshot")
	stopBeat := heartbeat(ctx, "taking the heap snapshot")
	var last atomic.Int64 // the last tenth of the progress reported
	report := func(done, total int64) {
		if total <= 0 {
			return
		}
		if tenth := done * 10 / total; tenth != last.Load() {
			last.Store(tenth)
			progress(ctx, fmt.Sprintf("taking the heap snapshot: %d%% of objects", tenth*10))
		}
	}
	var size int64
	// Artifacts.Write renames the file into place only when the snapshot
	// is whole: a timeout or a failed write leaves no partial file.
	path, err := env.Artifacts.Write(name, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		n, err := hs.HeapSnapshot(ctx, bw, report)
		size = n
		if err != nil {
			return err
		}
		return bw.Flush()
	})
	stopBeat()
	if err != nil {
		return nil, err
	}
	progress(ctx, "summarizing the heap snapshot")
	sum, err := summarizeHeap(ctx, path)
	if err != nil {
		return nil, err
	}
	return &Result{Data: heapData{Path: path, Bytes: size, Nodes: sum.Nodes, Edges: sum.Edges,
		RankedBy: heapsnap.Ranking, SelfSize: sum.SelfSize, Top: sum.Top}}, nil
}

// summarizeHeap reads the snapshot at path in one streaming pass, within
// ctx.
func summarizeHeap(ctx context.Context, path string) (*heapsnap.Summary, error) {
	f, err := policy.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("tools: reading the heap snapshot: %w", err)
	}
	defer f.Close()
	sum, err := heapsnap.Summarize(policy.ContextReader(ctx, f), 0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tools: summarizing the heap snapshot (saved at %s): %w", path, ctx.Err())
		}
		return nil, fmt.Errorf("tools: summarizing the heap snapshot: %w", err)
	}
	return sum, nil
}
