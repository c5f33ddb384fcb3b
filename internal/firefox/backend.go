package firefox

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Backend starts Firefox lazily, on the first call that needs it, and a
// new one in place of one that died. It implements driver.Backend, so a
// driver.Manager serves the tools from it.
type Backend struct {
	o Options

	lock chan struct{} // a 1-slot semaphore guarding the fields below, so waiting honors ctx
	b    *Browser
	done bool
}

// NewBackend returns a Backend that launches (or attaches to) Firefox as o
// says. Nil means defaults.
func NewBackend(o *Options) *Backend {
	be := &Backend{lock: make(chan struct{}, 1)}
	if o != nil {
		be.o = *o
	}
	return be
}

// Name implements driver.Backend.
func (be *Backend) Name() string { return "firefox" }

// Driver implements driver.Backend.
func (be *Backend) Driver(ctx context.Context) (driver.Driver, error) {
	b, err := be.Browser(ctx)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Browser returns the running Firefox, starting one if there is none or
// the last one died. ctx bounds the wait and the start.
func (be *Backend) Browser(ctx context.Context) (*Browser, error) {
	select {
	case be.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-be.lock }()
	if be.done {
		return nil, driver.ErrClosed
	}
	if be.b != nil {
		select {
		case <-be.b.Done():
			be.b.Close() // reap the dead one's processes and profile
			be.b = nil
		default:
			return be.b, nil
		}
	}
	b, err := Launch(ctx, &be.o)
	if err != nil {
		return nil, err
	}
	be.b = b
	return b, nil
}

// Current implements driver.Backend: the running Firefox, or nil; it
// starts none.
func (be *Backend) Current() driver.Driver {
	be.lock <- struct{}{}
	defer func() { <-be.lock }()
	if be.b == nil {
		return nil
	}
	select {
	case <-be.b.Done():
		return nil
	default:
		return be.b
	}
}

// Stop implements driver.Backend: it stops Firefox (removing its
// profile), or ends the session with an attached one; the next call starts
// or attaches again.
func (be *Backend) Stop() error {
	be.lock <- struct{}{}
	defer func() { <-be.lock }()
	if be.b == nil {
		return nil
	}
	err := be.b.Close()
	be.b = nil
	return err
}

// Close implements driver.Backend: it stops Firefox, if running, and
// makes later calls fail with driver.ErrClosed.
func (be *Backend) Close() error {
	be.lock <- struct{}{}
	defer func() { <-be.lock }()
	be.done = true
	if be.b == nil {
		return nil
	}
	err := be.b.Close()
	be.b = nil
	return err
}

var _ driver.Backend = (*Backend)(nil)
