package cdpkit_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestFirefoxGoAPI drives Firefox through the public API, as it drives
// Chromium in TestTabMethods: the same form, filled and sent by ref. It
// launches its own Firefox (the package's one) and checks that Close
// leaves no process and no profile.
func TestFirefoxGoAPI(t *testing.T) {
	exe := browsertest.FirefoxPath(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the throwaway profile goes here
	srv := formPage(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	b, err := cdpkit.Launch(ctx, &cdpkit.Options{Browser: "firefox", ExecPath: exe, AllowEval: true,
		LaunchTimeout: 90 * time.Second, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("Launch firefox: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			b.Close()
		}
	}()
	tab, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tab.Navigate(ctx, srv.URL); err != nil || p.Title != "Form" {
		t.Fatalf("Navigate = %+v, %v; want the Form page", p, err)
	}
	snap, err := tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	name, color, send := snap.RefOf(`textbox "Name"`), snap.RefOf(`combobox "Color"`), snap.RefOf(`button "Send"`)
	if name == "" || color == "" || send == "" {
		t.Fatalf("snapshot lacks the form's refs:\n%s", snap.Text)
	}
	if _, err := tab.Fill(ctx, cdpkit.Ref(name), "Ada"); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if _, err := tab.Fill(ctx, cdpkit.Ref(color), "Green"); err != nil {
		t.Fatalf("Fill select: %v", err)
	}
	if _, err := tab.Click(ctx, cdpkit.Ref(send)); err != nil {
		t.Fatalf("Click: %v", err)
	}
	if _, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Sent Ada  g"}}); err != nil {
		t.Fatalf("WaitFor: %v", err)
	}
	shot, err := tab.Screenshot(ctx, nil)
	if err != nil || shot.Format != "png" || !bytes.HasPrefix(shot.Data, []byte("\x89PNG")) {
		t.Fatalf("Screenshot = %v, %v; want a PNG", shot, err)
	}
	v, err := tab.Evaluate(ctx, "(el) => el.value", cdpkit.Ref(name))
	if err != nil || string(v) != `"Ada"` {
		t.Fatalf("Evaluate = %s, %v; want \"Ada\"", v, err)
	}
	// Tools lists what the backend runs.
	list, err := cdpkit.Tools(&cdpkit.ToolOptions{Profile: "full", Browser: "firefox"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(list, func(tl *mcp.Tool) bool { return tl.Name == "take_heapsnapshot" }) {
		t.Error("Tools under firefox lists take_heapsnapshot")
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	closed = true
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	if left, _ := filepath.Glob(filepath.Join(tmp, "cdpkit-firefox-*")); len(left) > 0 {
		t.Errorf("profiles left: %v", left)
	}
}
