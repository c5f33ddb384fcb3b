package cdp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/coder/websocket"
)

// WebSocketTransport speaks CDP over a DevTools websocket, used when cdpkit
// attaches to a browser it did not launch.
//
// coder/websocket closes the whole connection when the context given to a
// Read or Write ends, so per-command deadlines never reach it: reads use a
// context that lives as long as the transport, and writes get their own
// bounded context from Conn's writer.
type WebSocketTransport struct {
	c      *websocket.Conn
	ctx    context.Context // lives until Close
	cancel context.CancelFunc
}

// DialWebSocket connects to a DevTools websocket URL. The context bounds only
// the handshake. header is sent with the handshake and may be nil.
func DialWebSocket(ctx context.Context, url string, header http.Header) (*WebSocketTransport, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPHeader:      header,
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, fmt.Errorf("cdp: dialing %s: %w", url, err)
	}
	c.SetReadLimit(maxMessage)
	tctx, cancel := context.WithCancel(context.Background())
	return &WebSocketTransport{c: c, ctx: tctx, cancel: cancel}, nil
}

// ReadMessage implements [Transport].
func (t *WebSocketTransport) ReadMessage() ([]byte, error) {
	_, msg, err := t.c.Read(t.ctx)
	if err != nil {
		return nil, fmt.Errorf("cdp: reading websocket: %w", err)
	}
	return msg, nil
}

// WriteMessage implements [Transport].
func (t *WebSocketTransport) WriteMessage(ctx context.Context, msg []byte) error {
	if err := t.c.Write(ctx, websocket.MessageText, msg); err != nil {
		return fmt.Errorf("cdp: writing websocket: %w", err)
	}
	return nil
}

// Close implements [Transport].
func (t *WebSocketTransport) Close() error {
	t.cancel()
	return t.c.CloseNow()
}
