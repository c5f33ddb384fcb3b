// Package trace reads Chrome performance traces (the JSON trace-event
// format that Chrome DevTools' Performance panel and Perfetto open) and
// computes what a performance review starts from: LCP with its phases,
// FCP, CLS with the shifting nodes, TBT and the long tasks with their
// scripts, INP, main-thread time by category, render-blocking requests,
// third parties and document latency.
//
// It is cdpkit's own approximation of DevTools' insights, written from the
// trace events Chromium records, not a port of DevTools' engine: numbers
// agree with DevTools' to within its rounding on ordinary pages, and the
// rules each one follows are documented where it is computed.
//
// Analyze reads a trace in one streaming pass: events are decoded one at
// a time and only what the metrics need is kept (per-thread nesting
// stacks, requests, shifts, long tasks), so a trace of hundreds of
// megabytes is analyzed in a few megabytes of memory.
package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrFormat means the input is not a trace in the JSON trace-event format.
var ErrFormat = errors.New("trace: not a JSON trace-event file")

// event is one trace event, as much of it as the analysis reads.
type event struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`  // µs
	Dur  float64         `json:"dur"` // µs, for complete (X) events
	Pid  int64           `json:"pid"`
	Tid  int64           `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// Analyze reads a trace from r, plain or gzip-compressed JSON, either an
// object with a traceEvents array or a bare array of events, and returns
// what it measured. The input is read once, event by event. The traced
// tab is the first main frame the trace names; see [AnalyzeFrame].
func Analyze(r io.Reader) (*Report, error) { return AnalyzeFrame(r, "") }

// AnalyzeFrame is [Analyze] of the tab whose main frame is frame (in
// Chromium, a page target's id): a browser's trace holds every tab's
// renderer, and the first main frame it names may be another tab's. An
// empty frame means the first.
func AnalyzeFrame(r io.Reader, frame string) (*Report, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, err := br.Peek(2); err == nil && bytes.Equal(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	a := newAnalyzer()
	a.mainFrame, a.pinned = frame, frame != ""
	dec := json.NewDecoder(br)
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	switch tok {
	case json.Delim('['):
		if err := a.events(dec); err != nil {
			return nil, err
		}
	case json.Delim('{'):
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrFormat, err)
			}
			if key != "traceEvents" {
				var skip struct{}
				if err := dec.Decode(&skip); err != nil {
					return nil, fmt.Errorf("%w: %s: %v", ErrFormat, key, err)
				}
				continue
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return nil, fmt.Errorf("%w: traceEvents is not an array", ErrFormat)
			}
			if err := a.events(dec); err != nil {
				return nil, err
			}
			found = true
		}
		if !found {
			return nil, fmt.Errorf("%w: no traceEvents", ErrFormat)
		}
	default:
		return nil, fmt.Errorf("%w: starts with %v", ErrFormat, tok)
	}
	return a.report(), nil
}

// events decodes the events of an array whose '[' was read, and its ']'.
func (a *analyzer) events(dec *json.Decoder) error {
	var ev event
	for dec.More() {
		args := ev.Args[:0]
		ev = event{Args: args}
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("%w: event %d: %v", ErrFormat, a.n, err)
		}
		a.n++
		a.add(&ev)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return nil
}
