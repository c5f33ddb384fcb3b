package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServe starts cdpkit serve as a user would, reads the URL and the
// generated token from stderr, drives a tool over HTTP, and stops it with
// SIGTERM leaving no browser behind.
func TestServe(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t),
		"CDPKIT_TOKEN=", "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var url, token string
	lines := bufio.NewScanner(stderr)
	tokenRE, urlRE := regexp.MustCompile(`token ([0-9a-f]{32})`), regexp.MustCompile(`url=(http://\S+)`)
	// A read cannot take a deadline: if the lines never come, killing the
	// process closes the pipe and ends the scan.
	stuck := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	for (url == "" || token == "") && lines.Scan() {
		if m := tokenRE.FindStringSubmatch(lines.Text()); m != nil {
			token = m[1]
		}
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	// The rest of stderr, read to its end (the process's exit).
	var rest strings.Builder
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
	}()
	stuck.Stop()
	if url == "" || token == "" {
		t.Fatalf("did not read the url (%q) and token (%q) from stderr", url, token)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_pages"})
	if err != nil || res.IsError {
		t.Fatalf("list_pages over HTTP: %v %v", err, res)
	}
	if got := string(data(t, res)); !strings.Contains(got, `"pages"`) {
		t.Errorf("list_pages = %s", got)
	}
	cs.Close()

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token got %d, want 401", resp.StatusCode)
	}
	if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
		t.Errorf("401 WWW-Authenticate = %q, want Bearer", got)
	}
	if !strings.HasSuffix(url, "/mcp") {
		t.Errorf("serve logged url %q, want the /mcp endpoint", url)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() {
		<-scanned // Wait closes the pipe: read it to its end first
		done <- cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("cdpkit serve did not exit within 15s of SIGTERM")
	}
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	// Shutting down is logged, with why (issue 39: nothing was).
	for _, want := range []string{`msg="cdpkit serve shutting down" reason=signal`, `msg="cdpkit serve stopped"`} {
		if !strings.Contains(rest.String(), want) {
			t.Errorf("serve's log after SIGTERM lacks %s:\n%s", want, rest.String())
		}
	}
}

func TestServeRefusesRemoteWithoutFlag(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "serve", "--listen", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--allow-remote") {
		t.Errorf("serve on 0.0.0.0 = %v, %s; want a refusal naming --allow-remote", err, out)
	}
}

