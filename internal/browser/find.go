package browser

import (
	"fmt"
	"os"
	"os/exec"
)

// Candidates are the executable names searched on PATH, in order.
var Candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// InstallHint is the command that installs a browser cdpkit can use.
const InstallHint = "run scripts/install-browser.sh (installs Debian's chromium), or pass --executable-path / set CHROMIUM_PATH"

// FindExecutable returns the browser to launch: explicit if set (from
// --executable-path or CHROMIUM_PATH), else the first of [Candidates] on PATH.
func FindExecutable(explicit string) (string, error) {
	if explicit != "" {
		fi, err := os.Stat(explicit)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", &NoBrowserError{
				Reason: fmt.Sprintf("browser executable %q is missing or not executable", explicit),
				Hint:   InstallHint,
			}
		}
		return explicit, nil
	}
	for _, name := range Candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", &NoBrowserError{
		Reason: "no Chromium or Chrome found on PATH (looked for chromium, chromium-browser, google-chrome, google-chrome-stable)",
		Hint:   InstallHint,
	}
}
