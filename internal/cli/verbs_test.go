package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

func fakeDaemonFlag(name string) (known, takesValue bool) {
	takesValue, known = map[string]bool{"allow-eval": false, "executable-path": true, "idle-timeout": true}[name]
	return known, takesValue
}

func noEnv(string) string { return "" }

func cwdPath(name string) string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, name)
}

func TestParse(t *testing.T) {
	all := tools.All()
	tests := []struct {
		args     []string
		tool     string
		want     map[string]any
		session  string
		json     bool
		timeout  time.Duration
		daemon   []string
		savePath string
	}{
		{args: []string{"open", "http://x.test/"}, tool: "navigate_page", want: map[string]any{"url": "http://x.test/"}},
		{args: []string{"--session", "s1", "--json", "click", "@e3"}, tool: "click", want: map[string]any{"uid": "e3"}, session: "s1", json: true},
		{args: []string{"click", "e3", "--session=s2", "--dblClick"}, tool: "click", want: map[string]any{"uid": "e3", "dblClick": true}, session: "s2"},
		{args: []string{"snapshot", "-i", "--scope", "@e5"}, tool: "take_snapshot", want: map[string]any{"interactive": true, "scope": "e5"}},
		{args: []string{"snapshot", "--scope", "#main"}, tool: "take_snapshot", want: map[string]any{"scope": "#main"}},
		{args: []string{"fill", "e1", "a b"}, tool: "fill", want: map[string]any{"uid": "e1", "value": "a b"}},
		{args: []string{"type", "hello"}, tool: "type_text", want: map[string]any{"text": "hello"}},
		{args: []string{"press", "Control+A"}, tool: "press_key", want: map[string]any{"key": "Control+A"}},
		{args: []string{"back"}, tool: "navigate_page", want: map[string]any{"type": "back"}},
		{args: []string{"reload", "--ignoreCache"}, tool: "navigate_page", want: map[string]any{"type": "reload", "ignoreCache": true}},
		{args: []string{"tabs"}, tool: "list_pages", want: map[string]any{}},
		// A tool by name keeps its own --timeout (ms); a verb's is global.
		{args: []string{"navigate_page", "--url", "http://x.test/", "--timeout", "5000"}, tool: "navigate_page", want: map[string]any{"url": "http://x.test/", "timeout": int64(5000)}},
		{args: []string{"open", "http://x.test/", "--timeout", "10s"}, tool: "navigate_page", want: map[string]any{"url": "http://x.test/"}, timeout: 10 * time.Second},
		{args: []string{"click", "--json", `{"uid":"e2","force":true}`}, tool: "click", want: map[string]any{"uid": "e2", "force": true}},
		{args: []string{"click", "--json", `{"uid":"@e2"}`, "--json"}, tool: "click", want: map[string]any{"uid": "e2"}, json: true},
		{args: []string{"select_option", "--uid", "e1", "--values", "a", "--values", "b"}, tool: "select_option", want: map[string]any{"uid": "e1", "values": []any{"a", "b"}}},
		{args: []string{"select_option", "--uid", "e1", "--values", `["a","b"]`}, tool: "select_option", want: map[string]any{"uid": "e1", "values": []any{"a", "b"}}},
		{args: []string{"scroll", "--x", "10.5", "--direction", "down"}, tool: "scroll", want: map[string]any{"x": 10.5, "direction": "down"}},
		{args: []string{"scroll", "--y=-20"}, tool: "scroll", want: map[string]any{"y": -20.0}},
		{args: []string{"drag", "--from_uid", "@e1", "--to_uid", "@e2"}, tool: "drag", want: map[string]any{"from_uid": "e1", "to_uid": "e2"}},
		{args: []string{"click", "e1", "--force=false"}, tool: "click", want: map[string]any{"uid": "e1", "force": false}},
		{args: []string{"--allow-eval", "--executable-path", "/bin/chromium", "tabs", "--idle-timeout=5s"}, tool: "list_pages", want: map[string]any{},
			daemon: []string{"--allow-eval", "--executable-path=/bin/chromium", "--idle-timeout=5s"}},
		{args: []string{"screenshot", "out/shot.jpg"}, tool: "take_screenshot", want: map[string]any{"format": "jpeg"}, savePath: "out/shot.jpg"},
		// One rule for every verb: a path on the command line is the current
		// directory's; the daemon saves into the artifact dir and the CLI
		// moves the file there.
		{args: []string{"record", "stop", "out/run.mp4"}, tool: "stop_screen_recording", want: map[string]any{}, savePath: "out/run.mp4"},
		{args: []string{"record", "stop"}, tool: "stop_screen_recording", want: map[string]any{}},
		{args: []string{"screenshot", "--fullPage"}, tool: "take_screenshot", want: map[string]any{"fullPage": true}},
		{args: []string{"eval", "document.title"}, tool: "evaluate_script", want: map[string]any{"function": "() => (document.title\n)"}},
		{args: []string{"eval", "async () => 1"}, tool: "evaluate_script", want: map[string]any{"function": "async () => 1"}},
		{args: []string{"eval", "el => el.id", "--args", `["e1"]`}, tool: "evaluate_script", want: map[string]any{"function": "el => el.id", "args": []any{"e1"}}},
		{args: []string{"upload_file", "--uid", "e1", "--paths", "a.txt", "--paths", "/b.txt"}, tool: "upload_file",
			want: map[string]any{"uid": "e1", "paths": []any{cwdPath("a.txt"), "/b.txt"}}},
		{args: []string{"upload_file", "--uid", "e1", "--filePath", "a.txt"}, tool: "upload_file", want: map[string]any{"uid": "e1", "filePath": cwdPath("a.txt")}},
		{args: []string{"screenshot", "--filePath", "shots/a.png"}, tool: "take_screenshot", want: map[string]any{"filePath": "shots/a.png"}},
		{args: []string{"type", "--", "--not-a-flag"}, tool: "type_text", want: map[string]any{"text": "--not-a-flag"}},
		// Issue #24 item 13: forward, --timeout_ms, --params.
		{args: []string{"forward"}, tool: "navigate_page", want: map[string]any{"type": "forward"}},
		{args: []string{"click", "e1", "--timeout_ms", "2500"}, tool: "click", want: map[string]any{"uid": "e1", "timeout_ms": 2500}},
		{args: []string{"click", "--params", `{"uid":"e2"}`, "--json"}, tool: "click", want: map[string]any{"uid": "e2"}, json: true},
		// --selector (or --json) names the element instead of a ref (issue #24 bug 3).
		{args: []string{"click", "--selector", "#go"}, tool: "click", want: map[string]any{"selector": "#go"}},
		{args: []string{"click", "--json", `{"selector":"#go"}`}, tool: "click", want: map[string]any{"selector": "#go"}},
		{args: []string{"fill", "--selector", "#name", "ada"}, tool: "fill", want: map[string]any{"selector": "#name", "value": "ada"}},
		// click --help lists --text, --role and --name: each names the
		// element instead of the ref (issue 39).
		{args: []string{"click", "--text", "Sign in"}, tool: "click", want: map[string]any{"byText": "Sign in"}},
		{args: []string{"click", "--role", "button", "--name", "Save"}, tool: "click", want: map[string]any{"role": "button", "name": "Save"}},
		{args: []string{"hover", "--text", "Menu"}, tool: "hover", want: map[string]any{"byText": "Menu"}},
		// Verbs for get text, wait, select, upload, hover and tabs (issue 39).
		{args: []string{"get", "text"}, tool: "get_text", want: map[string]any{}},
		{args: []string{"get", "text", "@e4"}, tool: "get_text", want: map[string]any{"uid": "e4"}},
		{args: []string{"get", "text", "--selector", "main"}, tool: "get_text", want: map[string]any{"selector": "main"}},
		{args: []string{"get", "url"}, tool: "get_url", want: map[string]any{}},
		{args: []string{"wait", "Welcome"}, tool: "wait_for", want: map[string]any{"text": []any{"Welcome"}}},
		{args: []string{"wait", "Welcome", "Hello"}, tool: "wait_for", want: map[string]any{"text": []any{"Welcome", "Hello"}}},
		{args: []string{"wait", "--selector", "#done"}, tool: "wait_for", want: map[string]any{"selector": "#done"}},
		{args: []string{"select", "e4", "red"}, tool: "select_option", want: map[string]any{"uid": "e4", "values": []any{"red"}}},
		{args: []string{"select", "e4", "red", "blue"}, tool: "select_option", want: map[string]any{"uid": "e4", "values": []any{"red", "blue"}}},
		{args: []string{"select", "--selector", "#c", "red"}, tool: "select_option", want: map[string]any{"selector": "#c", "values": []any{"red"}}},
		{args: []string{"upload", "@e2", "a.txt", "/b.txt"}, tool: "upload_file", want: map[string]any{"uid": "e2", "paths": []any{cwdPath("a.txt"), "/b.txt"}}},
		{args: []string{"hover", "e7"}, tool: "hover", want: map[string]any{"uid": "e7"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			c, err := parse(tt.args, all, fakeDaemonFlag, noEnv)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if c.tool == nil || c.tool.Name != tt.tool {
				t.Fatalf("tool = %v, want %s", c.tool, tt.tool)
			}
			if !reflect.DeepEqual(c.args, tt.want) {
				t.Errorf("args = %#v, want %#v", c.args, tt.want)
			}
			wantSession := tt.session
			if wantSession == "" {
				wantSession = DefaultSession
			}
			if c.session != wantSession || c.json != tt.json || c.timeout != tt.timeout || c.savePath != tt.savePath {
				t.Errorf("got session %q json %v timeout %v savePath %q, want %q %v %v %q", c.session, c.json, c.timeout, c.savePath,
					wantSession, tt.json, tt.timeout, tt.savePath)
			}
			if !reflect.DeepEqual(c.daemon, tt.daemon) {
				t.Errorf("daemon flags = %q, want %q", c.daemon, tt.daemon)
			}
		})
	}
}

