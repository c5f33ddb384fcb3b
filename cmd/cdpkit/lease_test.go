//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// The lease acceptance tests: genuinely separate `cdpkit mcp` (and serve)
// processes attached to one headless Chromium with --browser-url, sharing
// one lease dir (CDPKIT_STATE_DIR), as agents on one machine would.

// sharedBrowser is a headless Chromium with a DevTools port, killed when
// the test ends.
type sharedBrowser struct {
	url      string // http://127.0.0.1:PORT
	stateDir string // the lease store's state dir every process shares
}

func startSharedBrowser(t *testing.T) *sharedBrowser {
	t.Helper()
	exe := browsertest.ExecPath(t)
	dir := t.TempDir()
	cmd := exec.Command(exe, "--headless", "--remote-debugging-port=0", "--no-sandbox",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps", "--user-data-dir="+filepath.Join(dir, "profile"), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		browsertest.WaitNoProcesses(t, filepath.Join(dir, "profile"), browsertest.ProcWait)
	})
	var port int
	browsertest.Eventually(t, time.Minute, func() error {
		b, err := os.ReadFile(filepath.Join(dir, "profile", "DevToolsActivePort"))
		if err != nil {
			return err
		}
		port, err = strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		return err
	})
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	return &sharedBrowser{url: fmt.Sprintf("http://127.0.0.1:%d", port), stateDir: state}
}

// openRaw opens a tab straight over the DevTools HTTP endpoint, as a human
// or another tool would: cdpkit has no record of it.
func (sb *sharedBrowser) openRaw(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, sb.url+"/json/new?"+url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.ID == "" {
		t.Fatalf("/json/new: %v %+v", err, got)
	}
	return got.ID
}

// agent is one MCP client of the shared browser: a `cdpkit mcp` process,
// or a session of `cdpkit serve`.
type agent struct {
	name    string
	cmd     *exec.Cmd // nil for an HTTP session
	session *mcp.ClientSession
	stderr  *bytes.Buffer
	last    []byte // the structured content of the last call
}

// startAgent starts `cdpkit mcp` attached to sb; it is stopped (stdin
// closed, then waited for) when the test ends, unless stopped before.
func startAgent(t *testing.T, sb *sharedBrowser, name string, args ...string) *agent {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp", "--tools", "full", "--browser-url", sb.url}, args...)...)
	cmd.Env = append(os.Environ(), "CDPKIT_STATE_DIR="+sb.stateDir, "CDPKIT_REQUIRE_LEASE=",
		"CDPKIT_ARTIFACT_DIR="+filepath.Join(t.TempDir(), "artifacts"), "CDPKIT_TOOL_TIMEOUT="+loadedToolTimeout)
	a := &agent{name: name, cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = a.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0"}, nil)
	s, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting %s: %v\n%s", name, err, a.stderr)
	}
	a.session = s
	t.Cleanup(func() {
		a.stop(t)
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, a.stderr)
		}
	})
	return a
}

// stop ends the agent's process and waits until it is gone.
func (a *agent) stop(t *testing.T) {
	t.Helper()
	a.session.Close()
	if a.cmd != nil && a.cmd.Process != nil {
		browsertest.Eventually(t, time.Minute, func() error {
			if syscall.Kill(a.cmd.Process.Pid, 0) == nil {
				return fmt.Errorf("%s (pid %d) still runs", a.name, a.cmd.Process.Pid)
			}
			return nil
		})
	}
}

// call runs a tool; it returns the result's JSON header (the first line)
// and the error code when it failed ("" when it succeeded).
func (a *agent) call(t *testing.T, tool string, args map[string]any) (text, code string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	res, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %s: protocol error: %v", a.name, tool, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	text = sb.String()
	a.last, _ = json.Marshal(res.StructuredContent)
	if res.IsError {
		if i, j := strings.Index(text, "["), strings.Index(text, "]"); i == 0 && j > 0 {
			code = text[1:j]
		} else {
			code = "?"
		}
	}
	return text, code
}

// ok runs a tool that must succeed and decodes its JSON header into out.
func (a *agent) ok(t *testing.T, tool string, args map[string]any, out any) string {
	t.Helper()
	text, code := a.call(t, tool, args)
	if code != "" {
		t.Fatalf("%s %s(%v): %s", a.name, tool, args, text)
	}
	if out != nil {
		if err := json.Unmarshal(a.last, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", a.name, tool, a.last, err)
		}
	}
	return text
}

