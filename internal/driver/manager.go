package driver

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cdpkit/cdpkit/internal/idle"
)

// ManagerOptions configure a Manager. Nil means defaults.
type ManagerOptions struct {
	// IdleTimeout makes the Manager stop its backend's browser after this
	// long without a call in flight (Manager.Use); zero means never.
	IdleTimeout time.Duration
	Logger      *slog.Logger
}

// Manager hands the tools the browser of one Backend, which it knows only
// through the Backend interface and the optional roles below: the backend
// starts its browser lazily, on the first call that needs one, and a new
// one in place of one that died; the Manager stops it after
// ManagerOptions.IdleTimeout without a call in flight.
//
// # Lifetime
//
// A Manager owns its Backend until [Manager.Close]. It is safe for
// concurrent use.
type Manager struct {
	be   Backend
	o    ManagerOptions
	idle *idle.Clock // stops the browser IdleTimeout after the last call ended
	done atomic.Bool
}

// NewManager returns a Manager over be.
func NewManager(be Backend, o *ManagerOptions) *Manager {
	m := &Manager{be: be}
	if o != nil {
		m.o = *o
	}
	m.idle = idle.New(m.o.IdleTimeout, m.stopIdle)
	return m
}

// Backend is the backend the Manager drives, for the roles a tool finds on
// it by type assertion (such as Auditor).
func (m *Manager) Backend() Backend { return m.be }

// Driver returns the running browser, starting (or reconnecting to) it
// first if needed. ctx bounds the wait and the start.
func (m *Manager) Driver(ctx context.Context) (Driver, error) { return m.be.Driver(ctx) }

// CurrentDriver returns the running browser without starting one, or nil.
func (m *Manager) CurrentDriver() Driver { return m.be.Current() }

// Peek returns the running browser, or nil when none runs or one is being
// started or stopped; it never waits. A backend without the Peeker role
// reports nil.
func (m *Manager) Peek() Driver {
	if p, ok := m.be.(Peeker); ok {
		return p.Peek()
	}
	return nil
}

// TakeReset reports whether a browser was started in place of one that
// crashed or was stopped for idleness since the last TakeReset (see
// Resetter). A nil Manager reports false.
func (m *Manager) TakeReset() bool {
	if m == nil {
		return false
	}
	if r, ok := m.be.(Resetter); ok {
		return r.TakeReset()
	}
	return false
}

// Use marks a call in flight until release is called: the idle timer
// neither runs nor fires meanwhile. A nil Manager's Use does nothing.
func (m *Manager) Use() (release func()) {
	if m == nil {
		return func() {}
	}
	end := m.idle.Begin()
	var once sync.Once
	return func() {
		once.Do(func() {
			if c, ok := m.be.(CallEnder); ok {
				c.CallEnded()
			}
			end()
		})
	}
}

// stopIdle stops the browser if no call has started since the idle period
// began.
func (m *Manager) stopIdle(stillIdle func() bool) {
	if m.done.Load() {
		return
	}
	if s, ok := m.be.(IdleStopper); ok {
		s.StopIdle(stillIdle, m.o.IdleTimeout)
		return
	}
	if !stillIdle() {
		return
	}
	m.logger().Info("stopping the idle browser", "idle", m.o.IdleTimeout, "browser", m.be.Name())
	if err := m.be.Stop(); err != nil {
		m.logger().Warn("stopping the idle browser", "err", err)
	}
}

func (m *Manager) logger() *slog.Logger {
	if m.o.Logger != nil {
		return m.o.Logger
	}
	return slog.Default()
}

// Close stops the browser, if any, and makes later calls fail with
// ErrClosed (Backend.Close).
func (m *Manager) Close() error {
	m.done.Store(true)
	m.idle.Stop()
	return m.be.Close()
}
