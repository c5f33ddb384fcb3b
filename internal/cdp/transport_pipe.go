package cdp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// maxMessage bounds one incoming message. Full-page screenshots and heap
// snapshot chunks are large, so the bound is generous; it exists so that a
// broken peer cannot make cdpkit buffer without limit.
const maxMessage = 256 << 20

// PipeTransport speaks the --remote-debugging-pipe protocol: NUL-terminated
// JSON messages, cdpkit writing to the browser's fd 3 and reading its fd 4.
type PipeTransport struct {
	r   *bufio.Reader
	in  *os.File // read end of the browser's fd 4
	out *os.File // write end of the browser's fd 3

	closeOnce sync.Once
}

// NewPipeTransport returns a transport reading in and writing out. It takes
// ownership of both files.
func NewPipeTransport(in, out *os.File) *PipeTransport {
	return &PipeTransport{r: bufio.NewReaderSize(in, 1<<16), in: in, out: out}
}

// pieces holds the 64 KiB pieces of messages longer than a
// PipeTransport's read buffer while they are read.
var pieces = sync.Pool{New: func() any { return new([]byte) }}

// keptPieces is how many pieces of one message go back to the pool.
const keptPieces = 64

// ReadMessage implements [Transport]. A message longer than the read
// buffer is gathered in pooled pieces and copied once into a slice of its
// size, so that reading it allocates about its size rather than the 4.5
// times of one slice grown by append (by 1.25 at a time once large).
func (t *PipeTransport) ReadMessage() ([]byte, error) {
	chunk, err := t.r.ReadSlice(0)
	if err == nil {
		// The common case: the whole message fit in the buffer.
		return bytes.Clone(chunk[:len(chunk)-1]), nil
	}
	var parts []*[]byte
	defer func() {
		// A few pieces go back to the pool, enough for the next long
		// message; the pieces of a huge one go with it, rather than
		// stay pooled (two collections) at its size.
		for _, p := range parts[:min(len(parts), keptPieces)] {
			pieces.Put(p)
		}
	}()
	n := 0
	for err == bufio.ErrBufferFull {
		// chunk is the reader's buffer, good only until the next read.
		p := pieces.Get().(*[]byte)
		*p = append((*p)[:0], chunk...)
		parts = append(parts, p)
		if n += len(chunk); n > maxMessage {
			return nil, fmt.Errorf("cdp: reading pipe: message exceeds %d bytes", maxMessage)
		}
		chunk, err = t.r.ReadSlice(0)
	}
	if err != nil {
		return nil, fmt.Errorf("cdp: reading pipe: %w", err)
	}
	msg := make([]byte, 0, n+len(chunk)-1)
	for _, p := range parts {
		msg = append(msg, *p...)
	}
	return append(msg, chunk[:len(chunk)-1]...), nil
}

// WriteMessage implements [Transport].
func (t *PipeTransport) WriteMessage(ctx context.Context, msg []byte) error {
	if dl, ok := ctx.Deadline(); ok {
		t.out.SetWriteDeadline(dl)
	} else {
		t.out.SetWriteDeadline(time.Time{})
	}
	// One write call per message keeps the frame whole even if the
	// deadline hits: a partial write breaks the stream and Conn then closes it.
	framed := make([]byte, len(msg)+1)
	copy(framed, msg)
	if _, err := t.out.Write(framed); err != nil {
		return fmt.Errorf("cdp: writing pipe: %w", err)
	}
	return nil
}

// Close implements [Transport].
func (t *PipeTransport) Close() error {
	t.closeOnce.Do(func() {
		t.out.Close()
		t.in.Close()
	})
	return nil
}
