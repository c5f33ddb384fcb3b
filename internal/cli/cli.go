// Package cli is cdpkit's command line for agents and humans: `cdpkit open
// URL`, `cdpkit click e12`, or any tool by name. Each call is a client of a
// per-session daemon that the first call starts in the background; the
// daemon owns the browser and serves the tool registry over MCP on a unix
// socket, so tabs, refs and dialogs persist from one call to the next.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// Codes for failures on the CLI's side of the socket.
const (
	// DaemonFailed: the session's daemon could not be started or reached.
	DaemonFailed tools.Code = "DAEMON_FAILED"
)

// callMargin is how much longer than the daemon's tool timeout the CLI
// waits for an answer before giving up.
const callMargin = 10 * time.Second

// Options configure Run.
type Options struct {
	Tools      []tools.Tool // every tool, for commands, conversion and help
	DaemonFlag DaemonFlag   // the flags a call may pass to a daemon it starts
	Executable string       // the cdpkit binary; "" means os.Executable
	Version    string
}

// IsCommand reports whether name is a CLI command: a verb, close,
// sessions, or a tool's name.
func IsCommand(name string, all []tools.Tool) bool {
	if findVerb(name, all) != nil || len(groupVerbs(name, all)) > 0 || name == "close" || name == "sessions" {
		return true
	}
	return slices.ContainsFunc(all, func(t tools.Tool) bool { return t.Name == name })
}

// Run runs one CLI command and returns the exit code: 0 on success, 1 when
// the tool or the daemon fails, 2 for a bad command line.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	c, err := parse(args, o.Tools, o.DaemonFlag, os.Getenv)
	if err != nil {
		printError(stderr, false, &tools.Error{Code: tools.InvalidArgs, Message: err.Error(), Hint: "run 'cdpkit help'"}, false)
		return 2
	}
	switch {
	case c.name == "help":
		return help(stdout, stderr, c.words, o.Tools)
	case c.help:
		return help(stdout, stderr, []string{c.name}, o.Tools)
	}
	dir, err := StateDir()
	if err != nil {
		printError(stderr, c.json, &tools.Error{Code: DaemonFailed, Message: err.Error(), Hint: "set CDPKIT_STATE_DIR to a private directory"}, false)
		return 1
	}
	exe := o.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			printError(stderr, c.json, &tools.Error{Code: DaemonFailed, Message: err.Error()}, false)
			return 1
		}
	}
	s := &session{name: c.session, p: sessionPaths(dir, c.session), exe: exe, daemonArgs: c.daemon}
	if len(s.p.socket) > maxSocketPath {
		printError(stderr, c.json, &tools.Error{Code: DaemonFailed, Message: fmt.Sprintf("socket path %s is too long", s.p.socket), Hint: "use a shorter CDPKIT_STATE_DIR or session name"}, false)
		return 1
	}
	switch c.name {
	case "sessions":
		return sessions(stdout, stderr, c, dir)
	case "close":
		return closeSession(ctx, stdout, stderr, c, s)
	}
	return call(ctx, stdout, stderr, c, s, o)
}

// callTimeout is how long the CLI waits for a tool's answer.
func (c *command) callTimeout() time.Duration {
	if c.timeout > 0 {
		return c.timeout
	}
	if ms, ok := c.args["timeout_ms"].(int); ok {
		return time.Duration(ms)*time.Millisecond + callMargin
	}
	d := tools.DefaultTimeout
	if v, err := time.ParseDuration(os.Getenv("CDPKIT_TOOL_TIMEOUT")); err == nil && v > 0 {
		d = v
	}
	return d + callMargin
}

