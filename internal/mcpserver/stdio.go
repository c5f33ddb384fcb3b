package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// MaxMessage bounds one inbound stdio message (a line), as MaxBody bounds
// an HTTP body.
const MaxMessage = MaxBody

// drainLimit bounds how long stdin closing waits for the answers still
// owed: every call has its own deadline, at most tools.MaxTimeout.
const drainLimit = tools.MaxTimeout + 10*time.Second

// RunStdio serves s on stdin/stdout until the client disconnects (stdin
// closes) or ctx ends. stdout carries only the protocol.
//
// Messages are one per line. A line longer than MaxMessage, or one that is
// not JSON, gets a JSON-RPC error answer (with the request's id when it
// can be read) and the server carries on. When stdin closes, every request
// already read is answered (each within its own deadline) before RunStdio
// returns.
func RunStdio(ctx context.Context, s *mcp.Server) error {
	return serveStdio(ctx, s, os.Stdin, os.Stdout)
}

func serveStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	f := &framer{in: bufio.NewReaderSize(in, 64<<10), out: out, pending: map[string]bool{}, done: make(chan struct{})}
	f.cond = sync.NewCond(&f.mu)
	defer f.stop()
	return s.Run(ctx, &mcp.IOTransport{Reader: f, Writer: f, MaxLineLength: -1})
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

	wmu sync.Mutex // serialises writes to out

	mu      sync.Mutex
	cond    *sync.Cond      // signalled when pending shrinks or done closes
	pending map[string]bool // guarded by mu; ids of requests not yet answered
	stopped bool            // guarded by mu
	done    chan struct{}   // closed by stop
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
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if err := json.Unmarshal(trimmed, &head); err != nil {
			if trimmed[0] == '[' && json.Valid(trimmed) {
				return append(trimmed, '\n'), nil // a batch: the SDK judges it
			}
			f.answerError(nil, -32700, "not a JSON object: "+err.Error())
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

// drain waits until every request passed on has been answered, the
// transport closed, or drainLimit passed.
func (f *framer) drain() {
	t := time.AfterFunc(drainLimit, f.stop)
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

// idKey normalises a JSON id, so 1 and 1.0 are one request.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
