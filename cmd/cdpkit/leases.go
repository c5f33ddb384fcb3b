package main

import (
	"path/filepath"

	"github.com/cdpkit/cdpkit/internal/cli"
	"github.com/cdpkit/cdpkit/internal/lease"
)

// useLeases opens the tab lease store in the state dir's leases/, shared
// with every cdpkit of this user, and makes the app's calls hold leases as
// client ("stdio", "cli:SESSION"; HTTP sessions get their own). Without a
// usable state dir cdpkit runs without leases, with a warning, unless
// strict mode needs them.
func (a *app) useLeases(cfg *config, client string) error {
	s, err := openLeases(cfg)
	if err != nil {
		if cfg.requireLease {
			return err
		}
		a.log.Warn("running without tab leases", "err", err)
		return nil
	}
	a.env.Leases, a.env.Client, a.env.RequireLease, a.env.LeaseTTL = s, client, cfg.requireLease, cfg.leaseTTL
	return nil
}

func openLeases(cfg *config) (*lease.Store, error) {
	dir, err := cli.StateDir()
	if err != nil {
		return nil, err
	}
	return lease.Open(filepath.Join(dir, "leases"), &lease.Options{TTL: cfg.leaseTTL})
}