func call(ctx context.Context, stdout, stderr io.Writer, c *command, s *session, o Options) int {
	// An explicit --timeout bounds the whole call, starting or reaching
	// the daemon included; by default connecting has its own budget.
	total := startBudget + c.callTimeout()
	if c.timeout > 0 {
		total = c.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, total)
	defer cancel()
	cs, st, err := s.connect(ctx, true)
	if err != nil {
		printError(stderr, c.json, clientError(ctx, c, err), false)
		return 1
	}
	defer cs.Close()
	if st.reset {
		fmt.Fprintf(stderr, "cdpkit: session %q was reset: its daemon had exited (tabs and refs are gone)\n", c.session)
	}
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil && o.Version != "" && r.ServerInfo.Version != o.Version {
		fmt.Fprintf(stderr, "cdpkit: session %q's daemon runs cdpkit %s, not %s (run 'cdpkit close' to restart it)\n", c.session, r.ServerInfo.Version, o.Version)
	}
	for _, n := range c.notes {
		fmt.Fprintf(stderr, "cdpkit: %s\n", n)
	}
	if !st.started && len(c.setFlags) > 0 {
		fmt.Fprintf(stderr, "cdpkit: session %q is already running; --%s applies only when a session starts (run 'cdpkit close' first)\n", c.session, c.setFlags[0])
	}
	callCtx, cancelCall := context.WithTimeout(ctx, c.callTimeout())
	defer cancelCall()
	if c.timeout > 0 {
		// Ask the tool to stop a little before we stop listening, so that
		// its TIMEOUT (naming the slow step) arrives.
		if _, set := c.args["timeout_ms"]; !set && c.args != nil {
			d, _ := callCtx.Deadline()
			if ms := (time.Until(d) - answerMargin(c.timeout)).Milliseconds(); ms > 0 {
				c.args["timeout_ms"] = min(ms, tools.MaxTimeout.Milliseconds())
			}
		}
	}
	params := &mcp.CallToolParams{Name: c.tool.Name, Arguments: c.args}
	if dir, ok := callerDir(); ok {
		params.Meta = mcp.Meta{tools.CallerDirMeta: dir}
	}
	res, err := cs.CallTool(callCtx, params)
	if err != nil {
		printError(stderr, c.json, clientError(callCtx, c, err), st.reset)
		return 1
	}
	out, err := readResult(res)
	if err != nil {
		printError(stderr, c.json, &tools.Error{Code: tools.Internal, Message: err.Error()}, st.reset)
		return 1
	}
	if out.err != nil {
		printError(stderr, c.json, out.err, st.reset)
		return 1
	}
	if c.savePath != "" {
		var err error
		if c.tool.Name == "take_screenshot" {
			err = out.saveScreenshot(callCtx, c.savePath)
		} else {
			err = out.moveSaved(c.savePath)
		}
		if err != nil {
			te := tools.AsError(err)
			if te.Code == tools.Internal {
				te = &tools.Error{Code: tools.IOError, Message: err.Error(), Hint: "give a path in a writable directory on a disk with space"}
			}
			printError(stderr, c.json, te, st.reset)
			return 1
		}
	}
	if c.json {
		fmt.Fprintf(stdout, "%s\n", out.object(st.reset))
		return 0
	}
	out.printHuman(stdout, c.tool.Name)
	return 0
}

// answerMargin is how long before the CLI's own deadline a tool is asked
// to give up, leaving time for its answer to arrive.
func answerMargin(timeout time.Duration) time.Duration {
	return min(time.Second, timeout/5)
}

// callerDir returns the directory this call runs in, when it may be an
// upload root for the call (policy.SafeUploadRoot): never /, $HOME or a
// directory holding credentials.
func callerDir() (string, bool) {
	wd, err := os.Getwd()
	if err != nil || policy.SafeUploadRoot(wd) != nil {
		return "", false
	}
	return wd, true
}

// clientError explains a failure to reach or hear from the daemon.
func clientError(ctx context.Context, c *command, err error) *tools.Error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &tools.Error{Code: tools.Timeout, Message: fmt.Sprintf("no answer from session %q within %s", c.session, c.callTimeout()),
			Recoverable: true, Hint: "retry, or raise --timeout"}
	case ctx.Err() != nil:
		return &tools.Error{Code: tools.Cancelled, Message: "interrupted"}
	case errors.Is(err, mcp.ErrConnectionClosed):
		return &tools.Error{Code: tools.SessionClosed, Message: fmt.Sprintf("session %q's daemon exited during the call", c.session),
			Recoverable: true, Hint: "run the command again: a new daemon starts (tabs and refs are gone)"}
	}
	return &tools.Error{Code: DaemonFailed, Message: err.Error(), Recoverable: true, Hint: "see the session log in the state dir"}
}

