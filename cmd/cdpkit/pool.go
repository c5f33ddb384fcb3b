package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/apienv"
	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// instanceIDPattern is what --instance-id may be: it starts every session
// id, so a proxy's regular expression can match it without escaping.
var instanceIDPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,63}$`)

// checkPool checks serve's --browsers, --max-tabs-per-session and
// --instance-id, and picks a random instance id when none is given.
func (c *config) checkPool() error {
	if c.browsers < 1 {
		return errors.New("--browsers is 1 or more")
	}
	if c.maxTabs < 0 {
		return errors.New("--max-tabs-per-session is 0 (no limit) or more")
	}
	if c.browsers > 1 && (c.launch.userDataDir != "" || c.opts.AutoConnect != "") {
		return errors.New("--browsers above 1 needs a browser per member: it does not go with --user-data-dir or --auto-connect, which name one browser")
	}
	if c.instanceID == "" {
		c.instanceID = strings.ToLower(rand.Text()[:8])
	}
	if !instanceIDPattern.MatchString(c.instanceID) {
		return fmt.Errorf("--instance-id %q: want 1 to 63 letters, digits or '-'", c.instanceID)
	}
	return nil
}

// newPool returns the pool serve places sessions on: the app's browser
// and --browsers - 1 more made with the same options, each with its own
// process (or connection) and profile. The app closes them.
func (a *app) newPool(cfg *config) (*mcpserver.Pool, error) {
	envs := []*tools.Env{a.env}
	for range cfg.browsers - 1 {
		b, err := cdpkit.New(a.opts)
		if err != nil {
			return nil, err
		}
		a.pool = append(a.pool, b)
		env := apienv.Of(b)
		env.Leases, env.Client, env.RequireLease, env.LeaseTTL = a.env.Leases, a.env.Client, a.env.RequireLease, a.env.LeaseTTL
		env.Telemetry = a.env.Telemetry // set by newApp: every browser's calls are recorded
		envs = append(envs, env)
	}
	return mcpserver.NewPool(envs...), nil
}