// refused runs a tool that must fail with code and returns its message.
func (a *agent) refused(t *testing.T, code, tool string, args map[string]any) string {
	t.Helper()
	text, got := a.call(t, tool, args)
	if got != code {
		t.Fatalf("%s %s(%v) = %q (code %q), want %s", a.name, tool, args, text, got, code)
	}
	return text
}

type claimed struct {
	Lease    string `json:"lease"`
	TargetID string `json:"targetId"`
	Label    string `json:"label"`
	Opened   bool   `json:"opened"`
}

type pagesList struct {
	Pages []struct {
		ID     string `json:"id"`
		Index  int    `json:"index"`
		URL    string `json:"url"`
		Origin string `json:"origin"`
		Label  string `json:"label"`
	} `json:"pages"`
	Reaped []struct {
		TargetID string `json:"targetId"`
		Reason   string `json:"reason"`
	} `json:"reaped"`
}

func (p pagesList) has(id string) bool {
	for _, pg := range p.Pages {
		if pg.ID == id {
			return true
		}
	}
	return false
}

type leasesList struct {
	Leases []struct {
		TargetID string `json:"targetId"`
		Label    string `json:"label"`
		PID      int    `json:"pid"`
		Client   string `json:"client"`
		Auto     bool   `json:"auto"`
		Stale    bool   `json:"stale"`
		Reason   string `json:"reason"`
	} `json:"leases"`
}

