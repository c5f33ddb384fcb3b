package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cdpkit/cdpkit/internal/cli"
	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// runDaemon serves a CLI session's tools on its unix socket until it is
// closed, idle or signalled, then stops the browser. The first CLI call of
// a session starts it; its logs go to the session's log file.
func runDaemon(ctx context.Context, args []string, stderr io.Writer) int {
	// The CLI reaches every tool; a later --tools narrows that.
	cfg, err := parseConfig("daemon", append([]string{"--tools=full"}, args...), stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit daemon: %v\n", err)
		return 2
	}
	if err := cli.CheckSession(cfg.session); err != nil {
		fmt.Fprintf(stderr, "cdpkit daemon: [INVALID_ARGS] %v\n", err)
		return 2
	}
	dir, err := cli.StateDir()
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit daemon: %v\n", err)
		return 1
	}
	logf, err := os.OpenFile(cli.LogPath(dir, cfg.session), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit daemon: %v\n", err)
		return 1
	}
	defer logf.Close()
	a, err := newApp(cfg, logf)
	if err != nil {
		fmt.Fprintf(logf, "cdpkit daemon: %v\n", err)
		fmt.Fprintf(stderr, "cdpkit daemon: %v\n", err)
		return 2
	}
	// Stop the browser on every way out, a panic included.
	defer a.close()
	if err := a.useLeases(cfg, "cli:"+cfg.session); err != nil {
		fmt.Fprintf(logf, "cdpkit daemon: %v\n", err)
		fmt.Fprintf(stderr, "cdpkit daemon: %v\n", err)
		return 2
	}
	a.env.Client = "cli:" + cfg.session // also without leases: the session id of its records
	a.telemetry.SessionOpened(a.env.Client)
	defer func() { a.telemetry.SessionClosed(a.env.Client, sessionReason(ctx)) }()
	// Each CLI call sends its directory; a safe one is an upload root for
	// that call. The socket is private to the user.
	a.env.CallerDirs = true
	d := &cli.Daemon{
		Session:     cfg.session,
		Dir:         dir,
		IdleTimeout: cfg.idleTimeout,
		Server:      mcpserver.New(a.env, buildVersion(), a.tools),
		Flags:       redactFlags(args),
		Version:     buildVersion(),
		Log:         a.log,
	}
	if err := d.Serve(ctx); err != nil {
		a.log.Error("daemon stopped", "err", err)
		fmt.Fprintf(stderr, "cdpkit daemon: %v\n", err)
		return 1
	}
	return 0
}

// redactFlags hides the values of flags that may carry credentials (a
// header, a URL with a token) from the state file `cdpkit sessions` shows.
func redactFlags(args []string) []string {
	out := make([]string, len(args))
	hide := false
	for i, a := range args {
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case hide:
			out[i], hide = "…", false
			continue
		case strings.HasPrefix(a, "-") && (name == "ws-header" || name == "ws-endpoint" || name == "browser-url" || name == "proxy-server" ||
			name == "webdriver-url" || name == "webdriver-capability"):
			if hasValue {
				out[i] = a[:strings.IndexByte(a, '=')+1] + "…"
				continue
			}
			hide = true
		}
		out[i] = a
	}
	return out
}

// runCLI runs a CLI command (a verb, close, sessions or a tool's name).
func runCLI(ctx context.Context, args []string, all []tools.Tool, stdout, stderr io.Writer) int {
	return cli.Run(ctx, args, stdout, stderr, cli.Options{
		Tools:      all,
		DaemonFlag: daemonFlag,
		Version:    buildVersion(),
	})
}

// daemonFlags maps each `cdpkit daemon` flag to whether it takes a value.
// It is read from the daemon's own help so that a flag added to
// parseConfig reaches the CLI without a second list to keep in step.
var daemonFlags = sync.OnceValue(func() map[string]bool {
	var b bytes.Buffer
	parseConfig("daemon", []string{"-h"}, &b)
	flags := map[string]bool{}
	for line := range strings.Lines(b.String()) {
		// PrintDefaults: "  -name" for a bool, "  -name type" otherwise.
		if !strings.HasPrefix(line, "  -") {
			continue
		}
		f := strings.Fields(line)
		flags[strings.TrimPrefix(f[0], "-")] = len(f) > 1
	}
	return flags
})

func daemonFlag(name string) (known, takesValue bool) {
	takesValue, known = daemonFlags()[name]
	return known, takesValue
}
