package browser

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// InstallHint is the command that installs a browser cdpkit can use.
const InstallHint = "install Chrome or Chromium (on Debian/Ubuntu: scripts/install-browser.sh), or pass --executable-path / set CHROMIUM_PATH"

// SearchList returns where cdpkit looks for a browser on goos, in order:
// bare names are looked up on PATH, absolute paths are checked as they are.
// It covers Chrome, Chromium, Chrome for Testing, Edge and Brave in their
// standard places; getenv supplies HOME, ProgramFiles, LocalAppData and
// the like.
func SearchList(goos string, getenv func(string) string) []string {
	switch goos {
	case "darwin":
		apps := []string{
			"Google Chrome.app/Contents/MacOS/Google Chrome",
			"Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
			"Chromium.app/Contents/MacOS/Chromium",
			"Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"Brave Browser.app/Contents/MacOS/Brave Browser",
		}
		var out []string
		for _, dir := range []string{"/Applications", filepath.Join(getenv("HOME"), "Applications")} {
			if dir == "Applications" { // no HOME
				continue
			}
			for _, a := range apps {
				out = append(out, dir+"/"+a)
			}
		}
		return append(out, "chromium", "google-chrome")
	case "windows":
		apps := []string{
			`Google\Chrome\Application\chrome.exe`,
			`Google\Chrome for Testing\Application\chrome.exe`,
			`Chromium\Application\chrome.exe`,
			`Microsoft\Edge\Application\msedge.exe`,
			`BraveSoftware\Brave-Browser\Application\brave.exe`,
		}
		var out []string
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			base := getenv(env)
			if base == "" {
				continue
			}
			for _, a := range apps {
				out = append(out, strings.TrimRight(base, `\`)+`\`+a)
			}
		}
		return append(out, "chrome.exe", "msedge.exe")
	default: // linux and the BSDs
		return []string{
			"chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
			"chrome", // Chrome for Testing, unpacked onto PATH
			"microsoft-edge", "microsoft-edge-stable", "brave-browser",
			"/opt/google/chrome/chrome",
			"/opt/microsoft/msedge/msedge",
			"/opt/brave.com/brave/brave",
			"/snap/bin/chromium",
		}
	}
}

// FindExecutable returns the browser to launch: explicit if set (from
// --executable-path or CHROMIUM_PATH), else the first entry of
// [SearchList] that exists. Debian's chromium wrapper script is replaced by
// the binary it runs (see [RealBinary]).
func FindExecutable(explicit string) (string, error) {
	if explicit != "" {
		fi, err := os.Stat(explicit)
		if err != nil || fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
			return "", &driver.NoBrowserError{
				Reason: fmt.Sprintf("browser executable %q is missing or not executable", explicit),
				Hint:   InstallHint,
			}
		}
		return RealBinary(explicit), nil
	}
	list := SearchList(runtime.GOOS, os.Getenv)
	if p, ok := findIn(list, exec.LookPath, executable); ok {
		return RealBinary(p), nil
	}
	return "", &driver.NoBrowserError{
		Reason: fmt.Sprintf("no Chrome, Chromium, Edge or Brave found on PATH or in the standard places (looked for %s)", strings.Join(list, ", ")),
		Hint:   InstallHint,
	}
}

// findIn returns the first entry of list that exists: bare names through
// lookPath, absolute paths through isExec.
func findIn(list []string, lookPath func(string) (string, error), isExec func(string) bool) (string, bool) {
	for _, c := range list {
		if filepath.IsAbs(c) || strings.ContainsAny(c, `/\`) {
			if isExec(c) {
				return c, true
			}
			continue
		}
		if p, err := lookPath(c); err == nil {
			return p, true
		}
	}
	return "", false
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0)
}

// debianBinary is the browser Debian's /usr/bin/chromium script runs.
const debianBinary = "/usr/lib/chromium/chromium"

// RealBinary returns the browser binary behind path. Debian's chromium is a
// shell script that adds flags from /etc/chromium.d, among them
// --load-extension for every installed extension package and
// --enable-remote-extensions, which would sidestep cdpkit's flag denylist
// and let extensions talk to the network; cdpkit runs the binary itself.
// Any other path is returned as it is.
func RealBinary(path string) string {
	f, err := policy.OpenRegular(path)
	if err != nil {
		return path
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	if !bytes.HasPrefix(head, []byte("#!")) || !bytes.Contains(head, []byte("APPNAME=chromium")) ||
		!bytes.Contains(head, []byte("/etc/chromium.d")) {
		return path
	}
	if executable(debianBinary) {
		return debianBinary
	}
	return path
}
