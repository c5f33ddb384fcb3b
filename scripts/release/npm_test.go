package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// needNPM skips the test when node or npm is missing, unless
// CDPKIT_REQUIRE_BROWSER=1 (make test, CI), where that is a failure.
func needNPM(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = exec.LookPath("npm")
	}
	if err != nil {
		if os.Getenv("CDPKIT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("node and npm are required (CDPKIT_REQUIRE_BROWSER=1): %v", err)
		}
		t.Skipf("node or npm not found: %v", err)
	}
}

// hostPlatform is the release target this test runs on.
func hostPlatform(t *testing.T) platform {
	t.Helper()
	p := platform{runtime.GOOS, runtime.GOARCH}
	if !slices.Contains(platforms, p) {
		t.Skipf("%s/%s is not a release target", p.GOOS, p.GOARCH)
	}
	return p
}

// npmEnv is the environment of every npm and npx the tests run: a cache of
// their own, no registry wanted, nothing printed but what is asked for.
func npmEnv(cache string) []string {
	return append(os.Environ(),
		"npm_config_cache="+cache,
		"npm_config_offline=true",
		"npm_config_audit=false",
		"npm_config_fund=false",
		"npm_config_update_notifier=false",
		"npm_config_loglevel=error",
	)
}

// testVersion is the version the npm test stamps into its binary.
const testVersion = "v1.2.3-npmtest"

