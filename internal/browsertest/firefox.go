package browsertest

import (
	"os"
	"os/exec"
	"testing"
)

// FirefoxPath returns the Firefox to launch: $FIREFOX_PATH if set, else
// firefox-esr or firefox on $PATH. If none is found it skips the test, or
// fails it when $CDPKIT_REQUIRE_BROWSER is "1", as ExecPath does for
// Chromium.
func FirefoxPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("FIREFOX_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "browsertest: no Firefox found (tried $FIREFOX_PATH, firefox-esr and firefox on $PATH); run scripts/install-deps.sh or set FIREFOX_PATH"
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1)", msg, RequireEnv)
	} else {
		t.Skip(msg)
	}
	return ""
}
