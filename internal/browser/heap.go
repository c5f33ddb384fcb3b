package browser

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/heapprofiler"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// HeapSnapshot takes a snapshot of the tab's JavaScript heap (after a
// garbage collection, as DevTools does) and writes it to w, in the
// .heapsnapshot format DevTools' Memory panel opens, as the browser sends
// it: chunk by chunk, each written before the next is read, so memory
// stays bounded whatever the heap's size. It returns the bytes written.
//
// progress, if not nil, is called with the snapshot's progress as the
// browser reports it (objects done of total); it must not block. The
// context bounds the whole snapshot: when it ends first, what was written
// to w is incomplete, and the caller must discard it.
//
// w is written to on the connection's reader goroutine, so a slow w holds
// up the browser's other events until it returns: give a file (buffered),
// not a network peer.
func (t *Tab) HeapSnapshot(ctx context.Context, w io.Writer, progress func(done, total int64)) (int64, error) {
	s, err := t.session(ctx)
	if err != nil {
		return 0, err
	}
	// One snapshot at a time per tab, including the tail of one whose
	// call gave up: its chunks keep coming and must not land in the next.
	lock := heapLock(s)
	select {
	case lock <- struct{}{}:
	case <-ctx.Done():
		return 0, fmt.Errorf("browser: waiting for the tab's previous heap snapshot: %w", ctx.Err())
	}
	release := false // whether to free lock on return; else drainHeapSnapshot does
	defer func() {
		if release {
			<-lock
		}
	}()
	driver.Step(ctx, "enabling the heap profiler")
	if _, err := cdpapi.Call(ctx, s, heapprofiler.Enable, cdpapi.Empty{}); err != nil {
		release = true
		return 0, fmt.Errorf("browser: enabling the heap profiler: %w", err)
	}
	var (
		mu      sync.Mutex
		n       int64 // guarded by mu
		werr    error // guarded by mu; the first failed write or undecodable chunk
		stopped bool  // guarded by mu; after the call, chunks of an abandoned snapshot are ignored
	)
	stop := s.Watch(func(ev cdp.Event) {
		mu.Lock()
		defer mu.Unlock()
		if stopped || werr != nil {
			return
		}
		switch ev.Method {
		case heapprofiler.AddHeapSnapshotChunk.Method:
			var c heapprofiler.EventAddHeapSnapshotChunk
			if err := jsonv2.Unmarshal(ev.Params, &c); err != nil {
				werr = fmt.Errorf("browser: decoding a heap snapshot chunk: %w", err)
				return
			}
			m, err := io.WriteString(w, c.Chunk)
			n += int64(m)
			if err != nil {
				werr = err
			}
		case heapprofiler.ReportHeapSnapshotProgress.Method:
			var p heapprofiler.EventReportHeapSnapshotProgress
			if progress != nil && jsonv2.Unmarshal(ev.Params, &p) == nil {
				progress(p.Done, p.Total)
			}
		}
	}, heapprofiler.AddHeapSnapshotChunk.Method, heapprofiler.ReportHeapSnapshotProgress.Method)
	defer func() {
		stop()
		mu.Lock()
		stopped = true
		mu.Unlock()
	}()
	driver.Step(ctx, "taking the heap snapshot")
	on := true
	_, err = cdpapi.Call(ctx, s, heapprofiler.TakeHeapSnapshot, heapprofiler.TakeHeapSnapshotParams{ReportProgress: &on})
	// Watch delivers every event sent before the reply before the call
	// returns, so the file is complete here.
	mu.Lock()
	defer mu.Unlock()
	stopped = true
	if err != nil {
		go drainHeapSnapshot(s, lock)
		return n, fmt.Errorf("browser: taking a heap snapshot: %w", err)
	}
	release = true
	if werr != nil {
		return n, fmt.Errorf("browser: writing the heap snapshot: %w", werr)
	}
	return n, nil
}

// heapDrainTimeout bounds the wait for an abandoned snapshot to finish.
const heapDrainTimeout = 2 * time.Minute

// heapLocks holds a 1-slot semaphore per tab session, for HeapSnapshot.
var heapLocks sync.Map // *cdp.Session → chan struct{}

func heapLock(s *cdp.Session) chan struct{} {
	v, loaded := heapLocks.LoadOrStore(s, make(chan struct{}, 1))
	if !loaded {
		go func() {
			<-s.Done()
			heapLocks.Delete(s)
		}()
	}
	return v.(chan struct{})
}

// drainHeapSnapshot releases lock once the browser has finished a snapshot
// whose call gave up: the browser answers a session's commands in order,
// so the reply to one sent now comes after the last chunk.
func drainHeapSnapshot(s *cdp.Session, lock chan struct{}) {
	defer func() { <-lock }()
	ctx, cancel := context.WithTimeout(context.Background(), heapDrainTimeout)
	defer cancel()
	cdpapi.Call(ctx, s, heapprofiler.Enable, cdpapi.Empty{})
}
