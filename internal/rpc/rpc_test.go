package rpc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// pipe is an in-memory transport: the test reads what the Core wrote from
// sent and plays the browser through in.
type pipe struct {
	sent, in chan []byte
	once     sync.Once
	shut     chan struct{}
}

func newPipe() *pipe {
	return &pipe{sent: make(chan []byte, 16), in: make(chan []byte, 16), shut: make(chan struct{})}
}

func (p *pipe) ReadMessage() ([]byte, error) {
	select {
	case m := <-p.in:
		return m, nil
	case <-p.shut:
		return nil, errors.New("pipe closed")
	}
}

func (p *pipe) WriteMessage(ctx context.Context, msg []byte) error {
	select {
	case p.sent <- msg:
		return nil
	case <-p.shut:
		return errors.New("pipe closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipe) Close() error {
	p.once.Do(func() { close(p.shut) })
	return nil
}

var (
	errTimeout = errors.New("timeout")
	errGone    = errors.New("gone")
)

// request is a Request whose message is its id, and which records what
// the Core told it.
type request struct {
	refuse   error
	mu       sync.Mutex
	forgot   []int64
	register []int64
}

func (r *request) Encode(id int64) ([]byte, error) { return []byte(strconv.FormatInt(id, 10)), nil }
func (r *request) Register(id int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.register = append(r.register, id)
	return r.refuse
}
func (r *request) Forget(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgot = append(r.forgot, id)
}

// newCore starts a Core whose handler answers every message "n" with the
// result "ok n" through TakeLocked, and which counts its closings.
func newCore(t *testing.T, answer bool) (*Core, *pipe, *int) {
	p := newPipe()
	closings := new(int)
	var c *Core
	c = New(p, Options{
		Name:         "test",
		Timeout:      func(method string, took time.Duration) error { return fmt.Errorf("%s: %w", method, errTimeout) },
		Disconnected: func(method string, cause error) error { return fmt.Errorf("%s: %w: %w", method, errGone, cause) },
		Handle: func(msg []byte) {
			id, _ := strconv.ParseInt(string(msg), 10, 64)
			c.Mu.Lock()
			cl := c.TakeLocked(id)
			c.Mu.Unlock()
			if cl != nil {
				cl.Resolve([]byte("ok "+string(msg)), nil)
			}
		},
		Closing: func() func() { *closings++; return nil },
	})
	c.Start()
	if answer {
		go func() {
			for {
				select {
				case m := <-p.sent:
					p.in <- m
				case <-p.shut:
					return
				}
			}
		}()
	}
	t.Cleanup(func() { c.Close(errors.New("test over")) })
	return c, p, closings
}

func TestCallGetsItsReply(t *testing.T) {
	c, _, _ := newCore(t, true)
	r := &request{}
	for range 3 {
		got, err := c.Call(t.Context(), "m", r)
		if err != nil {
			t.Fatal(err)
		}
		if want := "ok " + strconv.FormatInt(r.register[len(r.register)-1], 10); string(got) != want {
			t.Errorf("Call = %q, want %q", got, want)
		}
	}
	if len(r.forgot) != 0 {
		t.Errorf("Forget called for %v; every call was answered", r.forgot)
	}
}

func TestRegisterRefusesBeforeSending(t *testing.T) {
	c, p, _ := newCore(t, false)
	refused := errors.New("session closed")
	if _, err := c.Call(t.Context(), "m", &request{refuse: refused}); !errors.Is(err, refused) {
		t.Fatalf("Call = %v, want the Register error", err)
	}
	select {
	case m := <-p.sent:
		t.Errorf("a refused call was sent: %s", m)
	default:
	}
}

func TestTimeoutForgetsTheCall(t *testing.T) {
	c, p, _ := newCore(t, false)
	r := &request{}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Call(ctx, "m", r); !errors.Is(err, errTimeout) {
		t.Fatalf("Call = %v, want the protocol's timeout error", err)
	}
	if len(r.forgot) != 1 || r.forgot[0] != r.register[0] {
		t.Errorf("Forget got %v, want the call's id %v", r.forgot, r.register)
	}
	// The late reply finds no call and is dropped.
	p.in <- <-p.sent
	if _, err := c.Call(ctx, "m", r); !errors.Is(err, errTimeout) {
		t.Errorf("a call on a done context = %v, want the timeout error", err)
	}
}

func TestCloseFailsPendingAndLaterCalls(t *testing.T) {
	c, p, closings := newCore(t, false)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "m", &request{})
		errc <- err
	}()
	<-p.sent // the call is pending
	cause := errors.New("browser exited")
	c.Close(cause)
	c.Close(errors.New("again"))
	if err := <-errc; !errors.Is(err, errGone) || !errors.Is(err, cause) {
		t.Errorf("pending call = %v, want the disconnected error with its cause", err)
	}
	if _, err := c.Call(t.Context(), "m", &request{}); !errors.Is(err, cause) {
		t.Errorf("later call = %v, want the disconnected error with its cause", err)
	}
	if *closings != 1 {
		t.Errorf("Closing ran %d times, want once", *closings)
	}
	if !errors.Is(c.Err(), cause) {
		t.Errorf("Err = %v, want %v", c.Err(), cause)
	}
}
