package browser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestLaunchCloseNoLeaks starts and closes a browser repeatedly and checks
// that each Close leaves no process and no profile behind, and that cdpkit's
// own goroutines (and, in the soak, memory: RSS after a GC) do not grow
// from the warm-up cycles to the last.
//
// The default run does 5 cycles; CDPKIT_SOAK=1 (make soak) does 50 and
// checks memory too, which needs the longer run to mean anything.
//
// A launched browser's processes are found three ways, since none covers
// them all: its --user-data-dir is on the command line of the browser and
// of every zygote child (renderers, GPU, utilities); they share the
// browser's process group; and the crashpad handlers, which daemonize into
// sessions of their own and carry neither, are found by an environment
// variable set for this cycle only.
func TestLaunchCloseNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (launches and closes browsers in a loop): skipped by -short")
	}
	exe := browsertest.ExecPath(t)
	srv := browsertest.Server(t, os.DirFS("testdata"))
	cycles, baseline := 5, 2 // baseline: cycles before the first measurement, to warm up
	soak := os.Getenv(soakEnv) == "1"
	if soak {
		cycles, baseline = 50, 5
	}
	var rssBase, goBase int
	start := time.Now()
	var starting, closing, reaping time.Duration
	for i := range cycles {
		mark := fmt.Sprintf("CDPKIT_LEAK_TEST=%d-%d-%d", os.Getpid(), i, time.Now().UnixNano())
		name, value, _ := strings.Cut(mark, "=")
		t.Setenv(name, value)

		startStart := time.Now()
		b, err := Start(t.Context(), &Options{ExecPath: exe})
		if err != nil {
			t.Fatalf("cycle %d: Start: %v", i, err)
		}
		starting += time.Since(startStart)
		pid, profile := b.PID(), b.ProfileDir()
		if pid <= 0 || profile == "" {
			b.Close()
			t.Fatalf("cycle %d: PID() = %d, ProfileDir() = %q; want a launched browser", i, pid, profile)
		}
		tab, err := b.NewTab(t.Context())
		if err != nil {
			b.Close()
			t.Fatalf("cycle %d: NewTab: %v", i, err)
		}
		res, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html")
		if err != nil {
			b.Close()
			t.Fatalf("cycle %d: Navigate: %v", i, err)
		}
		if res.Title != "Alpha page" {
			t.Errorf("cycle %d: title = %q, want %q", i, res.Title, "Alpha page")
		}
		if n := len(browsertest.ProcessesMatching(userDataDirArg(profile))); n < 2 {
			t.Errorf("cycle %d: %d processes carry the profile dir, want the browser and its children", i, n)
		}

		closeStart := time.Now()
		if err := b.Close(); err != nil {
			t.Errorf("cycle %d: Close: %v", i, err)
		}
		closing += time.Since(closeStart)

		reapStart := time.Now()
		browsertest.WaitNoProcesses(t, userDataDirArg(profile), browsertest.ProcWait)
		waitNoProcs(t, fmt.Sprintf("cycle %d: process group %d", i, pid), inGroup(pid), browsertest.ProcWait)
		waitNoProcs(t, fmt.Sprintf("cycle %d: environment %s", i, mark), withEnv(mark), browsertest.ProcWait)
		reaping += time.Since(reapStart)
		if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cycle %d: profile %s after Close: stat err = %v, want not exist", i, profile, err)
		}
		if t.Failed() {
			t.Fatalf("cycle %d leaked; stopping", i)
		}
		if (i+1)%10 == 0 {
			t.Logf("%d cycles in %v", i+1, time.Since(start).Round(time.Millisecond))
		}
		if i+1 == baseline {
			rssBase, goBase = settledRSS(t), runtime.NumGoroutine()
		}
	}
	if cycles > baseline {
		rss, gor := settledRSS(t), runtime.NumGoroutine()
		t.Logf("after cycle %d: RSS %d kB, %d goroutines; after cycle %d: RSS %d kB (%+.1f%%), %d goroutines",
			baseline, rssBase, goBase, cycles, rss, 100*float64(rss-rssBase)/float64(rssBase), gor)
		if soak && rss > rssBase+rssBase/10 {
			t.Errorf("RSS grew from %d kB after cycle %d to %d kB after cycle %d, want under 10%%", rssBase, baseline, rss, cycles)
		}
		if gor > goBase+10 {
			t.Errorf("goroutines grew from %d after cycle %d to %d after cycle %d", goBase, baseline, gor, cycles)
		}
	}
	took := time.Since(start)
	per := func(d time.Duration) time.Duration { return (d / time.Duration(cycles)).Round(time.Millisecond) }
	t.Logf("%d launch/navigate/close cycles took %v: per cycle %v, of which Start %v, Close %v, waiting for stragglers after Close %v",
		cycles, took.Round(time.Millisecond), per(took), per(starting), per(closing), per(reaping))
}

