package cdp

import (
	"context"
	"net/http"

	"github.com/cdpkit/cdpkit/internal/wsconn"
)

// DialWebSocket connects to a DevTools websocket URL (ws:// or wss://), a
// Transport for cdpkit attaching to a browser it did not launch; see
// [wsconn.Dial]. The context bounds only the handshake.
func DialWebSocket(ctx context.Context, rawURL string, header http.Header) (*wsconn.Conn, error) {
	return wsconn.Dial(ctx, rawURL, header, maxMessage)
}
