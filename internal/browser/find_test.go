package browser

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSearchList checks the discovery table of each OS: every browser
// family in its standard place, in the order cdpkit prefers.
func TestSearchList(t *testing.T) {
	env := map[string]string{
		"HOME":              "/Users/ann",
		"ProgramFiles":      `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`,
		"LocalAppData":      `C:\Users\ann\AppData\Local`,
	}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		goos       string
		first      string
		mustHave   []string
		mustNotAny []string
	}{
		{"linux", "chromium", []string{
			"chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "microsoft-edge",
			"brave-browser", "/opt/google/chrome/chrome", "/opt/microsoft/msedge/msedge",
			"/opt/brave.com/brave/brave", "/snap/bin/chromium",
		}, nil},
		{"darwin", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", []string{
			"/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
			"/Users/ann/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		}, nil},
		{"windows", `C:\Program Files\Google\Chrome\Application\chrome.exe`, []string{
			`C:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
			`C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe`,
			`C:\Program Files\Google\Chrome for Testing\Application\chrome.exe`,
			`C:\Users\ann\AppData\Local\Chromium\Application\chrome.exe`,
			`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
			`C:\Program Files\BraveSoftware\Brave-Browser\Application\brave.exe`,
			"chrome.exe", "msedge.exe",
		}, nil},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			list := SearchList(tc.goos, getenv)
			if len(list) == 0 || list[0] != tc.first {
				t.Fatalf("SearchList(%s)[0] = %v, want %q", tc.goos, list, tc.first)
			}
			for _, want := range tc.mustHave {
				if !slices.Contains(list, want) {
					t.Errorf("SearchList(%s) lacks %q", tc.goos, want)
				}
			}
		})
	}
	t.Run("darwin without HOME", func(t *testing.T) {
		for _, p := range SearchList("darwin", func(string) string { return "" }) {
			if p != "chromium" && p != "google-chrome" && !filepath.IsAbs(p) {
				t.Errorf("relative path %q in the list without HOME", p)
			}
		}
	})
}

func TestFindIn(t *testing.T) {
	found := map[string]bool{"/opt/google/chrome/chrome": true}
	isExec := func(p string) bool { return found[p] }
	onPath := map[string]string{"brave-browser": "/usr/bin/brave-browser"}
	lookPath := func(n string) (string, error) {
		if p, ok := onPath[n]; ok {
			return p, nil
		}
		return "", errors.New("not found")
	}
	list := SearchList("linux", nil)
	got, ok := findIn(list, lookPath, isExec)
	if !ok || got != "/usr/bin/brave-browser" {
		t.Errorf("findIn = %q, %v; want the PATH name first: /usr/bin/brave-browser", got, ok)
	}
	delete(onPath, "brave-browser")
	if got, ok = findIn(list, lookPath, isExec); !ok || got != "/opt/google/chrome/chrome" {
		t.Errorf("findIn = %q, %v; want /opt/google/chrome/chrome", got, ok)
	}
	delete(found, "/opt/google/chrome/chrome")
	if got, ok = findIn(list, lookPath, isExec); ok {
		t.Errorf("findIn = %q, want nothing found", got)
	}
}

// TestRealBinary checks that Debian's wrapper script gives way to the
// binary it runs (issue #25 item 8) and that anything else is kept.
func TestRealBinary(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "chrome")
	os.WriteFile(plain, []byte("#!/bin/sh\nexec /somewhere/chrome \"$@\"\n"), 0o755)
	if got := RealBinary(plain); got != plain {
		t.Errorf("RealBinary(other script) = %q, want it unchanged", got)
	}
	if got := RealBinary("/no/such/file"); got != "/no/such/file" {
		t.Errorf("RealBinary(missing) = %q, want it unchanged", got)
	}
	if !executable(debianBinary) {
		t.Skipf("%s is not installed here", debianBinary)
	}
	if got := RealBinary("/usr/bin/chromium"); got != debianBinary {
		t.Errorf("RealBinary(/usr/bin/chromium) = %q, want %q", got, debianBinary)
	}
	got, err := FindExecutable("/usr/bin/chromium")
	if err != nil || got != debianBinary {
		t.Errorf("FindExecutable(/usr/bin/chromium) = %q, %v; want %q", got, err, debianBinary)
	}
}

// TestQuietFlags checks the flags that keep an idle browser off the network
// (issue #25 item 8): no component updates, no variations, one
// --disable-features (Chromium reads only the last).
func TestQuietFlags(t *testing.T) {
	args := launchArgs("/p", "--remote-debugging-pipe", &Options{}, nil)
	for _, want := range []string{
		"--disable-component-update", "--disable-background-networking", "--disable-field-trial-config",
		"--no-pings", "--disable-extensions", "--disable-component-extensions-with-background-pages",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("launch args lack %s", want)
		}
	}
	n := 0
	for _, a := range args {
		if strings.HasPrefix(a, "--disable-features=") {
			n++
		}
		if strings.HasPrefix(a, "--load-extension") {
			t.Errorf("launch args carry %s", a)
		}
	}
	if n != 1 {
		t.Errorf("%d --disable-features flags, want 1", n)
	}
}