// TestNPMInstall does what a user's `npx -y cdpkit mcp` does, from local
// tarballs: it builds this platform's binary once, archives it as `make
// release` does, makes the npm packages from the archive as `make npm` does,
// packs the launcher and this platform's package with npm pack, installs both
// tarballs into a temp prefix with no registry, then runs `npx cdpkit
// version`, `npx cdpkit mcp` (initialize and tools/list over its stdio), and
// checks that an exit code and a SIGTERM pass through the launcher.
func TestNPMInstall(t *testing.T) {
	needNPM(t)
	host := hostPlatform(t)
	t.Parallel()
	tmp := t.TempDir()
	env := npmEnv(filepath.Join(tmp, "npm-cache"))

	start := time.Now()
	step := func(what string) {
		t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
		start = time.Now()
	}

	// One build. No -trimpath, unlike make release: this way it reuses the
	// package objects `make cross` compiled, and only links.
	bin := filepath.Join(tmp, "build", host.exe())
	build := exec.CommandContext(t.Context(), "go", "build", "-ldflags", "-s -w -X main.version="+testVersion, "-o", bin, "../../cmd/cdpkit")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	step("go build")
	rel := release{version: testVersion, dist: tmp, readme: "../../README.md", mtime: time.Unix(0, 0)}
	archive, err := rel.writeArchive(host, bin)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := npmPackages{version: testVersion, out: filepath.Join(tmp, "npm")}
	// The launcher lists all six platforms, as released: npm must skip the
	// five that do not fit (and are not to be had offline) without failing.
	if err := pkgs.writeLauncher("../../npm", platforms); err != nil {
		t.Fatal(err)
	}
	if err := pkgs.writePlatform(host, filepath.Join(tmp, archive)); err != nil {
		t.Fatal(err)
	}
	target, _ := host.npmTarget()
	step("archive and npm packages")

	pack := exec.CommandContext(t.Context(), "npm", "pack", "--pack-destination", tmp, "./cdpkit", "./cdpkit-"+target)
	pack.Dir, pack.Env = pkgs.out, env
	out, err := pack.Output()
	if err != nil {
		t.Fatalf("npm pack: %v\n%s%s", err, out, stderrOf(err))
	}
	step("npm pack")
	var tarballs []string
	for _, name := range strings.Fields(string(out)) {
		tarballs = append(tarballs, filepath.Join(tmp, name))
	}
	version := npmVersion(testVersion)
	if want := []string{"cdpkit-" + version + ".tgz", "cdpkit-" + target + "-" + version + ".tgz"}; len(tarballs) != 2 ||
		filepath.Base(tarballs[0]) != want[0] || filepath.Base(tarballs[1]) != want[1] {
		t.Fatalf("npm pack wrote %q, want %q", out, want)
	}

	prefix := filepath.Join(tmp, "prefix")
	install := exec.CommandContext(t.Context(), "npm", append([]string{"install", "--prefix", prefix}, tarballs...)...)
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --offline of the tarballs: %v\n%s", err, out)
	}
	step("npm install")
	installed := filepath.Join(prefix, "node_modules", "@cdpkit", target, "bin", host.exe())
	if fi, err := os.Stat(installed); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the installed binary %s: %v, want an executable file", installed, fi)
	}
	if others, _ := filepath.Glob(filepath.Join(prefix, "node_modules", "@cdpkit", "*")); len(others) != 1 {
		t.Errorf("installed platform packages %q, want only %s", others, target)
	}

	npx := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), "npx", append([]string{"--offline", "cdpkit"}, args...)...)
		cmd.Dir, cmd.Env = prefix, append(env, "TMPDIR="+tmp)
		return cmd
	}

	t.Run("version", func(t *testing.T) {
		out, err := npx("version").Output()
		if err != nil {
			t.Fatalf("npx cdpkit version: %v\n%s", err, stderrOf(err))
		}
		if got, want := string(out), "cdpkit "+testVersion+"\n"; got != want {
			t.Errorf("npx cdpkit version printed %q, want %q", got, want)
		}
	})

	t.Run("exit code", func(t *testing.T) {
		err := npx("no-such-command").Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("npx cdpkit no-such-command: %v, want exit status 2 (cdpkit's usage error)", err)
		}
	})

	t.Run("mcp", func(t *testing.T) {
		cmd := npx("mcp")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "npm-test", Version: "0"}, nil)
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("initialize through npx cdpkit mcp: %v\nstderr:\n%s", err, stderr.String())
		}
		defer session.Close()
		info := session.InitializeResult().ServerInfo
		if info.Name != "cdpkit" || info.Version != testVersion {
			t.Errorf("server %s %s, want cdpkit %s", info.Name, info.Version, testVersion)
		}
		tools, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v\nstderr:\n%s", err, stderr.String())
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		for _, want := range []string{"navigate_page", "take_snapshot", "click"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %s: %v", want, names)
			}
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no SIGTERM on Windows")
		}
		// The launcher itself, without npx around it, so the signal goes to it.
		launcher := filepath.Join(prefix, "node_modules", "cdpkit", "bin", "cdpkit.js")
		checkSIGTERMPassed(t, exec.Command("node", launcher, "mcp"), append(env, "TMPDIR="+tmp))
	})
}

// checkSIGTERMPassed starts cmd (a launcher running `cdpkit mcp`), waits
// until cdpkit answers initialize, sends SIGTERM to the launcher alone, and
// checks that cdpkit ends too: its stdout, which only it and the launcher
// hold, closes.
func checkSIGTERMPassed(t *testing.T, cmd *exec.Cmd, env []string) {
	t.Helper()
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"npm-test","version":"0"}}}`+"\n")
	lines := bufio.NewReader(stdout)
	answer, err := lines.ReadBytes('\n')
	var msg struct{ ID int }
	if err != nil || json.Unmarshal(answer, &msg) != nil || msg.ID != 1 {
		cmd.Process.Kill()
		t.Fatalf("no answer to initialize: %q, %v\nstderr:\n%s", answer, err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, lines)
		closed <- err
	}()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("stdout still open a minute after SIGTERM to the launcher: cdpkit did not get it\nstderr:\n%s", stderr.String())
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGTERM:
	default:
		t.Errorf("launcher after SIGTERM: %v, want exit 0 (cdpkit's own) or death by SIGTERM\nstderr:\n%s", err, stderr.String())
	}
}

// stderrOf returns the stderr an *exec.ExitError from Output carries.
func stderrOf(err error) []byte {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.Stderr
	}
	return nil
}
