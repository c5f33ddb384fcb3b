package tools

import (
	"errors"
	"slices"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestEveryToolDeclaresNeeds keeps the capability table whole: a tool
// missing from it would be hidden from every backend but Chromium.
func TestEveryToolDeclaresNeeds(t *testing.T) {
	for _, tl := range All() {
		if _, ok := toolNeeds[tl.Name]; !ok {
			t.Errorf("%s is not in toolNeeds (capabilities.go): say what it needs from the backend", tl.Name)
		}
	}
	for name := range toolNeeds {
		if !slices.ContainsFunc(All(), func(tl Tool) bool { return tl.Name == name }) {
			t.Errorf("toolNeeds lists %s, which is no tool", name)
		}
	}
}

func TestForBackend(t *testing.T) {
	all := All()
	if got := ForBackend(all, BackendChromium); len(got) != len(all) {
		t.Errorf("chromium runs %d of %d tools, want all", len(got), len(all))
	}
	ff := ForBackend(all, BackendFirefox)
	for _, tl := range all {
		kept := slices.ContainsFunc(ff, func(x Tool) bool { return x.Name == tl.Name })
		lacks := slices.ContainsFunc(Needs(tl.Name), func(c Capability) bool { return slices.Contains(Lacks(BackendFirefox), c) })
		if kept == lacks {
			t.Errorf("%s: kept under firefox = %v, but firefox lacks one of its needs %v = %v", tl.Name, kept, Needs(tl.Name), lacks)
		}
	}
	// The core loop runs on Firefox.
	for _, name := range []string{"navigate_page", "take_snapshot", "click", "fill", "type_text", "press_key",
		"take_screenshot", "evaluate_script", "list_pages", "new_page", "select_page", "close_page", "handle_dialog", "wait_for"} {
		if !Supports(BackendFirefox, name) {
			t.Errorf("firefox does not offer %s", name)
		}
	}
	if Supports(BackendFirefox, "a_tool_nobody_declared") {
		t.Error("an undeclared tool is offered under firefox")
	}
}

func TestParseBackend(t *testing.T) {
	for in, want := range map[string]string{"": BackendChromium, "chromium": BackendChromium, "Chrome": BackendChromium, "firefox": BackendFirefox, " FIREFOX ": BackendFirefox} {
		if got, err := ParseBackend(in); err != nil || got != want {
			t.Errorf("ParseBackend(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseBackend("safari"); err == nil {
		t.Error("ParseBackend(safari): no error")
	}
}

func TestUnsupportedErrorCode(t *testing.T) {
	err := AsError(&driver.UnsupportedError{Backend: "firefox", What: "format webp"})
	if err.Code != Unsupported || err.Message != "firefox cannot do format webp" || err.Hint == "" {
		t.Errorf("got %+v, want UNSUPPORTED naming the argument, with a hint", err)
	}
	if !errors.Is(&driver.UnsupportedError{}, driver.ErrUnsupported) {
		t.Error("UnsupportedError does not unwrap to ErrUnsupported")
	}
}

// TestCapabilitiesFollowRoles: every capability a tool needs says which
// roles offer it, and Chromium, which plays every role, offers all of them.
func TestCapabilitiesFollowRoles(t *testing.T) {
	for _, c := range allCapabilities() {
		if c == CapUndeclared {
			if offers(BackendChromium, c) {
				t.Error("a backend offers CapUndeclared")
			}
			continue
		}
		if capRoles[c] == nil {
			t.Errorf("capability %s has no entry in capRoles: say which driver roles offer it", c)
		}
		if !offers(BackendChromium, c) {
			t.Errorf("chromium does not offer %s", c)
		}
	}
	if got := driver.Kinds(); !slices.Equal(got, []string{BackendChromium, BackendFirefox}) {
		t.Errorf("registered backends %v", got)
	}
}
