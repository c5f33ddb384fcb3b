package browser

import (
	"strings"
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// reuseTree reads the whole page's tree as a snapshot does.
func reuseTree(t *testing.T, tab *Tab) *snapshot.Node {
	t.Helper()
	root, _, _, err := tab.axTree(t.Context(), "", DefaultSnapshotElements)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// reusedTab opens list.html and snapshots it until the third read reuses
// the second's tree, and returns that tree.
func reusedTab(t *testing.T) (*Tab, *snapshot.Node) {
	t.Helper()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/list.html"); err != nil {
		t.Fatal(err)
	}
	reuseTree(t, tab)
	second := reuseTree(t, tab)
	if third := reuseTree(t, tab); third != second {
		t.Fatal("the third snapshot of an unchanged page read the tree again, want the second's reused")
	}
	return tab, second
}

// pageChange runs js in the page without counting as a write on the
// session: a change the page makes by itself (a timer, a reply).
func pageChange(t *testing.T, tab *Tab, js string) {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	res, err := cdpapi.Call(cdp.ReadOnly(t.Context()), s, runtime.Evaluate, runtime.EvaluateParams{Expression: js})
	if err != nil || res.ExceptionDetails != nil {
		t.Fatalf("%s: %v %v", js, err, res.ExceptionDetails)
	}
}

// TestSnapshotReuse: an unchanged page's tree is reused, and every kind of
// change a snapshot shows, made by the page itself or by a command, is
// seen by the next snapshot.
func TestSnapshotReuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, js, want string
	}{
		{"text", `document.querySelector("h1").textContent = "Groceries"`, `heading "Groceries"`},
		{"attribute", `document.querySelector("#i1 button").setAttribute("aria-label", "Remove milk")`, `button "Remove milk"`},
		{"value", `document.querySelector("#add input").value = "Buy bread"`, `"Buy bread"`},
		{"checked", `document.querySelector("#i1 input").checked = true`, `checkbox "Done: Buy milk" checked`},
		{"focus", `document.querySelector("#i3 button").focus()`, `button "Delete Call Sam" focused`},
		{"style", `document.querySelector("#i2").style.display = "none"`, "!Write report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tab, reused := reusedTab(t)
			pageChange(t, tab, tt.js)
			root := reuseTree(t, tab)
			if root == reused {
				t.Fatalf("after %s the snapshot reused the old tree", tt.js)
			}
			text := snapshot.Format(root, tab.refs.refFor(), snapshot.Options{}).Text
			if absent, ok := strings.CutPrefix(tt.want, "!"); ok {
				if strings.Contains(text, absent) {
					t.Errorf("after %s the snapshot still shows %q:\n%s", tt.js, absent, text)
				}
			} else if !strings.Contains(text, tt.want) {
				t.Errorf("after %s the snapshot lacks %q:\n%s", tt.js, tt.want, text)
			}
		})
	}
	t.Run("write", func(t *testing.T) {
		t.Parallel()
		tab, reused := reusedTab(t)
		// A command that is not a read, changing nothing the token sees:
		// the tree is read again.
		if _, err := tab.Evaluate(t.Context(), "1", nil, driver.EvalLimits{}); err != nil {
			t.Fatal(err)
		}
		if reuseTree(t, tab) == reused {
			t.Error("after a command on the session the snapshot reused the old tree")
		}
	})
	t.Run("animation", func(t *testing.T) {
		t.Parallel()
		tab, reused := reusedTab(t)
		pageChange(t, tab, `document.querySelector("h1").animate([{opacity: 1}, {opacity: 0.5}], 600000)`)
		a, b := reuseTree(t, tab), reuseTree(t, tab)
		if a == reused || b == a || reuseTree(t, tab) == b {
			t.Error("a snapshot reused a tree while an animation ran")
		}
	})
	t.Run("refs", func(t *testing.T) {
		t.Parallel()
		tab, reused := reusedTab(t)
		first := snapshot.Format(reused, tab.refs.refFor(), snapshot.Options{}).Text
		res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != first {
			t.Errorf("a reused snapshot differs:\n%s\nwant\n%s", res.Text, first)
		}
	})
}