// markerPage is a page whose button leaves a marker in the page.
func markerPage(t *testing.T) string {
	t.Helper()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>lease `+r.URL.Path+`</title>
<button onclick="document.getElementById('m').textContent='marker-'+'touched'">Mark</button>
<p id="m">marker-clean</p>`)
	}))
	return srv.URL
}

// TestLeaseStranger is the seed's lease smoke test with separate
// processes: the owner acts; a tokenless stranger is refused by every
// selector form with LEASE_CONFLICT naming the tab and holder, and the
// page's marker proves nothing happened; a missing tab is still
// TARGET_NOT_FOUND; the stranger is admitted after release; a lease
// orphaned by a child that exited is reclaimable with a fresh nonce.
func TestLeaseStranger(t *testing.T) {
	t.Parallel()
	sb := startSharedBrowser(t)
	site := markerPage(t)
	owner := startAgent(t, sb, "owner")
	stranger := startAgent(t, sb, "stranger")

	var c claimed
	owner.ok(t, "claim_page", map[string]any{"label": "checkout-agent"}, &c)
	if c.Lease == "" || !c.Opened || c.Label != "checkout-agent" {
		t.Fatalf("claim_page = %+v", c)
	}
	owner.ok(t, "navigate_page", map[string]any{"lease": c.Lease, "url": site + "/owned"}, nil)
	if snap := owner.ok(t, "take_snapshot", map[string]any{"lease": c.Lease}, nil); !strings.Contains(snap, "marker-clean") {
		t.Fatalf("owner's snapshot lacks the marker:\n%s", snap)
	}

	var pages pagesList
	stranger.ok(t, "list_pages", nil, &pages)
	index := -1
	for _, p := range pages.Pages {
		if p.ID == c.TargetID {
			index = p.Index
			if p.Origin != "agent" || p.Label != "checkout-agent" {
				t.Errorf("ledger row %+v: want origin agent, label checkout-agent", p)
			}
		}
	}
	if index < 0 {
		t.Fatalf("the stranger does not see the tab %s: %+v", c.TargetID, pages)
	}
	for _, sel := range []string{c.TargetID, "index:" + strconv.Itoa(index), "url:/owned", "title:lease /owned"} {
		msg := stranger.refused(t, "LEASE_CONFLICT", "click", map[string]any{"target": sel, "selector": "button"})
		if !strings.Contains(msg, c.TargetID) || !strings.Contains(msg, "checkout-agent") || !strings.Contains(msg, "/owned") {
			t.Errorf("refusal %q does not name the tab, its url and the holder", msg)
		}
	}
	// Not even a read, and not a forged token.
	stranger.refused(t, "LEASE_CONFLICT", "take_snapshot", map[string]any{"target": c.TargetID})
	stranger.refused(t, "LEASE_CONFLICT", "click", map[string]any{"lease": c.Lease + "0", "selector": "button"})
	if snap := owner.ok(t, "take_snapshot", map[string]any{"lease": c.Lease}, nil); !strings.Contains(snap, "marker-clean") {
		t.Fatalf("a refused call changed the page:\n%s", snap)
	}
	// The owner too needs its token for an explicit lease.
	owner.refused(t, "LEASE_CONFLICT", "click", map[string]any{"target": c.TargetID, "selector": "button"})

	stranger.refused(t, "TARGET_NOT_FOUND", "click", map[string]any{"target": "0123456789ABCDEF0123456789ABCDEF", "selector": "button"})

	var rel struct{ Released, Closed bool }
	owner.ok(t, "release_page", map[string]any{"lease": c.Lease, "close": false}, &rel)
	if !rel.Released || rel.Closed {
		t.Fatalf("release_page = %+v, want released and left open", rel)
	}
	stranger.ok(t, "click", map[string]any{"target": c.TargetID, "selector": "button"}, nil)
	if snap := stranger.ok(t, "take_snapshot", map[string]any{"target": c.TargetID}, nil); !strings.Contains(snap, "marker-touched") {
		t.Fatalf("the admitted click left no marker:\n%s", snap)
	}

	// A child claims the tab and exits: its lease is orphaned.
	child := startAgent(t, sb, "doomed")
	var orphan claimed
	child.ok(t, "claim_page", map[string]any{"targetId": c.TargetID, "label": "doomed"}, &orphan)
	if orphan.Opened {
		t.Error("claiming an open tab says it opened it")
	}
	stranger.refused(t, "LEASE_CONFLICT", "click", map[string]any{"target": c.TargetID, "selector": "button"})
	child.stop(t)
	var leases leasesList
	stranger.ok(t, "list_leases", nil, &leases)
	if len(leases.Leases) != 1 || leases.Leases[0].Reason != "dead-pid" || !leases.Leases[0].Stale {
		t.Errorf("list_leases after the child exited = %+v, want one dead-pid row", leases)
	}
	if raw := stranger.ok(t, "list_leases", nil, nil); strings.Contains(raw, strings.Split(orphan.Lease, ":")[2]) {
		t.Errorf("list_leases shows a nonce: %s", raw)
	}
	var again claimed
	stranger.ok(t, "claim_page", map[string]any{"targetId": c.TargetID}, &again)
	if again.Lease == orphan.Lease || again.TargetID != c.TargetID {
		t.Errorf("reclaimed lease %q, orphan %q: want a fresh nonce on the same tab", again.Lease, orphan.Lease)
	}
	owner.refused(t, "LEASE_CONFLICT", "click", map[string]any{"lease": orphan.Lease, "selector": "button"})
}

type newPageResult struct {
	ID    string `json:"id"`
	Lease string `json:"lease"`
	Auto  bool   `json:"auto"`
}

// TestLeaseStrict runs strict mode (--require-lease) in separate
// processes: calls auto-acquire, a second strict process is refused,
// release_page{target} closes only what cdpkit opened, reap closes a dead
// owner's tab and nothing else, and claim_page{target: "active"} takes
// over a tab cdpkit did not open and leaves it open on release.
func TestLeaseStrict(t *testing.T) {
	t.Parallel()
	sb := startSharedBrowser(t)
	site := markerPage(t)
	s1 := startAgent(t, sb, "strict-1", "--require-lease")
	s2 := startAgent(t, sb, "strict-2", "--require-lease")

	var t1 newPageResult
	s1.ok(t, "new_page", map[string]any{"url": site + "/s1"}, &t1)
	if !t1.Auto || t1.Lease != "" {
		t.Errorf("strict new_page = %+v, want an auto lease and no token", t1)
	}
	s1.ok(t, "click", map[string]any{"target": t1.ID, "selector": "button"}, nil)
	for _, sel := range []string{t1.ID, "url:/s1"} {
		s2.refused(t, "LEASE_CONFLICT", "take_snapshot", map[string]any{"target": sel})
	}

	// An ordinary call on a tab nobody holds acquires it.
	human := sb.openRaw(t, site+"/human")
	s1.ok(t, "take_snapshot", map[string]any{"target": human}, nil)
	var leases leasesList
	s1.ok(t, "list_leases", nil, &leases)
	found := false
	for _, l := range leases.Leases {
		if l.TargetID == human {
			found = true
			if !l.Auto || l.PID != s1.cmd.Process.Pid {
				t.Errorf("auto-acquired lease %+v: want auto, pid %d", l, s1.cmd.Process.Pid)
			}
		}
	}
	if !found {
		t.Fatalf("no lease on %s after a strict call: %+v", human, leases)
	}
	s2.refused(t, "LEASE_CONFLICT", "take_snapshot", map[string]any{"target": human})

	var rel struct{ Released, Closed bool }
	s1.ok(t, "release_page", map[string]any{"target": human}, &rel)
	if !rel.Released || rel.Closed {
		t.Errorf("release_page{target} of a tab cdpkit did not open = %+v, want released, left open", rel)
	}
	s1.ok(t, "release_page", map[string]any{"target": t1.ID}, &rel)
	if !rel.Released || !rel.Closed {
		t.Errorf("release_page{target} of a tab cdpkit opened = %+v, want released and closed", rel)
	}
	var pages pagesList
	s2.ok(t, "list_pages", nil, &pages)
	if !pages.has(human) || pages.has(t1.ID) {
		t.Errorf("after the releases: %+v; want %s open and %s closed", pages, human, t1.ID)
	}
	// Explicitly claimed, a tab cdpkit did not open still stays open.
	var c claimed
	s1.ok(t, "claim_page", map[string]any{"targetId": human}, &c)
	s1.ok(t, "release_page", map[string]any{"lease": c.Lease}, &rel)
	if !rel.Released || rel.Closed {
		t.Errorf("release_page{lease} of a claimed tab = %+v, want released, left open", rel)
	}

	// Reap: a strict child opens a tab and dies; the next listing closes
	// that tab, and only that one.
	doomed := startAgent(t, sb, "doomed", "--require-lease")
	var dt newPageResult
	doomed.ok(t, "new_page", map[string]any{"url": site + "/doomed"}, &dt)
	var keep newPageResult
	s1.ok(t, "new_page", map[string]any{"url": site + "/keep"}, &keep)
	doomed.stop(t)
	var before pagesList
	s1.ok(t, "list_pages", nil, &before) // s1 reaps too; read what s2 sees after
	reaped := before.Reaped
	s2.ok(t, "list_pages", nil, &pages)
	reaped = append(reaped, pages.Reaped...)
	if len(reaped) != 1 || reaped[0].TargetID != dt.ID || reaped[0].Reason != "dead-pid" {
		t.Errorf("reaped %+v, want only %s for dead-pid", reaped, dt.ID)
	}
	if pages.has(dt.ID) || !pages.has(keep.ID) || !pages.has(human) {
		t.Errorf("after reap: %+v; want %s gone, %s and %s open", pages, dt.ID, keep.ID, human)
	}

	// Takeover of a tab already open, then a selector matching nothing.
	other := sb.openRaw(t, site+"/takeover")
	s1.ok(t, "select_page", map[string]any{"target": other}, nil)
	s1.ok(t, "claim_page", map[string]any{"target": "active", "label": "continuing-agent"}, &c)
	if c.Opened || c.TargetID != other {
		t.Fatalf("claim_page{target: active} = %+v, want %s taken over, not opened", c, other)
	}
	s1.ok(t, "click", map[string]any{"lease": c.Lease, "selector": "button"}, nil)
	s2.refused(t, "LEASE_CONFLICT", "click", map[string]any{"target": other, "selector": "button"})
	s1.ok(t, "release_page", map[string]any{"lease": c.Lease}, &rel)
	s2.ok(t, "list_pages", nil, &before)
	if !before.has(other) {
		t.Errorf("the taken-over tab %s was closed on release", other)
	}
	s1.refused(t, "TARGET_NOT_FOUND", "claim_page", map[string]any{"target": "url:/no-such-tab"})
	s2.ok(t, "list_pages", nil, &pages)
	if len(pages.Pages) != len(before.Pages) {
		t.Errorf("a claim matching nothing changed the tabs: %d → %d", len(before.Pages), len(pages.Pages))
	}
}

// startServeAgents starts `cdpkit serve` attached to sb and opens n MCP
// sessions on it.
func startServeAgents(t *testing.T, sb *sharedBrowser, n int, args ...string) []*agent {
	t.Helper()
	s := startServeEnv(t, []string{"CDPKIT_STATE_DIR=" + sb.stateDir}, append([]string{"--tools", "full", "--browser-url", sb.url}, args...)...)
	var out []*agent
	for i := range n {
		client := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "0"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := &agent{name: fmt.Sprintf("session-%d", i), session: cs, stderr: &bytes.Buffer{}}
		t.Cleanup(func() { cs.Close() })
		out = append(out, a)
	}
	return out
}

// TestLeaseHTTPSessions: two sessions of one `cdpkit serve` are two
// owners. Neither can use or give back the other's explicit lease, nor
// see it; each keeps its own.
func TestLeaseHTTPSessions(t *testing.T) {
	t.Parallel()
	sb := startSharedBrowser(t)
	site := markerPage(t)
	ss := startServeAgents(t, sb, 2)
	a, b := ss[0], ss[1]
	var ca, cb claimed
	a.ok(t, "claim_page", nil, &ca)
	b.ok(t, "claim_page", nil, &cb)
	a.ok(t, "navigate_page", map[string]any{"lease": ca.Lease, "url": site + "/a"}, nil)

	b.refused(t, "TARGET_NOT_FOUND", "click", map[string]any{"lease": ca.Lease, "selector": "button"})
	b.refused(t, "TARGET_NOT_FOUND", "release_page", map[string]any{"lease": ca.Lease})
	b.refused(t, "TARGET_NOT_FOUND", "claim_page", map[string]any{"targetId": ca.TargetID})
	a.refused(t, "TARGET_NOT_FOUND", "take_snapshot", map[string]any{"lease": cb.Lease})
	if snap := a.ok(t, "take_snapshot", map[string]any{"lease": ca.Lease}, nil); !strings.Contains(snap, "marker-clean") {
		t.Errorf("session a's tab changed:\n%s", snap)
	}

	var la, lb leasesList
	a.ok(t, "list_leases", nil, &la)
	b.ok(t, "list_leases", nil, &lb)
	if len(la.Leases) != 1 || la.Leases[0].TargetID != ca.TargetID || len(lb.Leases) != 1 || lb.Leases[0].TargetID != cb.TargetID {
		t.Fatalf("list_leases: a %+v, b %+v; want each its own only", la, lb)
	}
	if ca, cb := la.Leases[0].Client, lb.Leases[0].Client; ca == cb || !strings.HasPrefix(ca, "http-") {
		t.Errorf("clients %q and %q: want two distinct HTTP owners", ca, cb)
	}
	// The explicit lease fences its tab from its own session too.
	a.refused(t, "LEASE_CONFLICT", "click", map[string]any{"target": ca.TargetID, "selector": "button"})
}

// cliAgent runs CLI calls of one session whose daemon attaches to sb and
// keeps its leases in sb's state dir.
type cliAgent struct {
	e cliEnv
}

func startCLIAgent(t *testing.T, sb *sharedBrowser, session string) *cliAgent {
	t.Helper()
	tmp := t.TempDir()
	c := &cliAgent{e: cliEnv{tmp: tmp, state: sb.stateDir, session: session}}
	c.e.env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"),
		"CDPKIT_STATE_DIR="+sb.stateDir, "CDPKIT_SESSION="+session, "CDPKIT_REQUIRE_LEASE=")
	t.Cleanup(func() {
		if _, stderr, code := c.e.run(t, "close"); code != 0 {
			t.Errorf("close %s: exit %d: %s", session, code, stderr)
		}
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(sb.stateDir, session+".log"))
			t.Logf("%s log:\n%s", session, b)
		}
	})
	return c
}

// TestLeaseCLI: the daemon holds a CLI session's leases across calls, so
// two CLI sessions whose daemons attach to one browser refuse each other's
// explicit leases; a token minted over MCP works with --lease.
func TestLeaseCLI(t *testing.T) {
	t.Parallel()
	sb := startSharedBrowser(t)
	site := markerPage(t)
	a := startCLIAgent(t, sb, "lease-a")
	b := startCLIAgent(t, sb, "lease-b")

	out := a.e.ok(t, "--browser-url", sb.url, "--json", "claim")
	var c claimed
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Lease == "" {
		t.Fatalf("cdpkit claim printed %q (%v)", out, err)
	}
	a.e.ok(t, "--lease", c.Lease, "open", site+"/cli-a")
	_, stderr, code := b.e.run(t, "--browser-url", sb.url, "snapshot", "--target", c.TargetID)
	if code != 1 || !strings.Contains(stderr, "LEASE_CONFLICT") || !strings.Contains(stderr, "cli:lease-a") {
		t.Fatalf("session b on a's tab: exit %d, stderr %q; want LEASE_CONFLICT naming cli:lease-a", code, stderr)
	}
	if snap := a.e.ok(t, "--lease", c.Lease, "snapshot"); !strings.Contains(snap, "marker-clean") {
		t.Fatalf("a refused call changed the page:\n%s", snap)
	}

	// A token minted over MCP, used from the CLI.
	m := startAgent(t, sb, "mcp")
	var mc claimed
	m.ok(t, "claim_page", map[string]any{"label": "mcp-agent"}, &mc)
	m.ok(t, "navigate_page", map[string]any{"lease": mc.Lease, "url": site + "/mcp"}, nil)
	if _, stderr, code := b.e.run(t, "snapshot", "--target", mc.TargetID); code != 1 || !strings.Contains(stderr, "LEASE_CONFLICT") {
		t.Errorf("tokenless CLI call on the MCP agent's tab: exit %d, %q", code, stderr)
	}
	snap := b.e.ok(t, "--lease", mc.Lease, "snapshot")
	b.e.ok(t, "--lease", mc.Lease, "click", refOf(t, snap, "button", "Mark"))
	if snap := m.ok(t, "take_snapshot", map[string]any{"lease": mc.Lease}, nil); !strings.Contains(snap, "marker-touched") {
		t.Errorf("the CLI call with the MCP token left no marker:\n%s", snap)
	}
	a.e.ok(t, "release", c.Lease, "--close=false")
	b.e.ok(t, "snapshot", "--target", c.TargetID)
	b.e.ok(t, "--json", "release_page", "--target", c.TargetID) // nothing held: releases nothing, closes nothing
	b.e.ok(t, "snapshot", "--target", c.TargetID)
}

// TestLeaseConcurrentClaims: 50 claim_page calls on one tab at once, 10
// from each of 5 cdpkit processes, make exactly one holder.
func TestLeaseConcurrentClaims(t *testing.T) {
	t.Parallel()
	sb := startSharedBrowser(t)
	target := sb.openRaw(t, "about:blank")
	const procs, each = 5, 10
	var agents []*agent
	for i := range procs {
		agents = append(agents, startAgent(t, sb, fmt.Sprintf("claimer-%d", i)))
	}
	type outcome struct{ code, text string }
	results := make(chan outcome, procs*each)
	for _, a := range agents {
		for range each {
			go func() {
				ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
				defer cancel()
				res, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: "claim_page", Arguments: map[string]any{"targetId": target}})
				if err != nil {
					results <- outcome{"protocol", err.Error()}
					return
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if !res.IsError {
					results <- outcome{"", text}
					return
				}
				code, _, _ := strings.Cut(strings.TrimPrefix(text, "["), "]")
				results <- outcome{code, text}
			}()
		}
	}
	won, refused := 0, 0
	for range procs * each {
		switch o := <-results; o.code {
		case "":
			won++
		case "LEASE_CONFLICT":
			refused++
		default:
			t.Errorf("claim_page: %s", o.text)
		}
	}
	if won != 1 || refused != procs*each-1 {
		t.Errorf("%d claims won and %d were refused; want 1 and %d", won, refused, procs*each-1)
	}
	var leases leasesList
	agents[0].ok(t, "list_leases", nil, &leases)
	if len(leases.Leases) != 1 || leases.Leases[0].TargetID != target || leases.Leases[0].Stale {
		t.Errorf("list_leases = %+v, want one live lease on %s", leases, target)
	}
}
