package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// MaxMessage bounds one inbound stdio message (a line), as MaxBody bounds
// an HTTP body.
const MaxMessage = MaxBody

// drainLimit bounds how long stdin closing waits for the answers still
// owed: every call has its own deadline, at most tools.MaxTimeout.
const drainLimit = tools.MaxTimeout + 10*time.Second

// stopGrace bounds how long serving waits, once a signal came or stdin
// closed and the drain ended, for handlers still running: one stuck in a
// system call must not keep the process alive.
const stopGrace = 5 * time.Second

// ErrHandlersRunning means serving stopped with tool calls still running,
// after stopGrace: they are abandoned to the process's exit.
var ErrHandlersRunning = errors.New("mcpserver: stopped with tool calls still running")

// RunStdio serves s on stdin/stdout until the client disconnects (stdin
// closes) or ctx ends. stdout carries only the protocol.
//
// Messages are one per line. A line longer than MaxMessage, or one that is
// not JSON, gets a JSON-RPC error answer (with the request's id when it
// can be read) and the server carries on. When stdin closes, every request
// already read is answered (each within its own deadline) before RunStdio
// returns. When ctx ends, or stdin closed and the answers owed were given
// or waited for, RunStdio returns within stopGrace even if a handler never
// does (then with ErrHandlersRunning).
func RunStdio(ctx context.Context, s *mcp.Server) error {
	return serveStdio(ctx, s, os.Stdin, os.Stdout)
}

func serveStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	return newFramer(in, out, drainLimit).serve(ctx, s)
}

func newFramer(in io.Reader, out io.Writer, drain time.Duration) *framer {
	f := &framer{in: bufio.NewReaderSize(in, 64<<10), out: out, drainLimit: drain, stopGrace: stopGrace,
		pending: map[string]bool{}, done: make(chan struct{}), eof: make(chan struct{})}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// serve runs s over f until the client leaves or ctx ends. The SDK's Run
// waits for every handler to return; serve waits for it at most
// f.stopGrace once ctx ended or stdin reached its end.
func (f *framer) serve(ctx context.Context, s *mcp.Server) error {
	defer f.stop()
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx, &mcp.IOTransport{Reader: f, Writer: f, MaxLineLength: -1}) }()
	select {
	case err := <-ran:
		return err
	case <-ctx.Done():
	case <-f.eof:
	}
	grace := time.NewTimer(f.stopGrace)
	defer grace.Stop()
	select {
	case err := <-ran:
		return err
	case <-grace.C:
		return ErrHandlersRunning
	}
}

// framer sits between stdio and the SDK's stream transport. As a reader it
// hands the SDK whole, valid lines of at most MaxMessage bytes, answers the
// others itself, and holds back EOF until the requests it passed on are
// answered. As a writer it serialises the SDK's and its own answers and
// notes which requests were answered.
type framer struct {
	in  *bufio.Reader
	out io.Writer
	buf []byte // the rest of the line being handed to the SDK

	drainLimit time.Duration // how long EOF waits for the answers owed
	stopGrace  time.Duration // see serve
	eof        chan struct{} // closed when Read gives the SDK EOF
	eofOnce    sync.Once

	wmu sync.Mutex // serialises writes to out

	mu       sync.Mutex
	cond     *sync.Cond      // signalled when pending shrinks or done closes
	pending  map[string]bool // guarded by mu; ids of requests not yet answered
	stopped  bool            // guarded by mu
	drainCut bool            // guarded by mu; the drain ended with answers still owed
	done     chan struct{}   // closed by stop
}

func (f *framer) stop() {
	f.mu.Lock()
	if !f.stopped {
		f.stopped = true
		close(f.done)
	}
	f.cond.Broadcast()
	f.mu.Unlock()
}

// Close is the transport closing; reads already blocked end at EOF.
func (f *framer) Close() error {
	f.stop()
	return nil
}

