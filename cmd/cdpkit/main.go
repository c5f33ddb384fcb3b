// Command cdpkit gives AI agents a real Chromium over the Chrome DevTools
// Protocol, as an MCP server and a CLI.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/cdpkit/cdpkit/internal/cli"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `cdpkit — a real browser for AI agents, over the Chrome DevTools Protocol.

Usage:
  cdpkit mcp [flags]      serve the tools over MCP on stdin/stdout
  cdpkit serve [flags]    serve the tools over MCP on streamable HTTP (loopback, bearer token)
  cdpkit daemon [flags]   serve a CLI session on a unix socket (CLI calls start it)
  cdpkit doctor [flags]   check that a browser can be found and driven; print fixes
  cdpkit version          print the version
  cdpkit help [command]   print this help, or a command's

Run 'cdpkit <command> -h' for a command's flags.

`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	// Only the long-lived servers profile; a CLI call is over in moments
	// (and its daemon, which inherits the variable, does profile).
	setServerGC(ctx, args[0])
	if err := startPprofFor(args[0], stderr); err != nil {
		fmt.Fprintf(stderr, "cdpkit: %v\n", err)
		return 2
	}
	switch args[0] {
	case "mcp":
		return runMCP(ctx, args[1:], stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "daemon":
		return runDaemon(ctx, args[1:], stderr)
	case "doctor":
		return runDoctor(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "cdpkit %s\n", buildVersion())
		return 0
	case "help", "-h", "--help":
		all := tools.All()
		if len(args) > 1 {
			return runCLI(ctx, args, all, stdout, stderr)
		}
		fmt.Fprint(stdout, usage+cli.Usage(all))
		return 0
	}
	// Anything else is the CLI: a verb or tool, maybe after global flags.
	// tools.All builds every schema, which costs; once per call is enough.
	all := tools.All()
	if strings.HasPrefix(args[0], "-") || cli.IsCommand(args[0], all) {
		return runCLI(ctx, args, all, stdout, stderr)
	}
	fmt.Fprintf(stderr, "cdpkit: unknown command %q\n\n%s", args[0], usage)
	return 2
}
