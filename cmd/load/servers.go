package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// token is the bearer token cdpkit serve is started with.
const token = "load-0123456789abcdef0123456789ab"

// playwrightMCPVersion is the Playwright MCP that `make bench-peers`
// installs (scripts/install-peers.sh); another version is refused so that
// a results file names what it measured.
const playwrightMCPVersion = "0.0.83"

// viewportW and viewportH are the page size every server's browser gets
// (cdpkit's default).
const viewportW, viewportH = 1280, 720

// kind is one server configuration measured.
type kind struct {
	name    string // as the tables and the JSON show it
	version string // filled in from the first initialize result
	// start launches the server with tmp as its TMPDIR and working
	// directory and returns its streamable HTTP endpoint.
	start func(ctx context.Context, tmp string) (*running, error)
	// dialect names the loop's tools and arguments on this server.
	dialect dialect
}

// running is a started server.
type running struct {
	cmd      *exec.Cmd
	endpoint string
	bearer   string // "" when the server takes no token
	stderr   *sysproc.Tail
}

// stop ends the server's process group (its browser with it) and waits.
func (r *running) stop() {
	if r.cmd.Process != nil {
		r.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { r.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			sysproc.KillGroup(r.cmd.Process.Pid)
			<-done
		}
		sysproc.KillGroup(r.cmd.Process.Pid) // anything it left behind
	}
}

// kinds returns the server configurations named in names (comma-separated
// in the flag), in that order.
func kinds(names []string, cdpkit, chromium, peers string) ([]*kind, error) {
	var ks []*kind
	for _, n := range names {
		switch n {
		case "cdpkit":
			ks = append(ks, cdpkitKind(n, cdpkit, chromium))
		case "cdpkit-isolated":
			ks = append(ks, cdpkitKind(n, cdpkit, chromium, "--isolate-sessions"))
		case "cdpkit-browsers2":
			ks = append(ks, cdpkitKind(n, cdpkit, chromium, "--browsers", "2"))
		case "playwright-mcp":
			k, err := playwrightKind(n, peers, chromium)
			if err != nil {
				return nil, err
			}
			ks = append(ks, k)
		default:
			return nil, fmt.Errorf("unknown server %q (want cdpkit, cdpkit-isolated, cdpkit-browsers2, playwright-mcp)", n)
		}
	}
	return ks, nil
}

// cdpkitFlags are added to every cdpkit serve (-cdpkit-flag), for A/B
// runs; cdpkitPprof is its CDPKIT_PPROF (-pprof).
var (
	cdpkitFlags []string
	cdpkitPprof string
)

var urlRE = regexp.MustCompile(`url=(http://\S+)`)

// cdpkitKind runs `cdpkit serve` with its session limits off and extra
// flags.
func cdpkitKind(name, bin, chromium string, extra ...string) *kind {
	return &kind{name: name, dialect: cdpkitDialect, start: func(ctx context.Context, tmp string) (*running, error) {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--max-sessions", "0", "--rate-limit", "0"}, extra...)
		args = append(args, cdpkitFlags...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_TOKEN="+token, "CHROMIUM_PATH="+chromium,
			"CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
		if cdpkitPprof != "" {
			cmd.Env = append(cmd.Env, "CDPKIT_PPROF="+cdpkitPprof)
		}
		sysproc.SetGroup(cmd, syscall.SIGKILL)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		r := &running{cmd: cmd, bearer: token, stderr: &sysproc.Tail{Max: 8 << 10}}
		found := make(chan string, 1)
		go func() {
			lines := bufio.NewScanner(stderr)
			for lines.Scan() {
				r.stderr.Write(append(lines.Bytes(), '\n'))
				if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
					found <- m[1]
					break
				}
			}
			close(found)
			io.Copy(r.stderr, stderr)
		}()
		select {
		case ep, ok := <-found:
			if !ok {
				r.stop()
				return nil, fmt.Errorf("%s did not log its URL:\n%s", name, r.stderr)
			}
			r.endpoint = ep
			return r, nil
		case <-ctx.Done():
			r.stop()
			return nil, ctx.Err()
		}
	}}
}

// playwrightKind runs Playwright MCP from the npm prefix dir over its HTTP
// transport, one browser with a context per client (--isolated), as
// cmd/bench's peers mode configures it.
func playwrightKind(name, dir, chromium string) (*kind, error) {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@playwright", "mcp", "package.json"))
	if err != nil {
		return nil, fmt.Errorf("@playwright/mcp is not installed under %s (run `make bench-peers`, or scripts/install-peers.sh %[1]s; -servers without playwright-mcp skips it)", dir)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if p.Version != playwrightMCPVersion {
		return nil, fmt.Errorf("@playwright/mcp %s is installed under %s, want %s", p.Version, dir, playwrightMCPVersion)
	}
	return &kind{name: name, version: p.Version, dialect: playwrightDialect, start: func(ctx context.Context, tmp string) (*running, error) {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		conf, err := json.Marshal(map[string]any{"browser": map[string]any{
			"browserName": "chromium",
			"isolated":    true,
			"launchOptions": map[string]any{
				"executablePath": chromium, "headless": true, "chromiumSandbox": false,
				"args": []string{fmt.Sprintf("--window-size=%d,%d", viewportW, viewportH), "--no-sandbox",
					"--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"},
			},
			"contextOptions": map[string]any{"viewport": map[string]int{"width": viewportW, "height": viewportH}},
		}})
		if err != nil {
			return nil, err
		}
		confPath := filepath.Join(tmp, "playwright-mcp.json")
		if err := os.WriteFile(confPath, conf, 0o600); err != nil {
			return nil, err
		}
		cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "playwright-mcp"), "--config", confPath,
			"--headless", "--isolated", "--executable-path", chromium, "--no-sandbox",
			"--output-dir", filepath.Join(tmp, "out"), "--viewport-size", fmt.Sprintf("%dx%d", viewportW, viewportH),
			"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--allowed-hosts", fmt.Sprintf("127.0.0.1:%d", port))
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
		cmd.Dir = tmp
		r := &running{cmd: cmd, endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), stderr: &sysproc.Tail{Max: 8 << 10}}
		cmd.Stdout, cmd.Stderr = r.stderr, r.stderr
		sysproc.SetGroup(cmd, syscall.SIGKILL)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		// Up when its port answers HTTP.
		for {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
			if err == nil {
				resp.Body.Close()
				return r, nil
			}
			select {
			case <-ctx.Done():
				r.stop()
				return nil, fmt.Errorf("%s did not listen: %w\n%s", name, ctx.Err(), r.stderr)
			case <-time.After(50 * time.Millisecond): // a measurement program, not a test
			}
		}
	}}, nil
}

// freePort returns a loopback port nothing listens on right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// bearer adds a token to every request, when there is one.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}
