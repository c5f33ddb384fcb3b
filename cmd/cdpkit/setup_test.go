package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// makeRules reads the Makefile's rules: each target's prerequisites and
// recipe lines.
func makeRules(t *testing.T) map[string]struct{ deps, recipe []string } {
	t.Helper()
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]struct{ deps, recipe []string }{}
	rule := regexp.MustCompile(`^([A-Za-z0-9_.-]+):([^=].*)?$`)
	var cur string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\n")
		if m := rule.FindStringSubmatch(line); m != nil {
			cur = m[1]
			r := rules[cur]
			r.deps = append(r.deps, strings.Fields(m[2])...)
			rules[cur] = r
			continue
		}
		if strings.HasPrefix(line, "\t") && cur != "" {
			r := rules[cur]
			r.recipe = append(r.recipe, line)
			rules[cur] = r
			continue
		}
		if !strings.HasPrefix(line, "#") {
			cur = ""
		}
	}
	return rules
}

// TestDemoInstallsOnlyTheBrowser: make demo installs what its one job
// needs, a browser, and nothing a test uses (nginx, Firefox,
// poppler-utils, ffmpeg, chromedriver, npm; issue 39), while make test
// still installs every test dependency.
func TestDemoInstallsOnlyTheBrowser(t *testing.T) {
	rules := makeRules(t)
	recipes := func(target string) []string {
		var out []string
		seen := map[string]bool{}
		var walk func(string)
		walk = func(name string) {
			if seen[name] {
				return
			}
			seen[name] = true
			r, ok := rules[name]
			if !ok {
				return
			}
			for _, d := range r.deps {
				walk(d)
			}
			out = append(out, r.recipe...)
		}
		walk(target)
		return out
	}
	scripts := regexp.MustCompile(`scripts/[\w.-]+\.sh`)
	var demoScripts []string
	for _, line := range recipes("demo") {
		demoScripts = append(demoScripts, scripts.FindAllString(line, -1)...)
		if strings.Contains(line, "apt-get") || strings.Contains(line, "npm ") {
			t.Errorf("make demo runs %q; it may install only the browser", strings.TrimSpace(line))
		}
	}
	if !slices.Equal(demoScripts, []string{"scripts/install-browser.sh"}) {
		t.Errorf("make demo runs the scripts %q, want only scripts/install-browser.sh", demoScripts)
	}
	browser, err := os.ReadFile("../../scripts/install-browser.sh")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(browser)) {
		if strings.Contains(line, "apt-get") && strings.Contains(line, "install") && !strings.HasSuffix(strings.TrimSpace(line), "--no-install-recommends chromium") &&
			!strings.HasPrefix(strings.TrimSpace(line), "#") && !strings.Contains(line, "echo") {
			t.Errorf("install-browser.sh installs more than chromium: %q", strings.TrimSpace(line))
		}
	}

	var testScripts []string
	for _, line := range recipes("test") {
		testScripts = append(testScripts, scripts.FindAllString(line, -1)...)
	}
	if !slices.Contains(testScripts, "scripts/install-deps.sh") {
		t.Errorf("make test runs the scripts %q, want scripts/install-deps.sh among them", testScripts)
	}
}
