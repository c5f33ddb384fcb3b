package cdp

import "context"

// A Transport moves whole CDP messages between cdpkit and a browser.
//
// # Concurrency
//
// [Conn] calls ReadMessage from exactly one goroutine and WriteMessage from
// exactly one other goroutine, so implementations need not lock either side.
// Close may be called at any time from any goroutine, more than once; it must
// unblock a pending ReadMessage and WriteMessage.
type Transport interface {
	// ReadMessage blocks until the next message arrives and returns it. It
	// returns an error once the transport is closed or broken; after that
	// every call returns an error.
	ReadMessage() ([]byte, error)

	// WriteMessage sends one message. The context bounds only this write.
	// A write that cannot complete in time leaves the transport in an
	// unknown state, so Conn closes it.
	WriteMessage(ctx context.Context, msg []byte) error

	// Close releases the transport.
	Close() error
}
