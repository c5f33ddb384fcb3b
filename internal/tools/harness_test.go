package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// toolTimeout bounds each tool call of these tests that sets no timeout of
// its own: generous, since tests run in parallel on loaded machines.
const toolTimeout = 60 * time.Second

// shared is the package's one browser: a Manager started on first use and
// closed by TestMain. Its logs, at debug level, go to logs, so that tests
// can look for secrets in everything the browser layer logged.
var shared struct {
	once sync.Once
	m    *driver.Manager
	logs *logBuffer
}

func TestMain(m *testing.M) {
	browsertest.Main(m, func() error {
		if shared.m == nil {
			return closeBackends()
		}
		return errors.Join(shared.m.Close(), closeBackends())
	})
}

// sharedManager returns the package's browser Manager.
func sharedManager(t *testing.T) *driver.Manager {
	t.Helper()
	exe := browsertest.ExecPath(t)
	shared.once.Do(func() {
		shared.logs = &logBuffer{}
		log := slog.New(slog.NewTextHandler(shared.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		shared.m = driver.NewManager(browser.NewManager(&browser.Options{ExecPath: exe, Logger: log, URLPolicy: backendsPolicy()}).Backend(), nil)
	})
	return shared.m
}

// harness calls tools the way the MCP server and the CLI do, through
// Tool.Call with JSON arguments, for one test. By default it acts in a
// Scope of its own in the package's shared browser (its own browser
// context, so tests can run in parallel: no shared tabs, cookies or
// renderer processes); see harnessOptions for a browser of its own.
type harness struct {
	env   *Env
	scope *driver.Scope // nil with a browser of the test's own
	logs  *logBuffer    // env.Log's output, at debug level
	// checkChanges makes call fail the test when a result has no changes
	// section (every action reports one).
	checkChanges bool
}

// harnessOptions configure a harness. Nil means defaults.
type harnessOptions struct {
	// Browser, if set, gives the test a browser of its own, started with
	// these options (ExecPath and Logger are filled in). Only tests that
	// kill, crash, idle or relaunch the browser, or need launch options of
	// their own, or the unscoped view of every tab, should ask for one.
	Browser *browser.Options
}

// newHarness returns a harness whose Env allows evaluate_script and writes
// artifacts to a directory of the test's own.
func newHarness(t *testing.T, o *harnessOptions) *harness {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	h := &harness{logs: logs, env: &Env{Artifacts: artifacts, Log: log, Timeout: toolTimeout, AllowEval: true}}
	if o != nil && o.Browser != nil {
		bo := *o.Browser
		bo.ExecPath = browsertest.ExecPath(t)
		if bo.Logger == nil {
			bo.Logger = log
		}
		h.env.Browsers = driver.NewManager(browser.NewManager(&bo).Backend(), nil)
		t.Cleanup(func() {
			if err := h.env.Browsers.Close(); err != nil {
				t.Errorf("closing the browser: %v", err)
			}
		})
		return h
	}
	h.env.Browsers = sharedManager(t)
	h.scope = driver.NewScope(&driver.ScopeOptions{Isolate: true})
	h.env.Scope = h.scope
	t.Cleanup(func() {
		if b := browser.ManagerOf(h.env.Browsers.Backend()).Current(); b != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			b.CloseScope(ctx, h.scope)
		}
	})
	return h
}

// serveFixtures serves the fixture pages (internal/fixtures) for the test
// and returns their base URL.
func serveFixtures(t *testing.T) string {
	t.Helper()
	return browsertest.Server(t, fixtures.Pages()).URL
}

// toolNamed returns the declared tool called name.
func toolNamed(t *testing.T, name string) *Tool {
	t.Helper()
	for _, tl := range All() {
		if tl.Name == name {
			return &tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// result runs a tool with JSON arguments and returns its raw result.
func (h *harness) result(t *testing.T, name, args string) (*Result, error) {
	t.Helper()
	return toolNamed(t, name).Call(t.Context(), h.env, json.RawMessage(args))
}

// call runs a tool and returns its data as JSON-decoded values.
func (h *harness) call(t *testing.T, name, args string) (map[string]any, error) {
	t.Helper()
	res, err := h.result(t, name, args)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatalf("%s: encoding the result: %v", name, err)
	}
	t.Logf("%s %s → %s", name, args, truncate(string(raw), 400))
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatalf("%s: result %s is not a JSON object: %v", name, raw, err)
	}
	if _, ok := data["changes"].(map[string]any); h.checkChanges && !ok {
		t.Errorf("%s %s: result %s has no changes section", name, args, raw)
	}
	return data, nil
}

// mustCall is call failing the test on an error.
func (h *harness) mustCall(t *testing.T, name, args string) map[string]any {
	t.Helper()
	data, err := h.call(t, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return data
}

// wantCode checks that err is a tool error with code, whose message
// contains mention, with a hint; it returns the error.
func wantCode(t *testing.T, err error, code Code, mention string) *Error {
	t.Helper()
	var te *Error
	if !errors.As(err, &te) || te.Code != code || !strings.Contains(te.Message, mention) {
		t.Fatalf("error = %v, want %s mentioning %q", err, code, mention)
	}
	if te.Hint == "" {
		t.Errorf("error %v has no hint", te)
	}
	return te
}

// with returns a copy of h whose Env was changed by f, such as a shorter
// Timeout for one call.
func (h *harness) with(f func(env *Env)) *harness {
	h2 := *h
	env := *h.env
	f(&env)
	h2.env = &env
	return &h2
}

// callCtx runs a tool under ctx and returns its data as JSON-decoded
// values (a result that is no JSON object comes back under "value"). It
// needs no *testing.T, so it is safe to use from any goroutine.
func (h *harness) callCtx(ctx context.Context, name, args string) (map[string]any, error) {
	for _, tl := range All() {
		if tl.Name != name {
			continue
		}
		res, err := tl.Call(ctx, h.env, json.RawMessage(args))
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(res.Data)
		if err != nil {
			return nil, err
		}
		var data map[string]any
		if err := json.Unmarshal(raw, &data); err != nil {
			return map[string]any{"value": string(raw)}, nil
		}
		return data, nil
	}
	return nil, fmt.Errorf("no tool %s", name)
}

// browser returns the harness's browser, starting it if needed.
func (h *harness) browser(t *testing.T) *browser.Browser {
	t.Helper()
	b, err := browser.ManagerOf(h.env.Browsers.Backend()).Browser(t.Context())
	if err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	return b
}

// tab returns the tab selector resolves to in the harness's view ("" is
// the active tab), opening the scope's first tab if it has none.
func (h *harness) tab(t *testing.T, selector string) *browser.Tab {
	t.Helper()
	tab, err := h.browser(t).ResolveIn(t.Context(), h.scope, selector)
	if err != nil {
		t.Fatalf("resolving tab %q: %v", selector, err)
	}
	return tab
}

// allLogs is everything logged at debug level by the harness's tools and
// by the browser layer (of the shared browser: every test's).
func (h *harness) allLogs() string {
	s := h.logs.String()
	if shared.logs != nil {
		s += shared.logs.String()
	}
	return s
}

// truncate shortens s to at most n bytes, marking a cut with "...".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// logBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
