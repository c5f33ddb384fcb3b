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

// ReadMessage implements [Transport].
func (t *PipeTransport) ReadMessage() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := t.r.ReadSlice(0)
		if err == nil {
			if buf == nil {
				// The common case: the whole message fit in the buffer.
				return bytes.Clone(chunk[:len(chunk)-1]), nil
			}
			return append(buf, chunk[:len(chunk)-1]...), nil
		}
		if err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("cdp: reading pipe: %w", err)
		}
		buf = append(buf, chunk...)
		if len(buf) > maxMessage {
			return nil, fmt.Errorf("cdp: reading pipe: message exceeds %d bytes", maxMessage)
		}
	}
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
