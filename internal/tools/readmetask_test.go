package tools

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// readmeTaskApp is the README task's app: a login, a paginated list, a
// modal with a select and an upload, an iframe, and an Archive button whose
// confirm() fetches and then navigates.
func readmeTaskApp(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Login</title><form action="/items">
<label>Username <input name="user"></label><label>Password <input type="password" name="pw"></label>
<input type="hidden" name="page" value="1"><button>Sign in</button></form>`)
	})
	mux.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		user := r.URL.Query().Get("user")
		if page != "2" {
			fmt.Fprintf(w, `<!doctype html><title>Items 1</title><h1>Items of %s</h1><ul><li>Apple</li><li>Bucket</li></ul>
<a href="/items?page=2&user=%s">Next page</a>`, user, user)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Items 2</title><h1>Items, page 2</h1><ul><li>Crate</li></ul>
<button onclick="document.getElementById('m').showModal()">Edit Crate</button>
<dialog id="m"><label>Priority <select id="prio"><option>Low</option><option>High</option></select></label>
<label>Attachment <input type="file" id="file"></label>
<button onclick="document.getElementById('out').textContent = 'Saved: ' + prio.value + ', ' + file.files[0].name; m.close()">Save</button></dialog>
<p id="out"></p>
<iframe src="/help" title="Help"></iframe>
<button onclick="if (confirm('Archive Crate?')) fetch('/archive', {method: 'POST'}).then(() => location = '/archived')">Archive</button>`)
	})
	mux.HandleFunc("/help", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><p id="h">Tips</p><button onclick="h.textContent = 'Thanks'">Got it</button>`)
	})
	mux.HandleFunc("/archive", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/archived", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Archived</title><p>Archived Crate</p>`)
	})
	return browsertest.ServerHandler(t, mux).URL
}

// TestREADMETask runs the README task on the default (core) profile alone,
// as an agent would: refs only from a snapshot and from each action's
// result text. It counts the calls and the characters of result text the
// agent read (issue #24 item 8).
func TestREADMETask(t *testing.T) {
	t.Parallel()
	base := readmeTaskApp(t)
	h := newHarness(t, nil)
	core, err := Select("core")
	if err != nil {
		t.Fatal(err)
	}
	upload := filepath.Join(h.env.Artifacts.Dir(), "report.txt")
	if err := os.WriteFile(upload, []byte("quarterly report"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, chars := 0, 0
	call := func(tool, args string) string {
		t.Helper()
		if !slices.ContainsFunc(core, func(c Tool) bool { return c.Name == tool }) {
			t.Fatalf("%s is not in the core profile", tool)
		}
		res, err := h.result(t, tool, args)
		if err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		text, err := res.Render()
		if err != nil {
			t.Fatal(err)
		}
		calls++
		chars += len(text)
		t.Logf("%s %s →\n%s", tool, args, text)
		return text
	}
	ref := func(text, role, name string) string {
		t.Helper()
		m := regexp.MustCompile(`(?m)^[+~ ]*\s*(e\d+) ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %s %q in:\n%s", role, name, text)
		}
		return m[1]
	}
	arg := func(uid string, kv ...string) string {
		s := fmt.Sprintf(`{"uid":%q`, uid)
		for i := 0; i+1 < len(kv); i += 2 {
			s += fmt.Sprintf(`,%q:%s`, kv[i], kv[i+1])
		}
		return s + "}"
	}

	call("navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/login"))
	snap := call("take_snapshot", `{"interactive":true}`)
	call("fill", arg(ref(snap, "textbox", "Username"), "value", `"ada"`))
	call("fill", arg(ref(snap, "textbox", "Password"), "value", `"secret"`))
	list := call("click", arg(ref(snap, "button", "Sign in")))
	if !strings.Contains(list, "page=1") {
		t.Fatalf("sign-in did not reach the list:\n%s", list)
	}
	page2 := call("click", arg(ref(list, "link", "Next page")))
	modal := call("click", arg(ref(page2, "button", "Edit Crate")))
	call("fill", arg(ref(modal, "combobox", "Priority"), "value", `"High"`))
	call("upload_file", arg(ref(modal, "button", "Attachment"), "paths", fmt.Sprintf("[%q]", upload)))
	call("click", arg(ref(modal, "button", "Save")))
	if got := call("get_text", `{"selector":"#out"}`); !strings.Contains(got, "Saved: High, report.txt") {
		t.Fatalf("the modal did not save the select and the upload:\n%s", got)
	}
	call("click", arg(ref(page2, "button", "Got it")))
	confirm := call("click", arg(ref(page2, "button", "Archive")))
	if !strings.Contains(confirm, "dialog.type: confirm") {
		t.Fatalf("Archive opened no confirm:\n%s", confirm)
	}
	done := call("handle_dialog", `{"action":"accept"}`)
	if !strings.Contains(done, "/archived") {
		t.Fatalf("accepting the confirm did not navigate to /archived:\n%s", done)
	}
	final := call("take_snapshot", `{}`)
	if !strings.Contains(final, "Archived Crate") {
		t.Errorf("final page:\n%s", final)
	}
	t.Logf("README task on core: %d calls, %d characters of results", calls, chars)
}
