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
	if profiles != "" {
		if err := os.MkdirAll(profiles, 0o755); err != nil {
			return err
		}
	}
	cmd := exec.Command(cdpkit, "mcp", "--tools", "full")
	// The soak measures drift, not latency: a loaded machine must not turn
	// slow calls into failures.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"),
		"CDPKIT_TOOL_TIMEOUT="+callTimeout.String(), "CDPKIT_PPROF="+pprofAddr)
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
	call := func(name string, args map[string]any) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", err
		}
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if res.IsError {
			return "", errors.New(text)
		}
		return text, nil
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
	text, err := call("list_pages", nil)
	if err != nil {
		return err
	}
	var listed struct {
		Pages []struct {
			ID string `json:"id"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(text, "\n", 2)[0]), &listed); err != nil || len(listed.Pages) < tabs {
		return fmt.Errorf("list_pages = %.200s: want %d tabs (%v)", text, tabs, err)
	}
	pr := probe{pid: cmd.Process.Pid, tmp: tmp, pprof: pprofAddr, saveDir: profiles}
	ms := []memory{pr.measure(ctx, "start")}

	var (
		next     atomic.Int64
		done     atomic.Int64
		mu       sync.Mutex
		failures = map[string]int{}
		took     []time.Duration
		wg       sync.WaitGroup
	)
	began := time.Now()
	for _, p := range listed.Pages[:tabs] {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t0 := time.Now()
				_, err := call("navigate_page", map[string]any{"url": srv.URL + "/" + pages[i%len(pages)], "target": p.ID})
				d := time.Since(t0)
				mu.Lock()
				took = append(took, d)
				if err != nil {
					code, _, _ := strings.Cut(err.Error(), " ")
					failures[code]++
				}
				mu.Unlock()
				// The checkpoint is measured while the other tabs go on:
				// the soak is a steady load, not a series of pauses.
				if done.Add(1) == int64(at) && at < n {
					m := pr.measure(ctx, fmt.Sprintf("navigation %d", at))
					mu.Lock()
					ms = append(ms, m)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	ms = append(ms, pr.measure(ctx, fmt.Sprintf("navigation %d", n)))

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
