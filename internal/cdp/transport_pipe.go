package cdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/rpc"
)

// maxMessage bounds one incoming message. Full-page screenshots and heap
// snapshot chunks are large, so the bound is generous; it exists so that a
// broken peer or a page (whose accessibility tree holds a node for each
// line of its text) cannot make cdpkit buffer without limit.
var maxMessage = 256 << 20

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
//
// A message longer than maxMessage is read to its end and dropped, not
// kept: the connection goes on. When it is a reply (its head names its
// id, as Chromium writes it first), it is answered in its place by an
// error reply with [ErrReplyTooLarge]'s message, so that its caller fails
// rather than waits.
func (t *PipeTransport) ReadMessage() ([]byte, error) {
	for {
		msg, err := t.readMessage()
		if err != errTooLarge {
			return msg, err
		}
		rpc.FreeOSMemory() // what it read is garbage now
		if msg != nil {
			return msg, nil
		}
	}
}

var errTooLarge = errors.New("cdp: message too large")

// ErrReplyTooLarge is the message of the error reply that stands for a
// reply longer than cdpkit reads (see [PipeTransport.ReadMessage]).
const ErrReplyTooLarge = "reply exceeds the 256 MiB cdpkit reads"

// replyTooLargeCode is the code of that error reply.
const replyTooLargeCode = -32099

// IsReplyTooLarge reports whether err is a call's failure because its
// reply was longer than cdpkit reads.
func IsReplyTooLarge(err error) bool {
	var pe *ProtocolError
	return errors.As(err, &pe) && pe.Code == replyTooLargeCode
}

func (t *PipeTransport) readMessage() ([]byte, error) {
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
	id, hasID := leadingID(chunk)
	for err == bufio.ErrBufferFull {
		if n += len(chunk); n > maxMessage {
			// Read on to the message's end, keeping nothing.
			for err == bufio.ErrBufferFull {
				_, err = t.r.ReadSlice(0)
			}
			if err != nil {
				return nil, fmt.Errorf("cdp: reading pipe: %w", err)
			}
			if !hasID {
				return nil, errTooLarge
			}
			return fmt.Appendf(nil, `{"id":%d,"error":{"code":%d,"message":%q}}`, id, replyTooLargeCode, ErrReplyTooLarge), errTooLarge
		}
		// chunk is the reader's buffer, good only until the next read.
		p := pieces.Get().(*[]byte)
		*p = append((*p)[:0], chunk...)
		parts = append(parts, p)
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

// leadingID returns the id a message starts with ({"id":12,…), as
// Chromium writes its replies.
func leadingID(head []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(head, []byte(`{"id":`))
	if !ok {
		return 0, false
	}
	end := 0
	for end < len(rest) && end < 19 && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end >= len(rest) || rest[end] != ',' {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return id, err == nil
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