// TestServeAttacks sends tools/call requests that a browser page or another
// local user could forge to a real `cdpkit serve`, in a live session (so
// only the defect under test can stop them), and checks that each gets its
// 4xx and runs no tool: the loopback page the call would load sees no
// request. A well-formed call in the same session then does load it.
func TestServeAttacks(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	page := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r) // the favicon
			return
		}
		hits.Add(1)
		fmt.Fprint(w, "<title>reached</title>")
	}))
	s := startServe(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	version := cs.InitializeResult().ProtocolVersion

	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"navigate_page","arguments":{"url":%q}}}`, page.URL+"/")
	huge := call[:len(call)-1] + `,"pad":"` + strings.Repeat("x", 4<<20) + `"}`
	tests := []struct {
		name   string
		mutate func(r *http.Request)
		body   string
		want   int
	}{
		{"wrong Host", func(r *http.Request) { r.Host = "evil.example" }, call, http.StatusForbidden},
		{"rebinding Host with port", func(r *http.Request) { r.Host = "attacker.test:" + r.URL.Port() }, call, http.StatusForbidden},
		{"evil Origin", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, call, http.StatusForbidden},
		{"null Origin", func(r *http.Request) { r.Header.Set("Origin", "null") }, call, http.StatusForbidden},
		{"missing token", func(r *http.Request) { r.Header.Del("Authorization") }, call, http.StatusUnauthorized},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", len(s.token))) }, call, http.StatusUnauthorized},
		{"token as a cookie", func(r *http.Request) {
			r.Header.Del("Authorization")
			r.Header.Set("Cookie", "token="+s.token)
		}, call, http.StatusUnauthorized},
		{"text/plain", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, call, http.StatusUnsupportedMediaType},
		{"oversized body", nil, huge, http.StatusRequestEntityTooLarge},
	}
	post := func(t *testing.T, body string, mutate func(*http.Request)) int {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Authorization", "Bearer "+s.token)
		r.Header.Set("Mcp-Session-Id", cs.ID())
		r.Header.Set("Mcp-Protocol-Version", version)
		if mutate != nil {
			mutate(r)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := post(t, tt.body, tt.mutate); got != tt.want {
				t.Errorf("status = %d, want %d", got, tt.want)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("refused requests loaded the page %d times", n)
	}
	// The same call, well formed, does run: the checks above were what
	// stopped the others.
	if got := post(t, call, nil); got != http.StatusOK {
		t.Errorf("the well-formed call got %d, want 200", got)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the well-formed call loaded the page %d times, want 1", n)
	}
}

// TestServeRemoteBind checks that a non-loopback --listen needs
// --allow-remote and a token, and warns when it has both.
func TestServeRemoteBind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		token string
		want  string // in the output
		serve bool   // it starts serving
	}{
		{"no --allow-remote", []string{"--listen", "0.0.0.0:0"}, "secret-token-for-the-test", "--allow-remote", false},
		{"no token", []string{"--listen", "0.0.0.0:0", "--allow-remote"}, "", "needs --token", false},
		{"both", []string{"--listen", "0.0.0.0:0", "--allow-remote"}, "secret-token-for-the-test", "non-loopback", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, append([]string{"serve"}, tt.args...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_TOKEN="+tt.token, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "a"))
			var out bytes.Buffer
			cmd.Stderr = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if tt.serve {
					t.Fatalf("serve exited (%v), want it serving:\n%s", err, out.String())
				}
				if err == nil {
					t.Errorf("serve exited 0, want a refusal")
				}
			case <-time.After(3 * time.Second):
				if !tt.serve {
					t.Fatalf("serve is still running, want a refusal")
				}
				cmd.Process.Signal(syscall.SIGTERM)
				<-exited
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out.String())
			}
		})
	}
}

// TestServe64Sessions opens 64 MCP sessions at once from one address
// against cdpkit serve with its default limits, each with its event
// stream open, and lists the tools in each: none is refused (issue #41
// item 1). Through the real binary, this also checks that serve wires
// the connection limits to the handler.
func TestServe64Sessions(t *testing.T) {
	t.Parallel()
	srv := startServe(t)
	url, token := srv.url, srv.token
	const n = 64
	errs := make([]error, n)
	sessions := make([]*mcp.ClientSession, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			sessions[i], errs[i] = mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}, nil)
		})
	}
	wg.Wait()
	for i, cs := range sessions {
		if cs != nil {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				_, errs[i] = cs.ListTools(ctx, nil)
			})
		}
	}
	wg.Wait()
	for _, cs := range sessions {
		if cs != nil {
			cs.Close()
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}
}

// TestServeOwnAddressAsHost serves on 0.0.0.0 with --allow-remote and
// checks that a client reaching it by one of the machine's own addresses
// (Host: that address) gets in, while a name that is not allowed is still
// refused (issue #40 item 16).
func TestServeOwnAddressAsHost(t *testing.T) {
	t.Parallel()
	var own []net.IP
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			own = append(own, n.IP)
		}
	}
	if len(own) == 0 {
		t.Skip("this machine has no non-loopback IPv4 address")
	}
	srv := startServe(t, "--listen", "0.0.0.0:0", "--allow-remote")
	_, port, err := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(srv.url, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(ip net.IP, host string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+net.JoinHostPort(ip.String(), port)+"/mcp", strings.NewReader(initialize))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Transport: bearer{srv.token}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, ip := range own {
		if got := post(ip, net.JoinHostPort(ip.String(), port)); got != http.StatusOK {
			t.Errorf("Host %s (the machine's own address): %d, want 200", ip, got)
		}
		if got := post(ip, "rebound.example:"+port); got != http.StatusForbidden {
			t.Errorf("Host rebound.example on %s: %d, want 403", ip, got)
		}
	}
}
