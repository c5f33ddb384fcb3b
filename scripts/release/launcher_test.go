package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestLauncher runs npm/bin/cdpkit.js with node against stand-in binaries
// (shell scripts) laid out as npm installs the packages, and checks what it
// passes through: arguments, stdin and stdout, the exit code, death by a
// signal; and what it says when the platform package is missing.
func TestLauncher(t *testing.T) {
	needNPM(t)
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binaries are shell scripts")
	}
	host := hostPlatform(t)
	target, err := host.npmTarget()
	if err != nil {
		t.Fatal(err)
	}
	t.Parallel()
	for _, tt := range []struct {
		name   string
		script string // the stand-in binary; "" for no platform package
		stdin  string
		// want: stdout, stderr substring, exit code, or the signal it dies of
		stdout, stderr string
		code           int
		signal         syscall.Signal
	}{
		{name: "args and stdio", script: `echo "args: $*"; cat`, stdin: "ping\n", stdout: "args: mcp --tools full\nping\n"},
		{name: "exit code", script: "exit 7", code: 7},
		{name: "signal", script: "kill -TERM $$", signal: syscall.SIGTERM},
		{name: "no platform package", stderr: "@cdpkit/" + target + ", the package holding the binary for " + target + ", is not installed", code: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			modules := filepath.Join(t.TempDir(), "node_modules")
			pkgs := npmPackages{version: testVersion, out: modules}
			if err := pkgs.writeLauncher("../../npm", platforms); err != nil {
				t.Fatal(err)
			}
			if tt.script != "" {
				bin := filepath.Join(modules, "@cdpkit", target, "bin", host.exe())
				if err := writeFile(bin, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := writeFile(filepath.Join(modules, "@cdpkit", target, "package.json"), []byte(`{"name":"@cdpkit/`+target+`"}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.CommandContext(t.Context(), "node", filepath.Join(modules, "cdpkit", "bin", "cdpkit.js"), "mcp", "--tools", "full")
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if string(out) != tt.stdout {
				t.Errorf("stdout %q, want %q", out, tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q, want it to say %q", stderr.String(), tt.stderr)
			}
			var exit *exec.ExitError
			switch {
			case err == nil:
				if tt.code != 0 || tt.signal != 0 {
					t.Errorf("the launcher exited 0, want code %d or signal %v", tt.code, tt.signal)
				}
			case errors.As(err, &exit):
				ws := exit.Sys().(syscall.WaitStatus)
				if ws.Signaled() && ws.Signal() != tt.signal || !ws.Signaled() && ws.ExitStatus() != tt.code {
					t.Errorf("the launcher ended with %v, want code %d or signal %v", err, tt.code, tt.signal)
				}
			default:
				t.Fatal(err)
			}
		})
	}
}

// TestLauncherIsPlainNode checks that the launcher needs nothing but Node:
// it requires only node: built-ins and its own package.json.
func TestLauncherIsPlainNode(t *testing.T) {
	src, err := os.ReadFile("../../npm/bin/cdpkit.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		_, arg, ok := strings.Cut(line, "require(")
		if !ok {
			continue
		}
		if !strings.HasPrefix(arg, "'node:") && !strings.HasPrefix(arg, "'../package.json'") &&
			!strings.HasPrefix(arg, "`${pkg}/package.json`") && !strings.HasPrefix(arg, "require.resolve(") {
			t.Errorf("the launcher requires something other than a node: built-in: %s", strings.TrimSpace(line))
		}
	}
}