func (f *framer) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		line, err := f.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				f.drain()
			}
			f.eofOnce.Do(func() { close(f.eof) })
			return 0, err
		}
		f.buf = line
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// readLine returns the next line to pass on, newline included, answering
// (and skipping) lines that are too long or not JSON.
func (f *framer) readLine() ([]byte, error) {
	for {
		var line []byte
		over := false
		for {
			chunk, err := f.in.ReadSlice('\n')
			if !over {
				if len(line)+len(chunk) > MaxMessage+2 { // + CR LF
					over = true
					// Keep the start: the id is usually near it.
					line = append(line, chunk[:min(len(chunk), 4096)]...)
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && (len(line) == 0 || !errors.Is(err, io.EOF)) {
				return nil, err
			}
			break
		}
		if over {
			f.answerError(idPrefix(line), -32600, fmt.Sprintf("message longer than %d bytes; cdpkit refused it and carries on", MaxMessage))
			continue
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		head, code, msg := vetMessage(trimmed)
		if code != 0 {
			if head.Method != "" && len(head.ID) == 0 {
				continue // a notification gets no answer, even an error
			}
			f.answerError(head.ID, code, msg)
			continue
		}
		switch {
		case head.Method == "notifications/cancelled" && len(head.Params.RequestID) > 0:
			// A cancelled request may get no answer.
			f.answered(idKey(head.Params.RequestID))
		case head.Method != "" && len(head.ID) > 0:
			f.mu.Lock()
			f.pending[idKey(head.ID)] = true
			f.mu.Unlock()
		}
		return append(trimmed, '\n'), nil
	}
}

// message is what the framer reads of a message: its id, method and the
// request a cancellation names.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// vetMessage reads line, one trimmed line, and returns a JSON-RPC error
// code and message when the SDK must not see it: its stream reader stops
// the whole connection on any message it cannot decode (a batch in
// protocol 2025-06-18, an empty batch, a value that is not an object, an
// id that is not a string or a number, a missing "jsonrpc"). An id an
// answer may not carry is returned as null, so that the request is answered
// (with id null, as JSON-RPC says) rather than taken for a notification.
func vetMessage(line []byte) (head message, code int, msg string) {
	switch {
	case !json.Valid(line):
		var v any
		return head, -32700, "not JSON (one value per line): " + json.Unmarshal(line, &v).Error()
	case line[0] == '[':
		return head, -32600, "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per line"
	case line[0] != '{':
		return head, -32600, "a JSON-RPC message is an object"
	}
	if err := json.Unmarshal(line, &head); err != nil {
		// The method or the params are of the wrong type; the id may be good.
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(line, &idOnly)
		head = message{ID: idOnly.ID}
		if !validID(head.ID) {
			head.ID = nullID
		}
		return head, -32600, "invalid JSON-RPC message: the method is a string and the params an object"
	}
	if !validID(head.ID) {
		head.ID = nullID
		return head, -32600, "a JSON-RPC id is a string or an integer"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return head, -32600, "invalid JSON-RPC message: " + err.Error()
	}
	return head, 0, ""
}

// nullID answers a request whose id cannot be echoed.
var nullID = json.RawMessage("null")

// validID reports whether raw is absent, null, a string, or an integer
// that the SDK (which reads ids as float64, then int64) keeps exact.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case float64:
		return v == math.Trunc(v) && math.Abs(v) <= 1<<53
	}
	return false
}

// drain waits until every request passed on has been answered, the
// transport closed, or f.drainLimit passed.
func (f *framer) drain() {
	t := time.AfterFunc(f.drainLimit, func() {
		f.mu.Lock()
		f.drainCut = len(f.pending) > 0
		f.mu.Unlock()
		f.stop()
	})
	defer t.Stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.pending) > 0 && !f.stopped {
		f.cond.Wait()
	}
}

// Write takes one message (or several lines) from the SDK.
func (f *framer) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimSpace(p), []byte("\n")) {
		if id := responseID(line); id != nil {
			defer f.answered(idKey(id))
		}
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	return f.out.Write(p)
}

// responseID returns the id of a response (an object with an id and no
// method), else nil. It reads members only until it knows: the SDK writes
// "jsonrpc", "id", then "result" or "error", so a tool's result (a whole
// snapshot, an image) is not parsed again only to find its id.
func responseID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	answer := false // a result or error member was seen
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		switch t {
		case "method":
			return nil
		case "result", "error":
			answer = true
			if id != nil {
				return id
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if t == "id" {
			id = v
			if answer {
				return id
			}
		}
	}
	return id
}

func (f *framer) answered(id string) {
	f.mu.Lock()
	delete(f.pending, id)
	f.cond.Broadcast()
	f.mu.Unlock()
}

// answerError writes a JSON-RPC error response for id (null if unknown).
func (f *framer) answerError(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.out.Write(append(b, '\n'))
}

// idPrefix finds a request id in the start of a message too long to parse:
// the value of its first top-level "id" key, if one is there.
func idPrefix(b []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if k == "id" {
			return v
		}
	}
	return nil
}

// idKey normalises a JSON id as the SDK reads it, so 1, 1.0 and -0 are
// one request (the SDK answers them as 1, 1 and 0), and the string "1"
// another.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch v := v.(type) {
	case float64:
		return "n" + strconv.FormatInt(int64(v), 10)
	case string:
		return "s" + v
	}
	return fmt.Sprint(v)
}
