package browser

import (
	"context"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Backend returns m as the driver.Backend of Chromium over CDP, for a
// driver.Manager. Besides the Backend interface it plays the roles
// driver.Resetter, CallEnder, IdleStopper, Peeker and Auditor.
func (m *Manager) Backend() driver.Backend { return backend{m} }

// ManagerOf returns the Manager behind be, Chromium's backend, or nil for
// another backend.
func ManagerOf(be driver.Backend) *Manager {
	if c, ok := be.(backend); ok {
		return c.m
	}
	return nil
}

// backend is a Manager as a driver.Backend.
type backend struct{ m *Manager }

func (c backend) Name() string { return "chromium" }

func (c backend) Driver(ctx context.Context) (driver.Driver, error) { return c.m.Driver(ctx) }

func (c backend) Current() driver.Driver { return c.m.CurrentDriver() }

// Stop stops the browser and removes its profile, as for idleness.
func (c backend) Stop() error {
	c.m.StopIdle(func() bool { return true }, 0)
	return nil
}

func (c backend) Close() error { return c.m.Close() }

func (c backend) TakeReset() bool { return c.m.TakeReset() }

func (c backend) CallEnded() { c.m.CallEnded() }

func (c backend) StopIdle(stillIdle func() bool, idle time.Duration) { c.m.StopIdle(stillIdle, idle) }

func (c backend) Peek() driver.Driver {
	if b := c.m.Peek(); b != nil {
		return ChromiumDriver(b)
	}
	return nil
}

func (c backend) StartAuditBrowser(ctx context.Context, cookies []driver.Cookie) (driver.AuditBrowser, error) {
	a, err := c.m.StartAuditBrowser(ctx, cookies)
	if err != nil {
		return nil, err
	}
	return a, nil
}

var (
	_ driver.Resetter    = backend{}
	_ driver.CallEnder   = backend{}
	_ driver.IdleStopper = backend{}
	_ driver.Peeker      = backend{}
	_ driver.Auditor     = backend{}
)

// Downloads implements driver.DownloadLog.
func (c chromium) Downloads(s *driver.Scope) []driver.Download { return c.b.Downloads(s) }

// Mocks implements driver.MockLister.
func (c chromium) Mocks(ctx context.Context, q driver.MockQuery) (rules, pruned []driver.Mock, err error) {
	return c.b.Mocks(ctx, q)
}

// ClearMocks implements driver.MockLister.
func (c chromium) ClearMocks(ctx context.Context, q driver.MockQuery) ([]driver.Mock, error) {
	return c.b.ClearMocks(ctx, q)
}

var (
	_ driver.DownloadLog = chromium{}
	_ driver.TabLimiter  = chromium{}
	_ driver.MockLister  = chromium{}
)
