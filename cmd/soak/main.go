// Command soak drives `cdpkit mcp` through many navigations across the
// fixture pages in several tabs at once, as an agent would, and reports how
// cdpkit's memory and the browser's drifted from start to end. `make soak`
// runs it; it is not part of `make test`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// soakPages are the fixture pages navigated in turn: ones that load and
// settle on their own (no dialogs, no deliberately slow resources).
var soakPages = []string{
	"app.html", "big.html", "form.html", "forms-fields.html", "hidden.html", "iframes.html",
	"landmarks.html", "list.html", "nav-links.html", "nav-one.html", "nav-two.html", "pointer-click.html",
}

// callTimeout bounds one tool call.
const callTimeout = 60 * time.Second

func main() {
	cdpkit := flag.String("cdpkit", "bin/cdpkit", "the cdpkit binary")
	n := flag.Int("n", 1000, "navigations in all")
	tabs := flag.Int("tabs", 4, "tabs navigated at once")
	at := flag.Int("at", 100, "also measure after this many navigations; growth is reported from here to the end")
	profiles := flag.String("profiles", "", "keep cdpkit's heap profiles (start, at, end) in this directory for go tool pprof")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *cdpkit, *n, *tabs, *at, *profiles); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, cdpkit string, n, tabs, at int, profiles string) error {
	if tabs < 1 || n < tabs {
		return errors.New("want at least one tab and one navigation per tab")
	}
	var pages []string
	for _, p := range soakPages {
		if _, err := fs.Stat(fixtures.Pages(), p); err == nil {
			pages = append(pages, p)
		}
	}
	if len(pages) == 0 {
		return errors.New("none of the soak pages is among the fixtures")
	}
	srv := httptest.NewServer(http.FileServerFS(fixtures.Pages()))
	defer srv.Close()

	// A TMPDIR of its own, so the browser's processes are those whose
	// command line names it.
	tmp, err := os.MkdirTemp("", "cdpkit-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pprofAddr, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	cmd := exec.Command(cdpkit, "mcp", "--tools", "full")
	// The soak measures drift, not latency: a loaded machine must not turn
	// slow calls into failures.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"),
		"CDPKIT_TOOL_TIMEOUT="+callTimeout.String(), "CDPKIT_PPROF="+pprofAddr)
	if profiles != "" {
		if err := os.MkdirAll(profiles, 0o755); err != nil {
			return err
		}
		// The default rate samples one allocation per 512 KiB: too coarse
		// to tell a few MB of growth apart. One per 4 KiB costs the soak
		// some speed, which it does not measure.
		cmd.Env = append(cmd.Env, "GODEBUG=memprofilerate=4096")
	}
	stderr := &sysproc.Tail{Max: 16 << 10}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-soak", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting %s mcp: %w\n%s", cdpkit, err, stderr.String())
	}
	defer func() {
		session.Close()
		cmd.Wait()
	}()
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			return nil, errors.New(text)
		}
		return res, nil
	}

	// Open the tabs, each on a first page.
	if _, err := call("navigate_page", map[string]any{"url": srv.URL + "/" + pages[0]}); err != nil {
		return fmt.Errorf("first navigation: %w", err)
	}
	for i := 1; i < tabs; i++ {
		if _, err := call("new_page", map[string]any{"url": srv.URL + "/" + pages[i%len(pages)], "background": true}); err != nil {
			return fmt.Errorf("opening tab %d: %w", i, err)
		}
	}
	res, err := call("list_pages", nil)
	if err != nil {
		return err
	}
	// The page ids come from structuredContent; the text is for the agent.
	var listed struct {
		Pages []struct {
			ID string `json:"id"`
		} `json:"pages"`
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(raw, &listed)
	}
	if err != nil || len(listed.Pages) < tabs {
		return fmt.Errorf("list_pages structuredContent = %.200s: want %d tabs (%v)", raw, tabs, err)
	}
	pr := probe{pid: cmd.Process.Pid, tmp: tmp, pprof: pprofAddr, saveDir: profiles}
	ids := make([]string, tabs)
	for k, p := range listed.Pages[:tabs] {
		ids[k] = p.ID
	}
	// home is the page tab k shows when memory is measured: the page it
	// was opened on, so every measurement sees the same documents (a
	// checkpoint that caught one tab on big.html and another on
	// nav-one.html measured the pages, not the drift).
	home := func(k int) string { return srv.URL + "/" + pages[k%len(pages)] }
	// quiesce brings every tab home, one call at a time, after the soak's
	// calls have all returned: measurements are taken at a quiet point
	// between calls, never mid-call.
	quiesce := func(label string) memory {
		for k, id := range ids {
			if _, err := call("navigate_page", map[string]any{"url": home(k), "target": id}); err != nil {
				return memory{label: label, err: fmt.Errorf("bringing tab %d home before measuring at %s: %w", k, label, err)}
			}
		}
		return pr.measure(ctx, label)
	}
	ms := []memory{pr.measure(ctx, "start")}

	var (
		next     atomic.Int64
		mu       sync.Mutex
		failures = map[string]int{}
		took     []time.Duration
	)
	// navigate runs navigations up to (not including) number until,
	// tabs at once, and returns when all have returned.
	navigate := func(until int) {
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= until {
						next.Add(-1)
						return
					}
					t0 := time.Now()
					_, err := call("navigate_page", map[string]any{"url": srv.URL + "/" + pages[i%len(pages)], "target": id})
					d := time.Since(t0)
					mu.Lock()
					took = append(took, d)
					if err != nil {
						code, _, _ := strings.Cut(err.Error(), " ")
						failures[code]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	began := time.Now()
	var paused time.Duration
	if at > 0 && at < n {
		navigate(at)
		p0 := time.Now()
		ms = append(ms, quiesce(fmt.Sprintf("navigation %d", at)))
		paused = time.Since(p0)
	}
	navigate(n)
	elapsed := time.Since(began) - paused
	ms = append(ms, quiesce(fmt.Sprintf("navigation %d", n)))

	slices.Sort(took)
	pct := func(p float64) time.Duration { return took[int(p*float64(len(took)-1))].Round(time.Millisecond) }
	nFailed := 0
	for _, c := range failures {
		nFailed += c
	}
	fmt.Fprintf(out, "soak: %d navigations across %d fixture pages in %d tabs in %v (%.1f/s); per navigation p50 %v, p95 %v, max %v\n",
		n, len(pages), tabs, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), pct(0.5), pct(0.95), took[len(took)-1].Round(time.Millisecond))
	fmt.Fprintf(out, "failures: %d %v\n", nFailed, failures)
	report(out, ms)
	var errs []error
	for _, m := range ms {
		errs = append(errs, m.err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if nFailed > 0 {
		return fmt.Errorf("%d navigations failed", nFailed)
	}
	return nil
}