// soakEnv set to "1" makes the leak tests run long enough to show slow
// growth; make soak sets it.
const soakEnv = "CDPKIT_SOAK"

// TestProcessGroup checks what Close relies on: killing the browser's
// process group reaches every Chromium process that names the profile.
func TestProcessGroup(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	srv := browsertest.Server(t, os.DirFS("testdata"))
	mark := fmt.Sprintf("CDPKIT_PGRP_TEST=%d-%d", os.Getpid(), time.Now().UnixNano())

	b, err := Start(t.Context(), &Options{ExecPath: exe, extraEnv: []string{mark}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer b.Close()
	// A page of its own makes Chromium start a renderer for it.
	tab, err := b.NewTab(t.Context())
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	if _, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html"); err != nil {
		t.Fatalf("Navigate: %v", err)
	}

	pid, profile := b.PID(), b.ProfileDir()
	withProfile := processes(func(p proc) bool { return strings.Contains(p.cmdline, userDataDirArg(profile)) })
	kinds := map[string]int{}
	for _, p := range withProfile {
		kind := "browser"
		if _, rest, ok := strings.Cut(p.cmdline, "--type="); ok {
			kind, _, _ = strings.Cut(rest, " ")
		}
		kinds[kind]++
		if p.pgrp != pid {
			t.Errorf("%s process %d has pgrp %d, want the browser's %d: %.200s", kind, p.pid, p.pgrp, pid, p.cmdline)
		}
	}
	for _, kind := range []string{"browser", "zygote", "renderer"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s process carries --user-data-dir=%s; found %v", kind, profile, kinds)
		}
	}
	t.Logf("processes carrying the profile dir, all in group %d: %v", pid, kinds)

	// What else the browser started: found by the environment it inherited.
	for _, p := range processes(withEnv(mark)) {
		if p.pgrp == pid {
			continue
		}
		exeName := filepath.Base(strings.Fields(p.cmdline)[0])
		t.Logf("outside the group: pid %d (%s) in pgrp %d; carries the profile dir: %v",
			p.pid, exeName, p.pgrp, strings.Contains(p.cmdline, profile))
	}

	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitNoProcs(t, "process group", inGroup(pid), browsertest.ProcWait)
	waitNoProcs(t, "environment "+mark, withEnv(mark), browsertest.ProcWait)
}

func TestFindExecutable(t *testing.T) {
	t.Run("explicit missing", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "no-such-chromium")
		_, err := FindExecutable(missing)
		checkNoBrowser(t, err, missing)
	})
	t.Run("explicit not executable", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "chromium")
		if err := os.WriteFile(file, []byte("#!/bin/sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := FindExecutable(file)
		checkNoBrowser(t, err, file)
	})
	t.Run("explicit directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := FindExecutable(dir)
		checkNoBrowser(t, err, dir)
	})
	t.Run("explicit found", func(t *testing.T) {
		got, err := FindExecutable("/bin/true")
		if err != nil || got != "/bin/true" {
			t.Errorf("FindExecutable(/bin/true) = %q, %v; want /bin/true, nil", got, err)
		}
	})
	t.Run("empty PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := FindExecutable("")
		checkNoBrowser(t, err, "PATH")
	})
	t.Run("on PATH", func(t *testing.T) {
		dir := t.TempDir()
		fake := filepath.Join(dir, "google-chrome")
		if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir)
		got, err := FindExecutable("")
		if err != nil || got != fake {
			t.Errorf("FindExecutable(\"\") = %q, %v; want %q, nil", got, err, fake)
		}
	})
}

