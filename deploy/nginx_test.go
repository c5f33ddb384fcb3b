// Package deploy holds deployment examples; its tests run them.
package deploy

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/coreloop"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cdpkit-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "cdpkit")
	if out, err := exec.Command("go", "build", "-o", binary, "../cmd/cdpkit").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cdpkit: %v\n%s", err, out)
		os.Exit(1)
	}
	browsertest.Main(m, func() error { return os.RemoveAll(dir) })
}

const token = "0123456789abcdef0123456789abcdef"

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// instance is one `cdpkit serve` child.
type instance struct {
	cmd  *exec.Cmd
	addr string // host:port it listens on
	tmp  string // its TMPDIR: its browser's processes carry it
	done chan struct{}
}

// serve starts `cdpkit serve` with id on a free loopback port and waits
// for it to listen.
func serve(t *testing.T, id string) *instance {
	t.Helper()
	tmp := t.TempDir()
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--instance-id", id, "--rate-limit", "0")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t),
		"CDPKIT_TOKEN="+token, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd, tmp: tmp, done: make(chan struct{})}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-in.done
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	})
	lines := bufio.NewScanner(stderr)
	urlRE := regexp.MustCompile(`url=http://(\S+)/mcp`)
	// A read takes no deadline: killing the process ends the scan.
	stuck := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	for in.addr == "" && lines.Scan() {
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			in.addr = m[1]
		}
	}
	stuck.Stop()
	go func() {
		for lines.Scan() {
		}
		cmd.Wait()
		close(in.done)
	}()
	if in.addr == "" {
		t.Fatalf("cdpkit serve --instance-id %s did not log its address", id)
	}
	return in
}

// startNginx runs deploy/nginx/cdpkit.conf in a child nginx with its own
// prefix, listening on a free loopback port, with the two instances'
// addresses in place of the file's; it returns the MCP endpoint.
func startNginx(t *testing.T, a, b string) string {
	t.Helper()
	exe, err := exec.LookPath("nginx")
	if err != nil {
		if exe, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			if os.Getenv("CDPKIT_REQUIRE_BROWSER") == "1" {
				t.Fatal("nginx is not installed: run make deps")
			}
			t.Skip("nginx is not installed (make deps installs it)")
		}
	}
	conf, err := os.ReadFile("nginx/cdpkit.conf")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := ln.Addr().String()
	ln.Close()
	site := strings.NewReplacer("127.0.0.1:8765", front, "127.0.0.1:8766", a, "127.0.0.1:8767", b).Replace(string(conf))
	prefix := t.TempDir()
	for _, d := range []string{"logs", "tmp"} {
		if err := os.Mkdir(filepath.Join(prefix, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers reach the temp prefix
	}
	main := fmt.Sprintf(`%s
daemon off;
worker_processes 1;
pid %[2]s/nginx.pid;
error_log stderr warn;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path %[2]s/tmp/body;
	proxy_temp_path %[2]s/tmp/proxy;
	fastcgi_temp_path %[2]s/tmp/fastcgi;
	uwsgi_temp_path %[2]s/tmp/uwsgi;
	scgi_temp_path %[2]s/tmp/scgi;
	include %[2]s/cdpkit.conf;
}
`, user, prefix)
	if err := os.WriteFile(filepath.Join(prefix, "cdpkit.conf"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file, not a pipe: the worker holds its copy of the descriptor
	// a moment after the master was killed.
	logf, err := os.Create(filepath.Join(prefix, "logs", "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	out := func() string { b, _ := os.ReadFile(logf.Name()); return string(b) }
	cmd := exec.Command(exe, "-p", prefix+"/", "-c", filepath.Join(prefix, "nginx.conf"), "-e", "stderr")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) // fast shutdown: the master stops its worker
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("nginx output:\n%s", out())
		}
	})
	browsertest.Eventually(t, 30*time.Second, func() error {
		select {
		case <-done:
			return fmt.Errorf("nginx exited: %s", out())
		default:
		}
		c, err := net.Dial("tcp", front)
		if err != nil {
			return err
		}
		return c.Close()
	})
	return "http://" + front + "/mcp"
}

// TestNginxTwoInstances runs the nginx example with two cdpkit serve
// instances behind it: 10 concurrent sessions all complete the core loop,
// spread over both instances; killing one fails its sessions' calls
// cleanly (an error, not a hang), and the other's sessions go on.
func TestNginxTwoInstances(t *testing.T) {
	site := browsertest.ServerHandler(t, coreloop.Handler()).URL
	a, b := serve(t, "cdpkit-a"), serve(t, "cdpkit-b")
	endpoint := startNginx(t, a.addr, b.addr)

	const n = 10
	sessions := make([]*mcp.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
			if err != nil {
				errs[i] = fmt.Errorf("connecting: %w", err)
				return
			}
			sessions[i] = cs
			_, errs[i] = coreloop.Round(t.Context(), cs, site, fmt.Sprint(i), 2*time.Minute)
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, cs := range sessions {
			if cs != nil {
				cs.Close()
			}
		}
	})
	onA := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("session %d: %v", i, err)
		} else if strings.HasPrefix(sessions[i].ID(), "cdpkit-a.") {
			onA++
		} else if !strings.HasPrefix(sessions[i].ID(), "cdpkit-b.") {
			t.Errorf("session %d has id %q, from neither instance", i, sessions[i].ID())
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if onA == 0 || onA == n {
		t.Fatalf("%d of %d sessions on instance a, want them spread over both", onA, n)
	}

	a.cmd.Process.Kill()
	<-a.done
	for i, cs := range sessions {
		wg.Go(func() {
			// The deadline only bounds a hang; the failure must come
			// from the proxy, not from it.
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			_, err := coreloop.Call(ctx, cs, "take_snapshot", nil)
			onKilled := strings.HasPrefix(cs.ID(), "cdpkit-a.")
			switch {
			case onKilled && err == nil:
				t.Errorf("session %d on the killed instance: take_snapshot succeeded", i)
			case onKilled && ctx.Err() != nil:
				t.Errorf("session %d on the killed instance: take_snapshot hung until its deadline: %v", i, err)
			case !onKilled && err != nil:
				t.Errorf("session %d on the live instance: %v", i, err)
			}
		})
	}
	wg.Wait()
}
