package driver

import (
	"errors"
	"io"
	"time"
)

// Trace errors. Chromium records one trace at a time, whichever tab asked
// for it, so "one trace per tab" is in practice one per browser.
var (
	// ErrTraceActive means a trace is already being recorded.
	ErrTraceActive = errors.New("browser: a trace is already recording")
	// ErrNoTrace means the tab records no trace and has none to hand over.
	ErrNoTrace = errors.New("browser: no trace is recording in the tab")
)

// TraceActiveError names the tab whose trace is recording; TabID is ""
// when another client of the browser traces.
type TraceActiveError struct{ TabID string }

func (e *TraceActiveError) Error() string {
	if e.TabID == "" {
		return "browser: another client of the browser is recording a trace"
	}
	return "browser: tab " + e.TabID + " is recording a trace"
}

func (e *TraceActiveError) Unwrap() error { return ErrTraceActive }

// TraceOptions say how to record a trace.
type TraceOptions struct {
	// Save writes the trace, the JSON trace-event format read from r as
	// the browser streams it, to wherever the caller keeps traces and
	// returns the path. It is called once, when the trace stops: in
	// StopTrace, at the trace's deadline, or when the browser closes; r
	// fails once the context of that stop is done.
	Save func(r io.Reader) (path string, err error)
	// Limit is how long the trace may run before it stops by itself;
	// zero means DefaultTraceLimit.
	Limit time.Duration
}

// TraceFile is a finished trace.
type TraceFile struct {
	TabID   string
	Path    string    // as Save returned it; "" when saving failed
	Bytes   int64     // of JSON read from the browser
	Started time.Time // when recording began
	Stopped time.Time
	// StoppedBy is "call" (StopTrace), "deadline" (its Limit) or
	// "shutdown" (the browser closed).
	StoppedBy string
	// DataLost says the browser's trace buffer overflowed, so the trace
	// misses events.
	DataLost bool
	// Throttling is what the tab emulated when the trace started.
	CPUThrottling float64            // slowdown factor; 0 means none
	Network       string             // the network preset, or custom; "" means none
	NetworkCustom *NetworkConditions // when Network is custom
	// Err is why a trace stopped by its deadline or by shutdown was not
	// saved.
	Err error `json:"-"`
}
