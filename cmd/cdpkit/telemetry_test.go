package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/telemetry/otlptest"
)

// TestMCPStdinCloseFlushesTelemetry: `cdpkit mcp --log-format json` with an
// OTLP endpoint logs a JSON record per call and the session's close, and
// exports its spans when stdin closes, before exiting.
func TestMCPStdinCloseFlushesTelemetry(t *testing.T) {
	t.Parallel()
	recv := otlptest.New(t)
	tmp := t.TempDir()
	cmd := exec.Command(binary, "mcp", "--log-format", "json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t), "OTEL_EXPORTER_OTLP_ENDPOINT="+recv.URL)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 90 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_pages"}); err != nil || res.IsError {
		t.Fatalf("list_pages: %v %v", err, res)
	}
	session.Close() // closes stdin; waits for the exit
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)

	var call, closed map[string]any
	for line := range strings.Lines(stderr.String()) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		switch m["msg"] {
		case "tool call":
			call = m
		case "session closed":
			closed = m
		}
	}
	if call == nil || call["command"] != "list_pages" || call["session_id"] != "stdio" || call["status"] != "success" {
		t.Errorf("tool call record = %v\nstderr:\n%s", call, stderr)
	}
	if closed == nil || closed["reason"] != "explicit" || closed["total_commands"] != float64(1) {
		t.Errorf("session closed record = %v, want reason explicit and 1 command", closed)
	}
	found := false
	for _, s := range recv.Spans() {
		found = found || s.Name == "browser/list_pages"
	}
	if !found {
		t.Errorf("no browser/list_pages span exported before exit (%d spans)", len(recv.Spans()))
	}
}

// TestServeMetricsListen serves /metrics beside the MCP endpoint: a call
// shows in the command histogram, and SIGTERM ends both.
func TestServeMetricsListen(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--token", "obs-token")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t), "CDPKIT_ARTIFACT_DIR="+tmp+"/artifacts")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var mcpURL, metricsURL string
	lines := bufio.NewScanner(stderr)
	urlRE := regexp.MustCompile(`url=(http://\S+)`)
	stuck := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	for (mcpURL == "" || metricsURL == "") && lines.Scan() {
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			if strings.HasSuffix(m[1], "/metrics") {
				metricsURL = m[1]
			} else {
				mcpURL = m[1]
			}
		}
	}
	go io.Copy(io.Discard, stderr)
	stuck.Stop()
	if mcpURL == "" || metricsURL == "" {
		t.Fatalf("did not read both urls from stderr (%q, %q)", mcpURL, metricsURL)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: mcpURL, HTTPClient: &http.Client{Transport: bearer{"obs-token"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_pages"}); err != nil || res.IsError {
		t.Fatalf("list_pages: %v %v", err, res)
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`browser_command_duration_milliseconds_count{status="success",tool="list_pages"} 1`,
		"browser_session_active 1",
		"browser_browsers_alive 1",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	// The same Host and Origin checks as /mcp (issue #40 item 15).
	for _, h := range []struct{ host, origin string }{{"evil.example", ""}, {"", "http://evil.example"}} {
		req, _ := http.NewRequest(http.MethodGet, metricsURL, nil)
		if h.host != "" {
			req.Host = h.host
		}
		if h.origin != "" {
			req.Header.Set("Origin", h.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("/metrics with Host %q Origin %q: %s, want 403", h.host, h.origin, resp.Status)
		}
	}
	cs.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("cdpkit serve did not exit within 30s of SIGTERM")
	}
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
}

func TestServeRefusesRemoteMetricsWithoutFlag(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "serve", "--metrics-listen", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--allow-remote") || strings.Contains(string(out), "token ") {
		t.Errorf("serve --metrics-listen 0.0.0.0 = %v, %s; want a refusal naming --allow-remote before any token", err, out)
	}
}
