package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// peersDirEnv names the npm prefix where scripts/install-peers.sh put the
// peer MCP servers; TestWidgetsPlaywrightMCP runs only when it is set.
const peersDirEnv = "CDPKIT_PEERS_DIR"

// playwrightPeer drives @playwright/mcp over stdio for the widget suite,
// translating the policy's cdpkit tool calls into Playwright MCP's. It
// has one browser tab group, so its tasks run one after another.
type playwrightPeer struct {
	session *mcp.ClientSession
}

// startPlaywrightMCP starts the Playwright MCP server installed under dir
// with the system Chromium, headless and isolated, and connects to it.
func startPlaywrightMCP(t *testing.T, dir string) *playwrightPeer {
	t.Helper()
	bin := filepath.Join(dir, "node_modules", ".bin", "playwright-mcp")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: %v (run scripts/install-peers.sh %s)", bin, err, dir)
	}
	tmp := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--isolated", "--no-sandbox",
		"--executable-path", browsertest.ExecPath(t), "--output-dir", filepath.Join(tmp, "out"), "--viewport-size", "1280x720")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	cmd.Dir = tmp
	// Its browser is in its process group, killed with it at the end.
	sysproc.SetGroup(cmd, syscall.SIGTERM)
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-widgets", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting playwright-mcp: %v", err)
	}
	t.Cleanup(func() {
		session.Close()
		if cmd.Process != nil {
			sysproc.KillGroup(cmd.Process.Pid)
		}
	})
	return &playwrightPeer{session: session}
}

// raw calls one Playwright MCP tool and returns its text.
func (p *playwrightPeer) raw(ctx context.Context, tool string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	if res.IsError {
		return b.String(), fmt.Errorf("%s: %s", tool, strings.TrimSpace(b.String()))
	}
	return b.String(), nil
}

// tabsLine finds a tab's index in browser_tabs' list ("- 1: [Title](url)").
var tabsLine = regexp.MustCompile(`(?m)^- (\d+):[^\n]*\[([^\]]*)\]`)

// call does what the cdpkit tool would with Playwright MCP's tools. Each
// Playwright MCP call it makes is one call for the counts; it returns the
// text of them all.
func (p *playwrightPeer) call(a *widgetAgent, tool, args string) (string, error) {
	var in map[string]any
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		a.t.Fatalf("%s: bad arguments %s: %v", tool, args, err)
	}
	ref, _ := in["uid"].(string)
	var out strings.Builder
	do := func(name string, m map[string]any) error {
		text, err := p.raw(a.t.Context(), name, m)
		a.calls++
		a.chars += len(text)
		a.t.Logf("playwright %s %v →\n%s", name, m, text)
		out.WriteString(text)
		return err
	}
	el := func(m map[string]any) map[string]any {
		m["element"], m["target"] = ref, ref
		return m
	}
	// Calls are counted by do: undo the caller's count of this one.
	a.calls--
	var err error
	switch tool {
	case "navigate_page":
		err = do("browser_navigate", map[string]any{"url": in["url"]})
	case "take_snapshot":
		err = do("browser_snapshot", map[string]any{})
	case "click":
		err = do("browser_click", el(map[string]any{}))
	case "hover":
		err = do("browser_hover", el(map[string]any{}))
	case "fill":
		err = do("browser_type", el(map[string]any{"text": in["value"]}))
	case "type_text":
		if ref == "" {
			ref = a.focused
		}
		err = do("browser_type", el(map[string]any{"text": in["text"], "slowly": true}))
	case "select_option":
		err = do("browser_select_option", el(map[string]any{"values": in["values"]}))
	case "press_key":
		if ref != "" && ref != a.focused {
			if err = do("browser_click", el(map[string]any{})); err != nil {
				break
			}
		}
		err = do("browser_press_key", map[string]any{"key": in["key"]})
	case "drag":
		err = do("browser_drag", map[string]any{"startElement": in["from_uid"], "startTarget": in["from_uid"],
			"endElement": in["to_uid"], "endTarget": in["to_uid"]})
	case "scroll":
		// Playwright MCP has no scroll tool: a person presses Page Down.
		err = do("browser_press_key", map[string]any{"key": "PageDown"})
	case "wait_for":
		texts, _ := in["text"].([]any)
		err = do("browser_wait_for", map[string]any{"text": texts[0]})
	case "select_page":
		title := strings.TrimPrefix(in["target"].(string), "title:")
		if err = do("browser_tabs", map[string]any{"action": "list"}); err != nil {
			break
		}
		index := ""
		for _, m := range tabsLine.FindAllStringSubmatch(out.String(), -1) {
			if m[2] == title {
				index = m[1]
			}
		}
		if index == "" {
			err = fmt.Errorf("no tab titled %q", title)
			break
		}
		var n int
		fmt.Sscan(index, &n)
		err = do("browser_tabs", map[string]any{"action": "select", "index": n})
	default:
		a.t.Fatalf("no Playwright MCP counterpart for %s", tool)
	}
	if ref != "" && (tool == "click" || tool == "fill" || tool == "type_text") {
		a.focused = ref
	}
	return out.String(), err
}

