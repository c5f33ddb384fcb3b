package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeTransport is an in-memory transport: the test reads what the Conn
// wrote from sent and feeds the browser's messages with recv.
type fakeTransport struct {
	sent chan []byte
	in   chan []byte
	once sync.Once
	shut chan struct{}
}

func newFake() *fakeTransport {
	return &fakeTransport{sent: make(chan []byte, 16), in: make(chan []byte, 16), shut: make(chan struct{})}
}

func (f *fakeTransport) ReadMessage() ([]byte, error) {
	select {
	case m := <-f.in:
		return m, nil
	case <-f.shut:
		return nil, errors.New("fake: closed")
	}
}

func (f *fakeTransport) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case f.sent <- msg:
		return nil
	case <-f.shut:
		return errors.New("fake: closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeTransport) Close() error {
	f.once.Do(func() { close(f.shut) })
	return nil
}

// next returns the next command the Conn sent.
func (f *fakeTransport) next(t *testing.T) outgoingMsg {
	t.Helper()
	select {
	case raw := <-f.sent:
		var m outgoingMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("undecodable command %s: %v", raw, err)
		}
		return m
	case <-t.Context().Done():
		t.Fatal("no command sent")
		return outgoingMsg{}
	}
}

func (f *fakeTransport) recv(format string, args ...any) { f.in <- fmt.Appendf(nil, format, args...) }

type outgoingMsg struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func TestCallRoutesRepliesByID(t *testing.T) {
	f := newFake()
	c := NewConn(f, nil)
	defer c.Close()

	type res struct{ V string }
	got := make(chan string, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			var r res
			if err := c.Call(t.Context(), "test."+name, nil, &r); err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- name + "=" + r.V
		}()
	}
	m1, m2 := f.next(t), f.next(t)
	if string(m1.Params) != "{}" {
		t.Errorf("params without a value: got %s, want {}", m1.Params)
	}
	// Answer in the opposite order.
	for _, m := range []outgoingMsg{m2, m1} {
		f.recv(`{"type":"success","id":%d,"result":{"V":%q}}`, m.ID, m.Method)
	}
	want := map[string]bool{"a=test.a": true, "b=test.b": true}
	for range 2 {
		if g := <-got; !want[g] {
			t.Errorf("got %q, want one of %v", g, want)
		}
	}
}

func TestCallErrorsAreTyped(t *testing.T) {
	tests := []struct {
		code string
		want error
	}{
		{"no such frame", ErrNoSuchFrame},
		{"no such node", ErrNoSuchNode},
		{"no such alert", ErrNoSuchAlert},
		{"unsupported operation", ErrUnsupported},
		{"invalid argument", nil},
	}
	f := newFake()
	c := NewConn(f, nil)
	defer c.Close()
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- c.Call(t.Context(), "browsingContext.navigate", nil, nil) }()
			m := f.next(t)
			f.recv(`{"type":"error","id":%d,"error":%q,"message":"detail"}`, m.ID, tt.code)
			err := <-done
			var ce *CommandError
			if !errors.As(err, &ce) || ce.Code != tt.code || ce.Method != "browsingContext.navigate" || ce.Message != "detail" {
				t.Fatalf("got %#v, want a CommandError with code %q", err, tt.code)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.want)
			}
		})
	}
}

func TestCallDeadline(t *testing.T) {
	f := newFake()
	c := NewConn(f, nil)
	defer c.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "script.evaluate", nil, nil) }()
	late := f.next(t)
	err := <-done
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a TimeoutError matching ErrTimeout and DeadlineExceeded", err)
	}
	if te.Method != "script.evaluate" {
		t.Errorf("got method %q, want script.evaluate", te.Method)
	}
	// The late reply is dropped; the connection still works.
	f.recv(`{"type":"success","id":%d,"result":{}}`, late.ID)
	go func() { done <- c.Call(t.Context(), "session.status", nil, nil) }()
	m := f.next(t)
	f.recv(`{"type":"success","id":%d,"result":{}}`, m.ID)
	if err := <-done; err != nil {
		t.Fatalf("call after a timeout: %v", err)
	}
}

func TestCallUsesDefaultTimeout(t *testing.T) {
	f := newFake()
	c := NewConn(f, &Options{DefaultTimeout: 10 * time.Millisecond})
	defer c.Close()
	err := c.Call(context.Background(), "session.status", nil, nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout from the default timeout", err)
	}
}

func TestEventsReachHandlers(t *testing.T) {
	f := newFake()
	c := NewConn(f, nil)
	defer c.Close()

	got := make(chan string, 4)
	off := c.On(func(e Event) { got <- e.Method + " " + string(e.Params) }, "log.entryAdded", "browsingContext.load")
	f.recv(`{"type":"event","method":"browsingContext.load","params":{"context":"A"}}`)
	f.recv(`{"type":"event","method":"network.beforeRequestSent","params":{}}`)
	f.recv(`{"type":"event","method":"log.entryAdded","params":{"text":"hi"}}`)
	for _, want := range []string{`browsingContext.load {"context":"A"}`, `log.entryAdded {"text":"hi"}`} {
		if g := <-got; g != want {
			t.Errorf("got %q, want %q", g, want)
		}
	}
	off()
	f.recv(`{"type":"event","method":"log.entryAdded","params":{}}`)
	// A reply after the event proves the reader passed it.
	done := make(chan error, 1)
	go func() { done <- c.Call(t.Context(), "session.status", nil, nil) }()
	m := f.next(t)
	f.recv(`{"type":"success","id":%d,"result":{}}`, m.ID)
	<-done
	select {
	case g := <-got:
		t.Errorf("handler called after off: %q", g)
	default:
	}
}

func TestDisconnectFailsPendingAndLaterCalls(t *testing.T) {
	f := newFake()
	c := NewConn(f, nil)
	done := make(chan error, 1)
	go func() { done <- c.Call(t.Context(), "browsingContext.getTree", nil, nil) }()
	f.next(t)
	f.Close() // the browser went away
	err := <-done
	var de *DisconnectedError
	if !errors.As(err, &de) || !errors.Is(err, ErrDisconnected) || de.Method != "browsingContext.getTree" {
		t.Fatalf("pending call: got %v, want a DisconnectedError", err)
	}
	<-c.Done()
	if err := c.Call(t.Context(), "session.status", nil, nil); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("later call: got %v, want ErrDisconnected", err)
	}
	if c.Err() == nil {
		t.Error("Err() is nil after the transport closed")
	}
}

func TestNewSession(t *testing.T) {
	f := newFake()
	c := NewConn(f, nil)
	defer c.Close()
	done := make(chan error, 1)
	var id string
	go func() {
		var err error
		id, err = c.NewSession(t.Context())
		done <- err
	}()
	m := f.next(t)
	if m.Method != "session.new" {
		t.Fatalf("got %s, want session.new", m.Method)
	}
	f.recv(`{"type":"success","id":%d,"result":{"sessionId":"s1","capabilities":{"browserName":"firefox","browserVersion":"153.0"}}}`, m.ID)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if id != "s1" || c.Version() != "firefox/153.0" {
		t.Errorf("got id %q version %q, want s1 firefox/153.0", id, c.Version())
	}
}
