// Package apienv hands cdpkit's own commands the tool environment of a
// public cdpkit.Browser, so that the MCP server, the HTTP server and the
// CLI daemon serve the registry's tools on a Browser made by the public
// API (cdpkit.New) rather than on a copy of its wiring: an option the
// commands need and the API lacks does not compile.
package apienv

import "github.com/cdpkit/cdpkit/internal/tools"

// Of returns the environment of b, a *cdpkit.Browser. Package cdpkit sets
// it at init; importing cdpkit is what makes it usable.
var Of func(b any) *tools.Env
