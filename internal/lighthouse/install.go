// Package lighthouse runs Google's Lighthouse (the npm package, pinned to
// Version) against a browser cdpkit started for the audit, and reads its
// report. Lighthouse is installed on first use into a cache dir; node and
// npm must be on PATH. It knows nothing of CDP: the caller gives it the
// loopback port of a browser of the audit's own.
package lighthouse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Version is the Lighthouse release cdpkit installs and runs. 12.x is the
// newest line that runs on Node 18 and 20 (13 needs Node 22.19).
const Version = "12.8.2"

// installTimeout bounds one npm install. An install outlives the call
// that started it (it is ~200 MB): a later call finds it done.
const installTimeout = 10 * time.Minute

// InstallHint says how to make Lighthouse available.
const InstallHint = "install Node.js 18.16 or newer with npm (Debian/Ubuntu: apt-get install nodejs npm; elsewhere https://nodejs.org); " +
	"cdpkit then installs lighthouse@" + Version + " by itself on first use"

// ErrUnavailable means Lighthouse cannot run here: node or npm is
// missing, or installing the package failed. It comes as an
// *UnavailableError.
var ErrUnavailable = errors.New("lighthouse: unavailable")

// UnavailableError says why Lighthouse cannot run.
type UnavailableError struct {
	Reason string
	Hint   string
}

func (e *UnavailableError) Error() string { return "lighthouse: " + e.Reason }
func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

// Runner installs and runs Lighthouse. The zero value installs into
// DefaultCacheDir and finds node and npm on PATH. A Runner is safe for
// concurrent use; concurrent first uses share one install.
type Runner struct {
	// CacheDir holds one directory per installed version; empty means
	// DefaultCacheDir.
	CacheDir string
	// LookPath finds node and npm; nil means exec.LookPath.
	LookPath func(file string) (string, error)
	// Log, if set, receives install and run records (never page content).
	Log *slog.Logger

	mu      sync.Mutex
	install *install // guarded by mu; the install in progress or done
}

// install is one npm install, shared by the calls that wait for it.
type install struct {
	done chan struct{}
	err  error // set before done closes
}

// DefaultCacheDir is <user cache dir>/cdpkit/lighthouse, else the temp dir.
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cdpkit", "lighthouse")
	}
	return filepath.Join(os.TempDir(), "cdpkit-lighthouse")
}

func (r *Runner) lookPath(file string) (string, error) {
	if r.LookPath != nil {
		return r.LookPath(file)
	}
	return exec.LookPath(file)
}

func (r *Runner) dir() string {
	if r.CacheDir != "" {
		return filepath.Join(r.CacheDir, Version)
	}
	return filepath.Join(DefaultCacheDir(), Version)
}

// cliPath is Lighthouse's command-line entry point inside an install dir.
func cliPath(dir string) string {
	return filepath.Join(dir, "node_modules", "lighthouse", "cli", "index.js")
}

// Ensure returns node's path and Lighthouse's CLI script, installing the
// package first if it is not in the cache. The install runs on its own
// deadline (installTimeout), not ctx's: when ctx ends first Ensure returns
// ctx's error and the install goes on, for the next call. stage, if not
// nil, hears "installing lighthouse" when an install is needed.
func (r *Runner) Ensure(ctx context.Context, stage func(string)) (node, cli string, err error) {
	node, err = r.lookPath("node")
	if err != nil {
		return "", "", &UnavailableError{Reason: "node is not installed (not found on PATH)", Hint: InstallHint}
	}
	dir := r.dir()
	if _, err := os.Stat(cliPath(dir)); err == nil {
		return node, cliPath(dir), nil
	}
	npm, err := r.lookPath("npm")
	if err != nil {
		return "", "", &UnavailableError{Reason: "npm is not installed (not found on PATH), so lighthouse cannot be installed", Hint: InstallHint}
	}
	if stage != nil {
		stage("installing lighthouse@" + Version + " (once; about 200 MB)")
	}
	in := r.startInstall(npm, dir)
	select {
	case <-in.done:
	case <-ctx.Done():
		return "", "", fmt.Errorf("lighthouse: waiting for the install of lighthouse@%s (it goes on; retry shortly): %w", Version, ctx.Err())
	}
	if in.err != nil {
		return "", "", in.err
	}
	return node, cliPath(dir), nil
}

// startInstall returns the install in progress, or starts one. A failed
// install is forgotten once its waiters have it, so a later call retries.
func (r *Runner) startInstall(npm, dir string) *install {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.install != nil {
		select {
		case <-r.install.done:
			if r.install.err == nil {
				return r.install
			}
		default:
			return r.install
		}
	}
	in := &install{done: make(chan struct{})}
	r.install = in
	go func() {
		defer close(in.done)
		in.err = r.npmInstall(npm, dir)
	}()
	return in
}

// npmInstall installs lighthouse@Version into a temporary dir beside dir
// and renames it into place, so that an interrupted or concurrent install
// (another cdpkit process) never leaves a half-filled dir behind.
func (r *Runner) npmInstall(npm, dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return &UnavailableError{Reason: "creating the cache dir: " + err.Error(), Hint: "check that " + parent + " is writable"}
	}
	tmp, err := os.MkdirTemp(parent, "install-")
	if err != nil {
		return &UnavailableError{Reason: "creating the cache dir: " + err.Error(), Hint: "check that " + parent + " is writable"}
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	start := time.Now()
	if r.Log != nil {
		r.Log.Info("installing lighthouse", "version", Version, "dir", dir)
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error",
		"--prefix", tmp, "lighthouse@"+Version)
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &UnavailableError{Reason: fmt.Sprintf("npm install lighthouse@%s failed: %v: %s", Version, err, lastLines(out, 3)),
			Hint: "check that npm can reach its registry (proxy, offline machine), or install it by hand: npm install --prefix " + dir + " lighthouse@" + Version}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(cliPath(dir)); serr != nil { // not a concurrent install that won
			return &UnavailableError{Reason: "moving the install into place: " + err.Error(), Hint: "check that " + parent + " is writable"}
		}
	}
	if r.Log != nil {
		r.Log.Info("installed lighthouse", "version", Version, "ms", time.Since(start).Milliseconds())
	}
	return nil
}