func TestParseSessionFromEnv(t *testing.T) {
	c, err := parse([]string{"tabs"}, tools.All(), fakeDaemonFlag, func(k string) string {
		if k == "CDPKIT_SESSION" {
			return "fromenv"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.session != "fromenv" {
		t.Errorf("session = %q, want fromenv", c.session)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"click"}, "usage: cdpkit click <ref>"},
		{[]string{"click", "e1", "e2"}, `unexpected argument "e2"`},
		{[]string{"click", "--selector", "#go", "e1"}, `unexpected argument "e1"`},
		{[]string{"click", "e1", "--timeout_ms", "soon"}, `--timeout_ms "soon"`},
		{[]string{"click", "--params", "e1"}, "--params e1: want a JSON object"},
		{[]string{"click", "--bogus", "1"}, "click has no argument --bogus"},
		{[]string{"navigate_page", "--timeout", "soon"}, `--timeout "soon": want an integer`},
		{[]string{"open", "http://x.test/", "--timeout", "5000"}, `--timeout "5000": want a duration`},
		{[]string{"click", "--force=maybe"}, "want true or false"},
		{[]string{"--session", "a/b", "tabs"}, `session name "a/b"`},
		{[]string{"--session", strings.Repeat("x", 65), "tabs"}, "session name"},
		{[]string{"tabs", "--json=notjson"}, "want bare --json for JSON output"},
		{[]string{"click", "--json", `{"uid":`}, "--json"},
		{[]string{"take_snapshot", "extra"}, "takes --argName value flags"},
		{[]string{"close", "now"}, "close takes no arguments"},
		{[]string{"open", "--session"}, "--session needs a value"},
		{[]string{"--nosuch", "tabs"}, "unknown flag --nosuch"},
		{[]string{"get"}, "get needs one of: text, url"},
		{[]string{"select", "e4"}, "usage: cdpkit select <ref> <value>..."},
		{[]string{"upload", "e4"}, "usage: cdpkit upload <ref> <path>..."},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := parse(tt.args, tools.All(), fakeDaemonFlag, noEnv)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCheckSession(t *testing.T) {
	for name, ok := range map[string]bool{"default": true, "a.b_c-1": true, strings.Repeat("x", 64): true,
		"": false, ".": false, "..": false, "a/b": false, "a b": false, strings.Repeat("x", 65): false, "ü": false} {
		if err := CheckSession(name); (err == nil) != ok {
			t.Errorf("CheckSession(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

func TestStateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	t.Setenv("CDPKIT_STATE_DIR", dir)
	got, err := StateDir()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(got)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("state dir %s: %v, mode %v; want 0700", got, err, fi.Mode())
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := StateDir(); err == nil || !strings.Contains(err.Error(), "want 0700") {
		t.Errorf("StateDir on a 0755 dir = %v, want a refusal", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Chmod(dir, 0o700)
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CDPKIT_STATE_DIR", link)
	if _, err := StateDir(); err == nil {
		t.Error("StateDir accepted a symlink")
	}
}

func TestResultObject(t *testing.T) {
	tests := []struct {
		structured string // "" for none
		text       string
		reset      bool
		want       string
	}{
		{`{"b":1,"a":"<x>"}`, "b: 1\na: <x>", false, `{"a":"<x>","b":1}`},
		{`{"b":1}`, "b: 1", true, `{"b":1,"sessionReset":true}`},
		{`{"url":"u","text":"e1 button \"Go\"\n"}`, "url: u\n\ne1 button \"Go\"", false, `{"url":"u","text":"e1 button \"Go\"\n"}`},
		{`{"changes":{"elements":["+ e1 link \"A\""]}}`, "\n+ e1 link \"A\"", false, `{"changes":{"elements":"+ e1 link \"A\"\n"}}`},
		{`{}`, "", true, `{"sessionReset":true}`},
		{"", "plain text", false, `{"text":"plain text"}`},
	}
	for _, tt := range tests {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tt.text}}}
		if tt.structured != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(tt.structured), &m); err != nil {
				t.Fatal(err)
			}
			res.StructuredContent = m
		}
		o, err := readResult(res)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(o.object(tt.reset)); got != tt.want {
			t.Errorf("object(%s, %v) = %s, want %s", tt.structured, tt.reset, got, tt.want)
		}
	}
}

func TestToolHelpCoversEveryArgument(t *testing.T) {
	for _, tool := range tools.All() {
		h := toolHelp(&tool, nil)
		for name := range tool.InputSchema.Properties {
			if !strings.Contains(h, "--"+name+" ") {
				t.Errorf("%s help lacks --%s:\n%s", tool.Name, name, h)
			}
		}
		for _, req := range tool.InputSchema.Required {
			if !strings.Contains(h, "--"+req) || !strings.Contains(h, "(required)") {
				t.Errorf("%s help does not mark %s required", tool.Name, req)
			}
		}
	}
}

// TestGroupHelp: `cdpkit record --help` and `cdpkit help record` print the
// group's verbs and exit 0 (issue 39: it exited 2).
func TestGroupHelp(t *testing.T) {
	for _, args := range [][]string{{"record", "--help"}, {"record", "-h"}, {"help", "record"}, {"get", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := Run(t.Context(), args, &stdout, &stderr, Options{Tools: tools.All(), Executable: "/nonexistent"})
			if code != 0 {
				t.Fatalf("exit %d, want 0; stderr %q", code, stderr.String())
			}
			group := args[0]
			if group == "help" {
				group = args[1]
			}
			wants := map[string][]string{"record": {"cdpkit record start", "cdpkit record stop [path]"}, "get": {"cdpkit get text [ref]", "cdpkit get url"}}[group]
			for _, want := range wants {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("help lacks %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}
