package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNPMVersion(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"v1.2.3", "1.2.3"},
		{"v1.2.3-rc.1", "1.2.3-rc.1"},
		{"v1.2.3-4-gabcdef0", "1.2.3-4-gabcdef0"},
		{"v1.2.3-4-gabcdef0-dirty", "1.2.3-4-gabcdef0-dirty"},
		{"479ac68", "0.0.0-dev.g479ac68"},
		{"0123456-dirty", "0.0.0-dev.g0123456-dirty"},
		{"dev", "0.0.0-dev"},
		{"", "0.0.0-dev"},
		{"v1.2", "0.0.0-dev.g1-2"},
		{"v01.2.3", "0.0.0-dev.g01-2-3"},
	} {
		got := npmVersion(tt.in)
		if got != tt.want {
			t.Errorf("npmVersion(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !semverRE.MatchString(got) {
			t.Errorf("npmVersion(%q) = %q is not semver", tt.in, got)
		}
	}
}

func TestArchiveName(t *testing.T) {
	for _, tt := range []struct {
		p    platform
		want string
	}{
		{platform{"linux", "amd64"}, "cdpkit_1.2.3_linux_amd64.tar.gz"},
		{platform{"darwin", "arm64"}, "cdpkit_1.2.3_darwin_arm64.tar.gz"},
		{platform{"windows", "arm64"}, "cdpkit_1.2.3_windows_arm64.zip"},
	} {
		if got := tt.p.archiveName("v1.2.3"); got != tt.want {
			t.Errorf("archiveName(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestArchives writes every platform's archive from a fake binary twice, and
// checks that each holds the binary (executable) and the README, that the
// two runs give the same bytes, and that SHA256SUMS lists them all.
func TestArchives(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	bin := filepath.Join(src, "cdpkit")
	if err := os.WriteFile(bin, []byte("not really a binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(src, "README.md")
	if err := os.WriteFile(readme, []byte("# cdpkit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var sums [2][]byte
	for run := range 2 {
		r := release{version: "v1.2.3", dist: t.TempDir(), readme: readme, mtime: time.Unix(1700000000, 0)}
		for _, p := range platforms {
			name, err := r.writeArchive(p, bin)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(r.dist, name)
			got, err := readFromArchive(path, p.exe())
			if err != nil || string(got) != "not really a binary" {
				t.Errorf("%s: %s = %q, %v; want the binary", name, p.exe(), got, err)
			}
			if got, err := readFromArchive(path, "README.md"); err != nil || string(got) != "# cdpkit\n" {
				t.Errorf("%s: README.md = %q, %v; want the README", name, got, err)
			}
			if mode := archivedMode(t, path, p.exe()); mode != 0o755 {
				t.Errorf("%s: %s has mode %o, want 755", name, p.exe(), mode)
			}
		}
		if err := r.writeSums(); err != nil {
			t.Fatal(err)
		}
		var err error
		if sums[run], err = os.ReadFile(filepath.Join(r.dist, "SHA256SUMS")); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Errorf("two runs gave different archives:\n%s\n%s", sums[0], sums[1])
	}
	lines := strings.Split(strings.TrimSpace(string(sums[0])), "\n")
	if len(lines) != len(platforms) {
		t.Fatalf("SHA256SUMS has %d lines, want %d:\n%s", len(lines), len(platforms), sums[0])
	}
	line := regexp.MustCompile(`^[0-9a-f]{64}  cdpkit_1\.2\.3_[a-z]+_[a-z0-9]+\.(tar\.gz|zip)$`)
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("SHA256SUMS line %q is not \"<sha256>  <archive>\"", l)
		}
	}
	if !slices.IsSorted(lines) {
		t.Errorf("SHA256SUMS is not sorted by name:\n%s", sums[0])
	}
}

// TestReadFromArchiveMissing checks that a file an archive lacks is
// errNotInArchive.
func TestReadFromArchiveMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"a.tar.gz", "a.zip"} {
		var buf bytes.Buffer
		files := []archivedFile{{name: "README.md", mode: 0o644, data: []byte("x")}}
		write := writeTarGz
		if strings.HasSuffix(name, ".zip") {
			write = writeZip
		}
		if err := write(&buf, files, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readFromArchive(path, "cdpkit"); !errors.Is(err, errNotInArchive) {
			t.Errorf("%s: reading a missing file: %v, want errNotInArchive", name, err)
		}
	}
}

// TestPlatformsAgree checks that the Makefile, .goreleaser.yaml and this
// tool name the same six targets.
func TestPlatformsAgree(t *testing.T) {
	var want []string
	for _, p := range platforms {
		want = append(want, p.GOOS+"/"+p.GOARCH)
	}
	slices.Sort(want)

	makefile := readRepoFile(t, "Makefile")
	m := regexp.MustCompile(`(?m)^PLATFORMS := (.*)$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile: no PLATFORMS := line")
	}
	fromMake := strings.Fields(m[1])
	slices.Sort(fromMake)
	if diff := cmp.Diff(want, fromMake); diff != "" {
		t.Errorf("Makefile PLATFORMS differ from the release tool's (-tool +Makefile):\n%s", diff)
	}

	cfg := readRepoFile(t, ".goreleaser.yaml")
	var fromGoreleaser []string
	for _, goos := range yamlList(cfg, "goos") {
		for _, goarch := range yamlList(cfg, "goarch") {
			fromGoreleaser = append(fromGoreleaser, goos+"/"+goarch)
		}
	}
	slices.Sort(fromGoreleaser)
	if diff := cmp.Diff(want, fromGoreleaser); diff != "" {
		t.Errorf(".goreleaser.yaml goos × goarch differ from the release tool's (-tool +goreleaser):\n%s", diff)
	}
}

// TestGoReleaserConfig checks that .goreleaser.yaml builds and names what
// `make release` does. GoReleaser itself does not run here; this holds the
// two together line by line.
func TestGoReleaserConfig(t *testing.T) {
	cfg := readRepoFile(t, ".goreleaser.yaml")
	for _, want := range []string{
		"version: 2",
		"main: ./cmd/cdpkit",
		"- CGO_ENABLED=0",
		"- -trimpath",
		"- -s -w -X main.version=v{{ .Version }}",
		"- goos: windows\n        formats:\n          - zip",
		"files:\n      - README.md",
		"name_template: SHA256SUMS",
		"algorithm: sha256",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf(".goreleaser.yaml lacks %q", want)
		}
	}
	m := regexp.MustCompile(`name_template: "(cdpkit_[^"]*)"`).FindStringSubmatch(cfg)
	if m == nil {
		t.Fatal(".goreleaser.yaml: no archive name_template")
	}
	for _, p := range platforms {
		got := strings.NewReplacer("{{ .Version }}", "1.2.3", "{{ .Os }}", p.GOOS, "{{ .Arch }}", p.GOARCH).Replace(m[1])
		ext := ".tar.gz"
		if p.GOOS == "windows" {
			ext = ".zip"
		}
		if want := p.archiveName("v1.2.3"); got+ext != want {
			t.Errorf("GoReleaser names the %v archive %q, make release %q", p, got+ext, want)
		}
	}
	makefile := readRepoFile(t, "Makefile")
	if !strings.Contains(makefile, `CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)"`) {
		t.Error("Makefile: the release build line changed; keep it and .goreleaser.yaml's builds alike")
	}
}

// TestGoInstallable checks what `go install
// github.com/cdpkit/cdpkit/cmd/cdpkit@latest` needs: that module path, no
// replace or exclude directive (go install refuses a module@version with
// them), and a README that says so.
func TestGoInstallable(t *testing.T) {
	gomod := readRepoFile(t, "go.mod")
	if !strings.HasPrefix(gomod, "module github.com/cdpkit/cdpkit\n") {
		t.Errorf("go.mod does not start with the module path github.com/cdpkit/cdpkit")
	}
	if m := regexp.MustCompile(`(?m)^\s*(replace|exclude)\b.*$`).FindString(gomod); m != "" {
		t.Errorf("go.mod has %q; go install …@latest refuses modules with replace or exclude", m)
	}
	readme := readRepoFile(t, "README.md")
	for _, want := range []string{
		"go install github.com/cdpkit/cdpkit/cmd/cdpkit@latest",
		"npx -y cdpkit mcp",
		"SHA256SUMS",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// archivedMode returns the permission bits the archive at path gives name.
func archivedMode(t *testing.T, path, name string) fs.FileMode {
	t.Helper()
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.Name == name {
				return f.Mode().Perm()
			}
		}
		t.Fatalf("%s: no %s", path, name)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: no %s: %v", path, name, err)
		}
		if hdr.Name == name {
			return hdr.FileInfo().Mode().Perm()
		}
	}
}

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// yamlList returns the items of the first block list under key in a YAML
// text, enough for the flat lists of .goreleaser.yaml.
func yamlList(text, key string) []string {
	var items []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == key+":":
			in = true
		case in && strings.HasPrefix(line, "- "):
			items = append(items, strings.TrimPrefix(line, "- "))
		case in:
			return items
		}
	}
	return items
}

// TestRun runs the two commands as make does, over stand-in binaries, and
// checks that npm makes the launcher and one package per platform from the
// archives.
func TestRun(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	for _, p := range platforms {
		bin := filepath.Join(dist, "build", p.GOOS+"_"+p.GOARCH, p.exe())
		if err := writeFile(bin, []byte("binary for "+p.GOOS+"/"+p.GOARCH), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	if err := run([]string{"archives", "-version", "v1.2.3", "-dist", dist, "-readme", "../../README.md", "-mtime", "1700000000"}, &log); err != nil {
		t.Fatalf("archives: %v\n%s", err, log.String())
	}
	if err := run([]string{"npm", "-version", "v1.2.3", "-dist", dist, "-src", "../../npm"}, &log); err != nil {
		t.Fatalf("npm: %v\n%s", err, log.String())
	}
	got := map[string]string{}
	dirs, err := os.ReadDir(filepath.Join(dist, "npm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		var m struct {
			Name, Version string
			OS, CPU       []string
		}
		data, err := os.ReadFile(filepath.Join(dist, "npm", d.Name(), "package.json"))
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		got[m.Name] = m.Version + " " + strings.Join(m.OS, ",") + " " + strings.Join(m.CPU, ",")
	}
	want := map[string]string{
		"cdpkit":               "1.2.3  ",
		"@cdpkit/linux-x64":    "1.2.3 linux x64",
		"@cdpkit/linux-arm64":  "1.2.3 linux arm64",
		"@cdpkit/darwin-x64":   "1.2.3 darwin x64",
		"@cdpkit/darwin-arm64": "1.2.3 darwin arm64",
		"@cdpkit/win32-x64":    "1.2.3 win32 x64",
		"@cdpkit/win32-arm64":  "1.2.3 win32 arm64",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("npm packages (-want +got):\n%s", diff)
	}
	bin, err := os.ReadFile(filepath.Join(dist, "npm", "cdpkit-win32-arm64", "bin", "cdpkit.exe"))
	if string(bin) != "binary for windows/arm64" {
		t.Errorf("@cdpkit/win32-arm64 holds %q, %v; want the windows/arm64 binary", bin, err)
	}
	if err := run([]string{"npm", "-dist", dist}, &log); err == nil {
		t.Error("npm without -version succeeded")
	}
}
