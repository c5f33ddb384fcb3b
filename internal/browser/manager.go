package browser

import (
	"context"
	"sync"
)

// Manager starts the browser lazily, on the first call that needs one, and
// starts a new one when the old one is gone.
//
// # Lifetime
//
// A Manager owns the browsers it starts until [Manager.Close]. It is safe
// for concurrent use; concurrent first calls start one browser.
type Manager struct {
	opts  Options
	lock  chan struct{} // a 1-slot semaphore guarding b, so waiting honors ctx
	b     *Browser      // guarded by lock
	done  bool          // guarded by lock
	sweep sync.Once
}

// NewManager returns a Manager that starts browsers with o. Nil means
// defaults.
func NewManager(o *Options) *Manager {
	m := &Manager{lock: make(chan struct{}, 1)}
	if o != nil {
		m.opts = *o
	}
	return m
}

// Browser returns the running browser, starting one if there is none or
// the last one died. The context bounds the wait and the start.
func (m *Manager) Browser(ctx context.Context) (*Browser, error) {
	select {
	case m.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-m.lock }()
	if m.done {
		return nil, ErrClosed
	}
	if m.b != nil {
		select {
		case <-m.b.Done():
			m.b.Close() // reap the dead browser's processes and profile
			m.b = nil
		default:
			return m.b, nil
		}
	}
	if !m.opts.attaching() {
		m.sweep.Do(func() { SweepProfiles(m.opts.logger()) })
	}
	b, err := Start(ctx, &m.opts)
	if err != nil {
		return nil, err
	}
	m.b = b
	return b, nil
}

// Current returns the running browser without starting one, or nil.
func (m *Manager) Current() *Browser {
	m.lock <- struct{}{}
	defer func() { <-m.lock }()
	return m.b
}

// Close stops the browser, if any, and makes later calls fail with
// ErrClosed. It waits for a start in progress, which its own deadline
// bounds.
func (m *Manager) Close() error {
	m.lock <- struct{}{}
	defer func() { <-m.lock }()
	m.done = true
	if m.b == nil {
		return nil
	}
	err := m.b.Close()
	m.b = nil
	return err
}
