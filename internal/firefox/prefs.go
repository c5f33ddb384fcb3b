package firefox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// quietPrefs keep a launched Firefox off the network except for the pages
// it is told to open: no telemetry, updates, captive-portal or connectivity
// probes, safe browsing lists, remote settings, add-on or search updates,
// studies, or speculative connections. "data:," is a URL that never leaves
// the machine, for services that insist on having one.
var quietPrefs = []struct {
	name  string
	value any
}{
	{"browser.shell.checkDefaultBrowser", false},
	{"browser.startup.page", 0},
	{"browser.startup.homepage", "about:blank"},
	{"browser.newtabpage.enabled", false},
	{"browser.aboutwelcome.enabled", false},
	{"browser.tabs.warnOnClose", false},
	{"browser.sessionstore.resume_from_crash", false},
	{"toolkit.startup.max_resumed_crashes", -1},
	{"datareporting.policy.dataSubmissionEnabled", false},
	{"datareporting.healthreport.uploadEnabled", false},
	{"toolkit.telemetry.enabled", false},
	{"toolkit.telemetry.unified", false},
	{"toolkit.telemetry.archive.enabled", false},
	{"toolkit.telemetry.server", "data:,"},
	{"browser.ping-centre.telemetry", false},
	{"app.update.enabled", false},
	{"app.update.auto", false},
	{"app.update.disabledForTesting", true},
	{"app.normandy.enabled", false},
	{"app.shield.optoutstudies.enabled", false},
	{"network.captive-portal-service.enabled", false},
	{"network.connectivity-service.enabled", false},
	{"browser.safebrowsing.malware.enabled", false},
	{"browser.safebrowsing.phishing.enabled", false},
	{"browser.safebrowsing.downloads.enabled", false},
	{"browser.safebrowsing.blockedURIs.enabled", false},
	{"browser.safebrowsing.update.enabled", false},
	{"services.settings.server", "data:,"},
	{"extensions.update.enabled", false},
	{"extensions.getAddons.cache.enabled", false},
	{"extensions.blocklist.enabled", false},
	{"browser.search.update", false},
	{"browser.discovery.enabled", false},
	{"media.gmp-manager.url", "data:,"},
	{"network.dns.disablePrefetch", true},
	{"network.prefetch-next", false},
	{"network.http.speculative-parallel-limit", 0},
	{"network.predictor.enabled", false},
	{"browser.urlbar.suggest.searches", false},
	// A dialog a page opens waits for a tool to answer it.
	{"dom.disable_beforeunload", false},
}

// writeUserJS writes the quiet prefs into the profile's user.js, which
// Firefox reads at every start.
func writeUserJS(profile string) error {
	var b strings.Builder
	for _, p := range quietPrefs {
		v := p.value
		if s, ok := v.(string); ok {
			v = fmt.Sprintf("%q", s)
		}
		fmt.Fprintf(&b, "user_pref(%q, %v);\n", p.name, v)
	}
	return os.WriteFile(filepath.Join(profile, "user.js"), []byte(b.String()), 0o600)
}
