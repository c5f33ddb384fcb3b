package cdp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// pipePair returns a PipeTransport and the browser's ends of its pipes: the
// test writes what the browser would send to toConn and reads what the
// transport wrote from fromConn.
func pipePair(t *testing.T) (tr *PipeTransport, toConn, fromConn *os.File) {
	t.Helper()
	connIn, browserOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	browserIn, connOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	tr = NewPipeTransport(connIn, connOut)
	t.Cleanup(func() {
		tr.Close()
		browserOut.Close()
		browserIn.Close()
	})
	return tr, browserOut, browserIn
}

func TestPipeTransportReadFraming(t *testing.T) {
	big := strings.Repeat("x", 200<<10)  // larger than the 64 KiB read buffer
	full := strings.Repeat("y", 1<<16-1) // with its NUL, exactly one buffer
	over := strings.Repeat("z", 1<<16)   // its NUL starts the next buffer
	tests := []struct {
		name   string
		writes []string // each is one write call
		want   []string
	}{
		{name: "one message", writes: []string{`{"id":1}` + "\x00"}, want: []string{`{"id":1}`}},
		{name: "several in one write", writes: []string{"{\"id\":1}\x00{\"id\":2}\x00{\"id\":3}\x00"}, want: []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}},
		{name: "split across writes", writes: []string{`{"id"`, `:1}`, "\x00"}, want: []string{`{"id":1}`}},
		{name: "larger than the buffer", writes: []string{big + "\x00small\x00"}, want: []string{big, "small"}},
		{name: "large split across writes", writes: []string{big[:1000], big[1000:] + "\x00" + big + "\x00"}, want: []string{big, big}},
		{name: "exactly the buffer", writes: []string{full + "\x00a\x00"}, want: []string{full, "a"}},
		{name: "one past the buffer", writes: []string{over + "\x00a\x00"}, want: []string{over, "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, toConn, _ := pipePair(t)
			// A pipe holds 64 KiB, so the writes must not wait for the reads.
			go func() {
				for _, w := range tt.writes {
					if _, err := toConn.Write([]byte(w)); err != nil {
						return
					}
				}
				toConn.Write([]byte("unterminated")) // then EOF
				toConn.Close()
			}()
			for i, want := range tt.want {
				got, err := tr.ReadMessage()
				if err != nil {
					t.Fatalf("message %d: got error %v, want a message", i, err)
				}
				if string(got) != want {
					t.Errorf("message %d: got %d bytes %.20q…, want %d bytes %.20q…", i, len(got), got, len(want), want)
				}
			}
			if got, err := tr.ReadMessage(); err == nil {
				t.Errorf("after EOF: got message %.20q, want an error", got)
			}
		})
	}
}

// TestPipeTransportReadReturnsCopies checks that a message stays intact
// after later reads reuse the buffer it was read from.
func TestPipeTransportReadReturnsCopies(t *testing.T) {
	tr, toConn, _ := pipePair(t)
	if _, err := toConn.Write([]byte("first\x00second\x00")); err != nil {
		t.Fatal(err)
	}
	first, err := tr.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	if _, err := toConn.Write([]byte("XXXXXXXXXXXX\x00")); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	if string(first) != "first" {
		t.Errorf("got first message %q after later reads, want %q", first, "first")
	}
}

func TestPipeTransportWriteFraming(t *testing.T) {
	tr, _, fromConn := pipePair(t)
	msgs := []string{`{"id":1,"method":"Browser.getVersion"}`, strings.Repeat("w", 200<<10)}
	var want bytes.Buffer
	for _, m := range msgs {
		want.WriteString(m)
		want.WriteByte(0)
	}

	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(fromConn, int64(want.Len())))
		got <- b
	}()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	for _, m := range msgs {
		if err := tr.WriteMessage(ctx, []byte(m)); err != nil {
			t.Fatalf("WriteMessage: got %v, want nil", err)
		}
	}
	select {
	case b := <-got:
		if !bytes.Equal(b, want.Bytes()) {
			t.Errorf("got %d bytes written, want %d bytes: the messages each followed by NUL", len(b), want.Len())
		}
	case <-time.After(waitLimit):
		t.Fatal("written bytes not readable")
	}
}

// TestPipeTransportCloseUnblocksRead checks the Transport contract that
// Close unblocks a pending ReadMessage; Conn.Close relies on it.
func TestPipeTransportCloseUnblocksRead(t *testing.T) {
	tr, _, _ := pipePair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.ReadMessage()
		errc <- err
	}()
	// The read is pending once its goroutine waits on the pipe.
	browsertest.Eventually(t, waitLimit, func() error {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "(*PipeTransport).ReadMessage") && (strings.Contains(g, "[IO wait") || strings.Contains(g, "[syscall")) {
				return nil
			}
		}
		return errors.New("ReadMessage is not blocked on the pipe yet")
	})
	tr.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("got nil error from a read on a closed transport, want an error")
		}
	case <-time.After(waitLimit):
		t.Fatal("Close did not unblock ReadMessage")
	}
	if err := tr.WriteMessage(t.Context(), []byte("{}")); err == nil {
		t.Error("got nil error from a write on a closed transport, want an error")
	}
}

// TestPipeTransportLargeMessageAllocs: a message longer than the read
// buffer costs about its own size in allocations, not the 4.5 times of a
// slice grown by append, and each message keeps its own bytes. The bound
// allows for pooled pieces a GC took (then they cost the size once more)
// and for what other goroutines allocate meanwhile.
func TestPipeTransportLargeMessageAllocs(t *testing.T) {
	const size = 1 << 20
	first, second := strings.Repeat("a", size), strings.Repeat("b", size)
	tr, toConn, _ := pipePair(t)
	go func() {
		toConn.Write([]byte(first + "\x00" + second + "\x00"))
		toConn.Close()
	}()
	got1, err := tr.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got2, err := tr.ReadMessage()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if string(got1) != first || string(got2) != second {
		t.Fatalf("messages changed: %.10q… (%d bytes), %.10q… (%d bytes)", got1, len(got1), got2, len(got2))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > size*5/2 {
		t.Errorf("reading a %d-byte message allocated %d bytes, want at most 2.5 times its size", size, n)
	}
}

// TestPipeTransportDropsOversizedMessage checks that a message over the
// read bound costs its caller, not the connection: a reply is answered
// by an error reply with its id, an event is dropped, and the next
// message reads as usual. (Issue 40 item 2: a page's accessibility tree,
// a node a line of text, outgrew the bound and reset the session.)
func TestPipeTransportDropsOversizedMessage(t *testing.T) {
	defer func(m int) { maxMessage = m }(maxMessage)
	maxMessage = 128 << 10
	tr, toConn, _ := pipePair(t)
	huge := strings.Repeat("x", 300<<10)
	go func() {
		toConn.Write([]byte(`{"id":7,"result":{"s":"` + huge + `"}}` + "\x00"))
		toConn.Write([]byte(`{"method":"E","params":{"s":"` + huge + `"}}` + "\x00"))
		toConn.Write([]byte(`{"id":8,"result":{}}` + "\x00"))
	}()
	for _, want := range []string{
		`{"id":7,"error":{"code":-32099,"message":"` + ErrReplyTooLarge + `"}}`,
		`{"id":8,"result":{}}`,
	} {
		got, err := tr.ReadMessage()
		if err != nil {
			t.Fatalf("ReadMessage: %v, want %s", err, want)
		}
		if string(got) != want {
			t.Errorf("ReadMessage = %.200s, want %s", got, want)
		}
	}
}