// check evaluates expr in Playwright MCP's current tab and returns its
// value as text.
func (p *playwrightPeer) check(a *widgetAgent, expr string) string {
	text, err := p.raw(a.t.Context(), "browser_evaluate", map[string]any{"function": "() => String(" + expr + ")"})
	if err != nil {
		a.t.Fatalf("checking %s: %v", expr, err)
	}
	_, after, _ := strings.Cut(text, "### Result\n")
	line, _, _ := strings.Cut(after, "\n")
	var v string
	if json.Unmarshal([]byte(line), &v) != nil {
		return line
	}
	return v
}

// pwRef finds the ref of role "name" in Playwright MCP's YAML snapshot,
// where a name is quoted (- role "name" [ref=e12]) or, for text content,
// follows the line (- listitem [ref=e12]: name); a line may be quoted.
func pwRef(text, role, name string) string {
	r := `[a-z]+`
	if role != "" {
		r = regexp.QuoteMeta(role)
	}
	q := regexp.QuoteMeta(name)
	m := regexp.MustCompile(`(?m)^\s*- '?` + r + `(?: "` + q + `"[^\n]*?\[ref=([a-z0-9]+)\]|[^\n"]*?\[ref=([a-z0-9]+)\]: ` + q + `$)`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

// TestWidgetsPlaywrightMCP runs the widget suite through Playwright MCP
// with the same policy, one task after another, for comparison; it runs
// only when CDPKIT_PEERS_DIR names the npm prefix of
// scripts/install-peers.sh (make bench-peers installs it):
//
//	CDPKIT_PEERS_DIR=~/.cache/cdpkit-bench/peers go test -run TestWidgetsPlaywrightMCP -v ./internal/tools
//
// Playwright MCP has no scroll tool by default: scroll is Page Down. Its
// action results point to a snapshot file rather than carry one, so the
// policy takes snapshots where cdpkit's results would have served.
func TestWidgetsPlaywrightMCP(t *testing.T) {
	dir := os.Getenv(peersDirEnv)
	if dir == "" {
		t.Skipf("set %s to the npm prefix of scripts/install-peers.sh to compare with Playwright MCP", peersDirEnv)
	}
	base := widgetSite(t)
	pw := startPlaywrightMCP(t, dir)
	var b strings.Builder
	fmt.Fprintf(&b, "| task | library | calls | characters | passed |\n|---|---|---:|---:|---|\n")
	for _, task := range widgetTasks {
		if task.downloads {
			continue // cdpkit's download list has no counterpart
		}
		a := &widgetAgent{peer: pw}
		t.Run(task.name, func(t *testing.T) {
			a.t = t
			a.do("navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/"+task.page))
			task.run(a)
		})
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %v |\n", task.name, task.library, a.calls, a.chars, !a.t.Failed())
		// Leave one tab for the next task.
		for range 3 {
			if _, err := pw.raw(t.Context(), "browser_tabs", map[string]any{"action": "close", "index": 1}); err != nil {
				break
			}
		}
		pw.raw(t.Context(), "browser_tabs", map[string]any{"action": "select", "index": 0})
	}
	t.Logf("widget suite on Playwright MCP:\n%s", b.String())
}