// checkNoBrowser checks that err is a *NoBrowserError whose reason mentions
// mention and whose hint says how to install a browser.
func checkNoBrowser(t *testing.T, err error, mention string) {
	t.Helper()
	if !errors.Is(err, driver.ErrNoBrowser) {
		t.Fatalf("err = %v, want one matching ErrNoBrowser", err)
	}
	var nb *driver.NoBrowserError
	if !errors.As(err, &nb) {
		t.Fatalf("err = %T, want *NoBrowserError", err)
	}
	if !strings.Contains(nb.Hint, "scripts/install-browser.sh") {
		t.Errorf("Hint = %q, want it to name scripts/install-browser.sh", nb.Hint)
	}
	if !strings.Contains(nb.Reason, mention) {
		t.Errorf("Reason = %q, want it to mention %q", nb.Reason, mention)
	}
}

// TestStartNotABrowser launches executables that are not browsers: Start
// must fail fast with ErrNoBrowser and leave no profile behind.
func TestStartNotABrowser(t *testing.T) {
	t.Parallel()
	for _, exe := range []string{"/bin/true", "/bin/false"} {
		t.Run(filepath.Base(exe), func(t *testing.T) {
			if _, err := os.Stat(exe); err != nil {
				t.Skipf("no %s: %v", exe, err)
			}
			t.Parallel()
			tmp := privateTempDir(t)
			// A launch timeout far above how long the exit takes, however
			// busy the machine: Start must fail because the process exited.
			b, err := Start(t.Context(), &Options{ExecPath: exe, LaunchTimeout: 2 * time.Minute, tempDir: tmp})
			if err == nil {
				b.Close()
				t.Fatalf("Start(%s) succeeded, want an error", exe)
			}
			if !errors.Is(err, driver.ErrNoBrowser) {
				t.Errorf("Start(%s) err = %v, want one matching ErrNoBrowser", exe, err)
			}
			if strings.Contains(err.Error(), "deadline exceeded") {
				t.Errorf("Start(%s) err = %v, want it to fail when the process exits, not at its launch timeout", exe, err)
			}
			if left := profilesIn(t, tmp); len(left) > 0 {
				t.Errorf("profiles left in %s: %v", tmp, left)
			}
		})
	}
}

// TestStartTimeoutNoLeaks gives Start too little time for Chromium to
// answer, once while the launcher is barely running and once while Chromium
// is spawning its children: the half-started browser must be stopped and
// its profile removed.
func TestStartTimeoutNoLeaks(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	for _, timeout := range []time.Duration{50 * time.Millisecond, 400 * time.Millisecond} {
		t.Run(timeout.String(), func(t *testing.T) {
			t.Parallel()
			tmp := privateTempDir(t)
			mark := fmt.Sprintf("CDPKIT_TIMEOUT_TEST=%d-%d-%v", os.Getpid(), time.Now().UnixNano(), timeout)

			b, err := Start(t.Context(), &Options{ExecPath: exe, LaunchTimeout: timeout, tempDir: tmp, extraEnv: []string{mark}})
			if err == nil {
				b.Close()
				t.Skipf("Chromium answered within %v; nothing to test", timeout)
			}
			if !errors.Is(err, driver.ErrNoBrowser) {
				t.Errorf("Start err = %v, want one matching ErrNoBrowser", err)
			}
			browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
			waitNoProcs(t, "environment "+mark, withEnv(mark), browsertest.ProcWait)
			if left := profilesIn(t, tmp); len(left) > 0 {
				t.Errorf("profiles left in %s: %v", tmp, left)
			}
		})
	}
}

// settledRSS returns this process's resident set size in kB after a full
// GC that returns freed memory to the OS.
func settledRSS(t *testing.T) int {
	t.Helper()
	// Part of the measurement, not synchronisation: goroutines of the
	// closed browser wind down before memory is read.
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatalf("reading RSS: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("parsing %q: %v", line, err)
			}
			return kb
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