// closeSession asks the daemon to stop and waits until it has, browser
// included. A session that is not running is not an error.
func closeSession(ctx context.Context, stdout, stderr io.Writer, c *command, s *session) int {
	ctx, cancel := context.WithTimeout(ctx, startBudget+shutdownGrace+15*time.Second)
	defer cancel()
	st, _ := readState(s.p.state)
	cs, _, err := s.connect(ctx, false)
	if errors.Is(err, errNotRunning) {
		if c.json {
			return printJSON(stdout, map[string]any{"session": c.session, "closed": false, "running": false})
		}
		fmt.Fprintf(stdout, "session %q is not running\n", c.session)
		return 0
	}
	if err != nil {
		printError(stderr, c.json, clientError(ctx, c, err), false)
		return 1
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: closeTool})
	cs.Close()
	if err != nil || res.IsError {
		printError(stderr, c.json, &tools.Error{Code: DaemonFailed, Message: fmt.Sprintf("session %q did not accept close: %v", c.session, err)}, false)
		return 1
	}
	if st != nil {
		if err := waitExit(ctx, st.PID); err != nil {
			printError(stderr, c.json, &tools.Error{Code: tools.Timeout, Message: err.Error(), Hint: "kill it"}, false)
			return 1
		}
	}
	if c.json {
		return printJSON(stdout, map[string]any{"session": c.session, "closed": true})
	}
	fmt.Fprintf(stdout, "closed session %q\n", c.session)
	return 0
}

// sessions lists the live sessions.
func sessions(stdout, stderr io.Writer, c *command, dir string) int {
	list, err := liveSessions(dir)
	if err != nil {
		printError(stderr, c.json, &tools.Error{Code: DaemonFailed, Message: err.Error()}, false)
		return 1
	}
	now := time.Now()
	if c.json {
		out := []map[string]any{}
		for _, s := range list {
			out = append(out, map[string]any{"session": s.Session, "pid": s.PID, "started": s.Started, "lastCall": s.LastCall,
				"ageSeconds": int(now.Sub(s.Started).Seconds()), "idleSeconds": int(now.Sub(s.LastCall).Seconds()), "flags": s.Flags})
		}
		return printJSON(stdout, map[string]any{"stateDir": dir, "sessions": out})
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no sessions (state dir %s)\n", dir)
		return 0
	}
	fmt.Fprintf(stdout, "%-20s %8s %8s %8s\n", "SESSION", "PID", "AGE", "IDLE")
	for _, s := range list {
		fmt.Fprintf(stdout, "%-20s %8d %8s %8s\n", s.Session, s.PID, short(now.Sub(s.Started)), short(now.Sub(s.LastCall)))
	}
	return 0
}

func short(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 1
	}
	return 0
}

// printError writes a failure to stderr: `[CODE] message (hint: …)`, or the
// error object as JSON.
func printError(stderr io.Writer, asJSON bool, e *tools.Error, reset bool) {
	if e.Code == tools.EvalDisabled {
		// The daemon's flags are set when it starts.
		e.Hint = "run 'cdpkit close', then call again with --allow-eval (or CDPKIT_ALLOW_EVAL=1): a running session keeps the flags it started with"
	}
	if asJSON {
		m := map[string]any{"code": e.Code, "message": e.Message, "recoverable": e.Recoverable}
		if e.Hint != "" {
			m["hint"] = e.Hint
		}
		if e.Phase != "" {
			m["phase"] = e.Phase
		}
		if reset {
			m["sessionReset"] = true
		}
		printJSON(stderr, m)
		return
	}
	text := e.Error()
	if e.Hint != "" {
		text += " (hint: " + e.Hint + ")"
	}
	fmt.Fprintln(stderr, text)
}
