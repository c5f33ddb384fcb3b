package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// serverGCPercent is the collector's GOGC for the long-lived servers
// (mcp, serve, daemon) unless GOGC is set. The MCP SDK decodes each
// message with a fresh 32 KiB buffer several times over, so a tool call
// makes ~150 KiB of short-lived garbage, and at Go's default of 100 a
// server with a 5 MB live heap collected every ~30 calls. At 200 it
// collects half as often, for ~4 MB more RSS: a list_pages loop measured
// 864 -> 751 us p50 interleaved on a loaded machine (GOGC=400 bought
// little more for 12 MB).
const serverGCPercent = 200

// setServerGC sets serverGCPercent for the commands that run a server,
// and leaves the runtime's default to the others and to an explicit GOGC;
// their heap goes back to the OS when they go quiet (returnHeapWhenQuiet,
// until ctx ends).
func setServerGC(ctx context.Context, command string) {
	switch command {
	case "mcp", "serve", "daemon":
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(serverGCPercent)
		}
		go returnHeapWhenQuiet(ctx)
	}
}

// A server that has gone quiet gives back the heap a burst of work left
// behind. At GOGC 200 the heap grows to three times what was live at the
// last collection, and a collection taken while four navigations each held
// a page's decoded accessibility tree (make soak) saw ~37 MB live: the heap
// then stayed at ~110 MB until enough new garbage came for the next one, and
// the scavenger returns freed pages only slowly. make soak measured 77-124
// MB RSS against a live heap of 7.5 MB. A soft memory limit (GOMEMLIMIT=48MiB)
// cost as much CPU (+23%) and still left 59-63 MB; returning the heap after
// each snapshot (rpc.ReturnHeap with 4 MiB of slack) raced with the garbage
// made after it. Once quiet, one collection and a scavenge cost nothing
// anyone waits for.
const (
	quietTick  = time.Second
	quietAlloc = 1 << 20 // allocated in a tick by a server with nothing to do
	heapSlack  = 4 << 20 // over twice the live heap, held before it is returned
)

// returnHeapWhenQuiet checks every quietTick, until ctx ends, whether the
// process allocated less than quietAlloc since the last check and holds
// more heap than twice what was live at the last collection plus heapSlack;
// if so it returns the heap to the OS (debug.FreeOSMemory).
func returnHeapWhenQuiet(ctx context.Context) {
	t := time.NewTicker(quietTick)
	defer t.Stop()
	s := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	var last uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(s)
		var v [5]uint64
		for i := range s {
			if s[i].Value.Kind() == metrics.KindUint64 {
				v[i] = s[i].Value.Uint64()
			}
		}
		if shouldReturnHeap(v[0]-last, v[1]+v[2]+v[3], v[4]) {
			debug.FreeOSMemory()
		}
		last = v[0]
	}
}

// shouldReturnHeap decides for returnHeapWhenQuiet, given the bytes
// allocated since the last check, the heap held from the OS (objects, free
// and unused, not returned) and the heap live at the last collection.
func shouldReturnHeap(allocated, held, live uint64) bool {
	return allocated < quietAlloc && held > 2*live+heapSlack
}
