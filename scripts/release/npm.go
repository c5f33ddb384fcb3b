package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// npmScope holds the per-platform packages.
const npmScope = "@cdpkit"

// nodeOS and nodeCPU map Go's names to Node's process.platform and
// process.arch, which npm's os and cpu fields and the launcher use.
var (
	nodeOS  = map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}
	nodeCPU = map[string]string{"amd64": "x64", "arm64": "arm64"}
)

// npmTarget is p in Node's words ("linux-x64", "win32-arm64"); the platform
// package is npmScope/npmTarget. It fails for a platform Node has no name for
// here.
func (p platform) npmTarget() (string, error) {
	nos, ncpu := nodeOS[p.GOOS], nodeCPU[p.GOARCH]
	if nos == "" || ncpu == "" {
		return "", fmt.Errorf("npm: no Node name for %s/%s", p.GOOS, p.GOARCH)
	}
	return nos + "-" + ncpu, nil
}

// semverRE matches a Semantic Versioning 2.0.0 version, which npm requires.
var semverRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?` +
	`(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// npmVersion turns a `git describe` version into one npm accepts: a tag
// v1.2.3 (or v1.2.3-4-gabcdef-dirty after it) loses its "v"; anything else,
// such as a bare commit, becomes a 0.0.0-dev prerelease naming it.
func npmVersion(version string) string {
	v := strings.TrimPrefix(version, "v")
	if semverRE.MatchString(v) {
		return v
	}
	if v == "" || v == "dev" {
		return "0.0.0-dev"
	}
	clean := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' {
			return r
		}
		return '-'
	}, v)
	// The "g" (git's own prefix for a hash) keeps an all-digit hash with a
	// leading zero from being an invalid numeric identifier.
	return "0.0.0-dev.g" + clean
}

// npmPackages writes the npm packages of one version into out, one
// directory per package.
type npmPackages struct {
	version string
	out     string
}

// repository is the packages' source, shown on their npm pages.
var repository = map[string]string{"type": "git", "url": "git+https://github.com/cdpkit/cdpkit.git"}

// launcherManifest is the launcher's package.json.
type launcherManifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Keywords             []string          `json:"keywords"`
	Homepage             string            `json:"homepage"`
	Repository           map[string]string `json:"repository"`
	Bin                  map[string]string `json:"bin"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

// platformManifest is a platform package's package.json.
type platformManifest struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	Description string            `json:"description"`
	Repository  map[string]string `json:"repository"`
	OS          []string          `json:"os"`
	CPU         []string          `json:"cpu"`
	// PreferUnplugged asks Yarn's Plug'n'Play to keep the package on disk,
	// where a binary must be to run.
	PreferUnplugged bool `json:"preferUnplugged"`
}

// writeLauncher writes the package cdpkit: src's bin/cdpkit.js and
// README.md, and a package.json depending, optionally and at exactly its own
// version, on the package of each of targets.
func (n npmPackages) writeLauncher(src string, targets []platform) error {
	version := npmVersion(n.version)
	deps := map[string]string{}
	for _, p := range targets {
		t, err := p.npmTarget()
		if err != nil {
			return err
		}
		deps[npmScope+"/"+t] = version
	}
	m := launcherManifest{
		Name:        "cdpkit",
		Version:     version,
		Description: "A real browser for AI agents: an MCP server and CLI driving Chromium over the Chrome DevTools Protocol, as one Go binary.",
		Keywords:    []string{"mcp", "browser", "chromium", "cdp", "devtools", "agent", "automation"},
		Homepage:    "https://github.com/cdpkit/cdpkit",
		Repository:  repository,
		Bin:         map[string]string{"cdpkit": "bin/cdpkit.js"},
		Files:       []string{"bin/cdpkit.js"},
		// The launcher uses require.resolve and child_process only.
		Engines:              map[string]string{"node": ">=18"},
		OptionalDependencies: deps,
	}
	dir := filepath.Join(n.out, "cdpkit")
	for _, f := range []struct {
		from, to string
		mode     os.FileMode
	}{
		{"bin/cdpkit.js", "bin/cdpkit.js", 0o755},
		{"README.md", "README.md", 0o644},
	} {
		data, err := os.ReadFile(filepath.Join(src, f.from))
		if err != nil {
			return fmt.Errorf("npm: launcher: %w", err)
		}
		if err := writeFile(filepath.Join(dir, f.to), data, f.mode); err != nil {
			return fmt.Errorf("npm: launcher: %w", err)
		}
	}
	return writeManifest(dir, m)
}

// writePlatform writes the package holding p's binary, taken from p's
// release archive.
func (n npmPackages) writePlatform(p platform, archive string) error {
	t, err := p.npmTarget()
	if err != nil {
		return err
	}
	bin, err := readFromArchive(archive, p.exe())
	if err != nil {
		return fmt.Errorf("npm: %s: %w (make release writes the archives)", t, err)
	}
	dir := filepath.Join(n.out, "cdpkit-"+t)
	if err := writeFile(filepath.Join(dir, "bin", p.exe()), bin, 0o755); err != nil {
		return fmt.Errorf("npm: %s: %w", t, err)
	}
	name := npmScope + "/" + t
	readme := fmt.Sprintf("# %s\n\nThe cdpkit binary for %s/%s. Install the `cdpkit` package instead, which "+
		"depends on this one where it fits: `npx -y cdpkit mcp`.\n", name, p.GOOS, p.GOARCH)
	if err := writeFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return fmt.Errorf("npm: %s: %w", t, err)
	}
	return writeManifest(dir, platformManifest{
		Name:            name,
		Version:         npmVersion(n.version),
		Description:     fmt.Sprintf("The cdpkit binary for %s/%s, installed by the cdpkit package.", p.GOOS, p.GOARCH),
		Repository:      repository,
		OS:              []string{nodeOS[p.GOOS]},
		CPU:             []string{nodeCPU[p.GOARCH]},
		PreferUnplugged: true,
	})
}

// writeManifest writes m as dir/package.json, without Go's HTML escaping
// (">=18", not "\u003e=18").
func writeManifest(dir string, m any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "package.json"), buf.Bytes(), 0o644)
}

// writeFile writes data to path, making its directory, with mode exactly.
func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode) // the umask may have cut it
}
