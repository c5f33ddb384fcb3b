package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// memSave is a TraceOptions.Save that keeps the trace in memory.
type memSave struct {
	mu    sync.Mutex
	data  []byte
	saved chan struct{} // closed once saved
}

func newMemSave() *memSave { return &memSave{saved: make(chan struct{})} }

func (m *memSave) save(r io.Reader) (string, error) {
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		return "", err
	}
	m.mu.Lock()
	m.data = b.Bytes()
	m.mu.Unlock()
	close(m.saved)
	return "mem", nil
}

// wantTraceJSON checks that data is a JSON trace-event file with events.
func wantTraceJSON(t *testing.T, data []byte) {
	t.Helper()
	var tr struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &tr); err != nil || len(tr.TraceEvents) == 0 {
		t.Fatalf("the trace (%d bytes) is not a trace-event file with events: %v", len(data), err)
	}
}

// TestTrace records traces in the shared browser. It does not run in
// parallel: Chromium records one trace at a time.
func TestTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (records traces): skipped by -short")
	}
	t.Run("one at a time, stopped by the call", func(t *testing.T) {
		b, tab := newTab(t)
		tab2, err := b.NewTab(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer closeTab(t, b, tab2)
		if _, err := tab.StopTrace(t.Context()); !errors.Is(err, driver.ErrNoTrace) {
			t.Fatalf("StopTrace before a start = %v, want ErrNoTrace", err)
		}
		m := newMemSave()
		if err := tab.StartTrace(t.Context(), driver.TraceOptions{Save: m.save}); err != nil {
			t.Fatal(err)
		}
		var ta *driver.TraceActiveError
		if err := tab2.StartTrace(t.Context(), driver.TraceOptions{Save: newMemSave().save}); !errors.As(err, &ta) || ta.TabID != tab.ID() {
			t.Fatalf("a second trace = %v, want TraceActiveError naming %s", err, tab.ID())
		}
		if _, err := tab2.StopTrace(t.Context()); !errors.Is(err, driver.ErrNoTrace) {
			t.Errorf("StopTrace of the other tab = %v, want ErrNoTrace", err)
		}
		if _, err := tab.Navigate(t.Context(), "about:blank#traced"); err != nil {
			t.Fatal(err)
		}
		f, err := tab.StopTrace(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if f.StoppedBy != "call" || f.Path != "mem" || f.Bytes != int64(len(m.data)) || f.TabID != tab.ID() {
			t.Errorf("trace = %+v, want stopped by the call, %d bytes", f, len(m.data))
		}
		wantTraceJSON(t, m.data)
		if _, err := tab.StopTrace(t.Context()); !errors.Is(err, driver.ErrNoTrace) {
			t.Errorf("a second StopTrace = %v, want ErrNoTrace", err)
		}
	})

	t.Run("stops at its deadline", func(t *testing.T) {
		_, tab := newTab(t)
		m := newMemSave()
		if err := tab.StartTrace(t.Context(), driver.TraceOptions{Save: m.save, Limit: 500 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-m.saved:
		case <-t.Context().Done():
			t.Fatal("the trace was not saved at its deadline")
		}
		f, err := tab.StopTrace(t.Context())
		if err != nil {
			t.Fatalf("StopTrace after the deadline: %v", err)
		}
		if f.StoppedBy != "deadline" {
			t.Errorf("stopped by %q, want deadline", f.StoppedBy)
		}
		wantTraceJSON(t, m.data)
	})

	t.Run("bad options", func(t *testing.T) {
		_, tab := newTab(t)
		for _, o := range []driver.TraceOptions{{}, {Save: newMemSave().save, Limit: MaxTraceLimit + time.Second}} {
			if err := tab.StartTrace(t.Context(), o); !errors.Is(err, driver.ErrInvalidArgument) {
				t.Errorf("StartTrace(%+v) = %v, want ErrInvalidArgument", o, err)
			}
		}
	})
}

// TestTraceShutdown checks that closing the browser finishes a trace
// still recording. It starts a browser of its own, to close it.
func TestTraceShutdown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	b, err := Start(ctx, &Options{ExecPath: browsertest.ExecPath(t)})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			b.Close()
		}
	}()
	tab, err := b.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := newMemSave()
	if err := tab.StartTrace(ctx, driver.TraceOptions{Save: m.save}); err != nil {
		t.Fatal(err)
	}
	closed = true
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-m.saved:
	default:
		t.Fatal("closing the browser did not save its trace")
	}
	wantTraceJSON(t, m.data)
}
