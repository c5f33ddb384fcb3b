// Command demo shows cdpkit end to end: it serves an embedded page on
// loopback, starts `cdpkit mcp` as an MCP host would, and drives the page
// through the MCP tools, printing each step; then it runs the same loop
// through the CLI, whose first call starts a session daemon. `make demo`
// runs it.
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed page
var pageFS embed.FS

func main() {
	cdpkit := flag.String("cdpkit", "bin/cdpkit", "path to the cdpkit binary")
	out := flag.String("out", "bin/demo-screenshot.png", "where to save the screenshot")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *cdpkit, *out); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cdpkit, out string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	url, stopServer, err := serve()
	if err != nil {
		return err
	}
	defer stopServer()
	step("serving the demo page", url)

	cmd := exec.Command(cdpkit, "mcp", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-demo", Version: "1"}, nil)
	start := time.Now()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting %s mcp: %w", cdpkit, err)
	}
	defer session.Close() // cdpkit sees stdin close, stops the browser and exits
	info := session.InitializeResult().ServerInfo
	step("initialized MCP session", fmt.Sprintf("%s %s in %d ms", info.Name, info.Version, time.Since(start).Milliseconds()))

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	step("tools/list", strings.Join(names, ", "))

	start = time.Now()
	text, _, err := call(ctx, session, "navigate_page", map[string]any{"url": url})
	if err != nil {
		return err
	}
	step("navigate_page (starts Chromium)", fmt.Sprintf("%s in %d ms", text, time.Since(start).Milliseconds()))

	text, _, err = call(ctx, session, "list_pages", nil)
	if err != nil {
		return err
	}
	step("list_pages", text)

	// The agent loop: look, act on refs from the snapshot, verify.
	snap, _, err := call(ctx, session, "take_snapshot", map[string]any{"interactive": true})
	if err != nil {
		return err
	}
	step("take_snapshot (interactive)", "\n"+indent(snap))
	email, button := refIn(snap, `textbox "Email"`), refIn(snap, `button "Continue"`)
	if email == "" || button == "" {
		return errors.New("the snapshot lacks the email field or the button")
	}
	if _, _, err := call(ctx, session, "fill", map[string]any{"uid": email, "value": "ada@example.com"}); err != nil {
		return err
	}
	step("fill "+email, `"ada@example.com"`)
	text, _, err = call(ctx, session, "click", map[string]any{"uid": button})
	if err != nil {
		return err
	}
	step("click "+button, text)
	text, _, err = call(ctx, session, "wait_for", map[string]any{"text": []string{"Welcome"}})
	if err != nil {
		return err
	}
	step("wait_for \"Welcome\" (verify)", text)

	start = time.Now()
	text, img, err := call(ctx, session, "take_screenshot", nil)
	if err != nil {
		return err
	}
	if img == nil {
		return errors.New("take_screenshot returned no image")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, img.Data, 0o644); err != nil {
		return err
	}
	step("take_screenshot", fmt.Sprintf("%s in %d ms", text, time.Since(start).Milliseconds()))

	abs, _ := filepath.Abs(out)
	fmt.Printf("\nscreenshot saved to %s\n\n", abs)
	session.Close()
	return runCLI(ctx, cdpkit, url)
}

// runCLI runs the loop through the CLI, in a state dir of its own: each
// command is a process; the session's daemon keeps the tab and its refs.
func runCLI(ctx context.Context, cdpkit, url string) error {
	state, err := os.MkdirTemp("", "cdpkit-demo-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	cli := func(args ...string) (string, error) {
		start := time.Now()
		cmd := exec.CommandContext(ctx, cdpkit, args...)
		cmd.Env = append(os.Environ(), "CDPKIT_STATE_DIR="+state, "CDPKIT_SESSION=demo")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		out := strings.TrimSpace(string(b))
		fmt.Printf("$ cdpkit %s    (%d ms)\n", strings.Join(args, " "), time.Since(start).Milliseconds())
		if out != "" {
			fmt.Println(indent(out))
		}
		if err != nil {
			return "", fmt.Errorf("cdpkit %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	// Stop the daemon and its browser whatever happens below.
	defer cli("close")

	step("the same loop through the CLI", "(the first call starts the session's daemon and browser)")
	if _, err := cli("open", url); err != nil {
		return err
	}
	snap, err := cli("snapshot", "-i")
	if err != nil {
		return err
	}
	email, button := refIn(snap, `textbox "Email"`), refIn(snap, `button "Continue"`)
	if email == "" || button == "" {
		return errors.New("the CLI snapshot lacks the email field or the button")
	}
	if _, err := cli("fill", email, "ada@example.com"); err != nil {
		return err
	}
	if _, err := cli("click", "@"+button); err != nil {
		return err
	}
	found, err := cli("find", "--query", "Welcome")
	if err != nil {
		return err
	}
	if !strings.Contains(found, "Welcome") {
		return errors.New("the CLI loop did not reach the welcome text")
	}
	return nil
}

// call runs a tool and returns its text and image; a tool error is an error.
func call(ctx context.Context, s *mcp.ClientSession, name string, args map[string]any) (string, *mcp.ImageContent, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	var text string
	var img *mcp.ImageContent
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text = c.Text
		case *mcp.ImageContent:
			img = c
		}
	}
	if res.IsError {
		return "", nil, fmt.Errorf("%s: %s", name, text)
	}
	return compact(text), img, nil
}

// refIn returns the ref on the first line of a snapshot containing needle.
func refIn(text, needle string) string {
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, needle); i > 0 {
			if f := strings.Fields(l[:i]); len(f) > 0 {
				return f[len(f)-1]
			}
		}
	}
	return ""
}

func indent(s string) string {
	return "      " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n      ")
}

func compact(s string) string {
	var v any
	if strings.Contains(s, "\n") || json.Unmarshal([]byte(s), &v) != nil {
		return s // a JSON header followed by text
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func step(what, detail string) { fmt.Printf("==> %-30s %s\n", what, detail) }

// serve serves the embedded page on a loopback port.
func serve() (string, func(), error) {
	sub, err := fs.Sub(pageFS, "page")
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.FileServerFS(sub), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", func() { srv.Close() }, nil
}
