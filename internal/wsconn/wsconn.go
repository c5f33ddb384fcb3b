// Package wsconn is a websocket connection to a browser, as both
// protocols use it: CDP when cdpkit attaches to a browser it did not
// launch, WebDriver BiDi always. It knows neither protocol: it moves whole
// messages.
package wsconn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// Conn is a websocket to a browser, carrying one protocol message a
// websocket message.
//
// coder/websocket closes the whole connection when the context given to a
// Read or Write ends, so per-command deadlines never reach it: reads use a
// context that lives as long as the transport, and writes get their own
// bounded context from Conn's writer.
type Conn struct {
	c      *websocket.Conn
	ctx    context.Context // lives until Close
	cancel context.CancelFunc
}

// Dial connects to a browser's websocket URL (ws:// or wss://). The
// context bounds only the handshake. header is sent with the handshake and
// may be nil. A server that answers the handshake with another HTTP status
// gives a *HandshakeError. No error carries the URL's query or password,
// where pools take their token, nor a header value.
// A message longer than maxMessage bytes fails the read.
func Dial(ctx context.Context, rawURL string, header http.Header, maxMessage int) (*Conn, error) {
	c, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{
		HTTPHeader:      header,
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, dialError(ctx, rawURL, resp, err)
	}
	c.SetReadLimit(int64(maxMessage))
	tctx, cancel := context.WithCancel(context.Background())
	return &Conn{c: c, ctx: tctx, cancel: cancel}, nil
}

// ReadMessage reads the next message; one reader at a time.
func (t *Conn) ReadMessage() ([]byte, error) {
	_, msg, err := t.c.Read(t.ctx)
	if err != nil {
		return nil, fmt.Errorf("cdp: reading websocket: %w", err)
	}
	return msg, nil
}

// WriteMessage writes msg; ctx bounds the write.
func (t *Conn) WriteMessage(ctx context.Context, msg []byte) error {
	if err := t.c.Write(ctx, websocket.MessageText, msg); err != nil {
		return fmt.Errorf("cdp: writing websocket: %w", err)
	}
	return nil
}

// Close closes the connection at once.
func (t *Conn) Close() error {
	t.cancel()
	return t.c.CloseNow()
}

// HandshakeError is a websocket handshake that the server answered with an
// HTTP status other than 101 Switching Protocols: 401 or 403 without the
// credential it wants, 429 or 503 from a pool at capacity.
type HandshakeError struct {
	URL        string // redacted (policy.RedactEndpoint)
	Status     int
	RetryAfter string // the response's Retry-After header, verbatim; "" when absent
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("cdp: %s answered the websocket handshake with %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// dialError describes a failed dial without the credentials that the URL's
// query or user info may hold (the HTTP client quotes the URL in its
// errors). A context's end stays matchable with errors.Is.
func dialError(ctx context.Context, rawURL string, resp *http.Response, err error) error {
	safe := policy.RedactEndpoint(rawURL)
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		return &HandshakeError{URL: safe, Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	}
	msg := err.Error()
	if u, perr := url.Parse(rawURL); perr == nil {
		if u.RawQuery != "" {
			msg = strings.ReplaceAll(msg, u.RawQuery, "<redacted>")
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "<redacted>")
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("cdp: dialing %s: %s: %w", safe, msg, cerr)
	}
	return fmt.Errorf("cdp: dialing %s: %w", safe, errors.New(msg))
}
