package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// quietFlags keep Chromium from reaching the network on its own and from
// throttling tabs that are not in front.
var quietFlags = []string{
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-default-apps",
	"--disable-extensions",
	"--disable-breakpad",
	"--disable-client-side-phishing-detection",
	"--disable-domain-reliability",
	// An error page reloads itself (about 1 s after it loads, then 5 s,
	// and so on) while the machine seems online; those navigations race
	// with the agent's own: a reload that met one failed with ERR_ABORTED.
	// Chromium skips it under --enable-automation, which cdpkit does not
	// pass.
	"--disable-auto-reload",
	// Chromium reads only the last --disable-features, so this is the one
	// (launchArgs folds a caller's list into it). NetworkTimeServiceQuerying
	// asks clients2.google.com/time for the time at start.
	// WebUIOmniboxPopup and WebUIOmniboxAimPopup give every window an
	// omnibox popup page (chrome://omnibox-popup.top-chrome) in a shared
	// renderer that works on each navigation of each tab: with 16 sessions
	// on 2 cores it took 18% of the browser's CPU for an omnibox no one
	// sees (TestNoTopChromeWebUI; docs/performance.md).
	disableFeatures + "Translate,OptimizationHints,OptimizationGuideModelDownloading,MediaRouter," +
		"InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater," +
		"DialMediaRouteProvider,CalculateNativeWinOcclusion,NetworkTimeServiceQuerying," +
		"WebUIOmniboxPopup,WebUIOmniboxAimPopup",
	// No field-trial (variations) config or seed fetch, no pings, no
	// component extensions that wake up on their own.
	"--disable-field-trial-config",
	// Services that --disable-component-update and
	// --disable-background-networking leave running are pointed at
	// 127.0.0.1:9, a port Chromium refuses to connect to (ERR_UNSAFE_PORT),
	// so they fail before any socket opens: the variations seed; the
	// component updater's on-demand checks (update.googleapis.com, at start
	// and every minute); the sign-in service's ListAccounts
	// (accounts.google.com, retried with backoff), which runs on every
	// profile and has no switch of its own. cdpkit's browser never signs in
	// to Google, so nothing is lost. TestQuietIdleBrowser counts attempts.
	"--variations-server-url=" + nowhere,
	"--component-updater=url-source=" + nowhere,
	"--gaia-url=" + nowhere,
	"--no-pings",
	"--disable-component-extensions-with-background-pages",
	"--disable-background-timer-throttling",
	"--disable-backgrounding-occluded-windows",
	"--disable-renderer-backgrounding",
	"--disable-dev-shm-usage",
	"--disable-gpu",
	"--metrics-recording-only",
	"--password-store=basic",
	"--use-mock-keychain",
	"--mute-audio",
	"--hide-scrollbars",
	"--window-size=1280,720",
	// Without it the first tab grows an "unsupported flag: --no-sandbox"
	// infobar a moment after start, which shrinks its viewport by 56px.
	"--test-type",
}

// nowhere is a URL Chromium never connects to: port 9 is on its list of
// unsafe ports.
const nowhere = "http://127.0.0.1:9/"

const disableFeatures = "--disable-features="

// process is a browser cdpkit launched: its own process group, a pipe for
// CDP, and a temporary profile removed on close.
type process struct {
	cmd     *exec.Cmd
	tree    *sysproc.Tree
	profile string // removed on close when ownProfile
	own     bool
	exited  chan struct{} // closed when the process has been reaped
	stderr  *sysproc.Tail

	egress *egress  // nil when the policy has no address rule to enforce and no proxy is set
	env    []string // added to the browser's environment (Options.launchEnv)
	// tmp is the browser's TMPDIR, an owned dir removed on close and swept
	// after a kill -9, so Chromium's org.chromium.Chromium.* scratch dirs
	// never pile up in the system temp dir (issue #25 item 18).
	tmp       string
	tmpParent string // where tmp goes (Options.tempDir); "" is os.TempDir()

	closing   atomic.Bool // close has begun: the pipe breaking is no crash
	closeOnce sync.Once
}

// launch starts the browser and returns its process and a CDP connection
// over the pipe. The context bounds the start.
func launch(ctx context.Context, o *Options) (*process, *cdp.Conn, error) {
	exe, err := FindExecutable(o.ExecPath)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range o.Args {
		if err := policy.CheckChromeArg(a); err != nil {
			return nil, nil, &driver.NoBrowserError{Reason: err.Error(), Hint: "drop that browser flag"}
		}
	}
	// A profile that o names belongs to the Manager, which keeps it across
	// relaunches, or to the user (UserDataDir), who keeps it for good;
	// otherwise the browser gets one of its own.
	profile, own := o.profile, false
	if profile == "" {
		profile = o.UserDataDir
	}
	switch {
	case profile == "":
		own = true
		if profile, err = newProfile(o.tempDir); err != nil {
			return nil, nil, &driver.NoBrowserError{Reason: "creating a temporary profile: " + err.Error(), Hint: "check that TMPDIR is writable"}
		}
	case profile == o.UserDataDir:
		if err := claimProfile(profile); err != nil {
			return nil, nil, err
		}
	default:
		clearSingleton(profile)
	}
	dropProfile := func(dir string) {
		if own {
			removeProfile(dir)
		}
	}

	// Every connection of the browser goes through the egress proxy,
	// which judges the address it connects to (egress.go).
	var eg *egress
	if !o.noGuard && (needsEgress(o.urlPolicy()) || o.ProxyServer != "") {
		if eg, err = startEgress(o.urlPolicy(), o.logger()); err == nil {
			err = eg.setUpstream(o.ProxyServer, o.ProxyBypass)
		}
		if err != nil {
			if eg != nil {
				eg.close()
			}
			dropProfile(profile)
			return nil, nil, err
		}
	}
	p := &process{profile: profile, own: own, exited: make(chan struct{}), stderr: &sysproc.Tail{Max: 8 << 10}, egress: eg,
		env: o.launchEnv(), tmpParent: o.tempDir}
	var t cdp.Transport
	if o.usePipe() {
		t, err = p.startPipe(exe, launchArgs(profile, "--remote-debugging-pipe", o, eg))
	} else {
		t, err = p.startPort(ctx, exe, launchArgs(profile, "--remote-debugging-port=0", o, eg))
	}
	if err != nil {
		if p.cmd == nil || p.cmd.Process == nil {
			// Never started: startPort's own failures went through close.
			if eg != nil {
				eg.close()
			}
			dropProfile(profile)
		}
		return nil, nil, err
	}

	conn := cdp.NewConn(&processTransport{t, p}, &cdp.Options{DefaultTimeout: o.CDPTimeout, Logger: o.logger()})
	go func() {
		// A browser that exits on its own closes the pipe, but make sure,
		// and say it crashed: the exit may be seen before the pipe breaks.
		<-p.exited
		conn.CloseWith(p.crashed(errors.New("connection closed")))
	}()
	if _, err := browserVersion(ctx, conn); err != nil {
		conn.Close()
		p.close(nil)
		reason := fmt.Sprintf("%s did not answer on the DevTools connection: %v", exe, err)
		if tail := lastLine(p.stderr); tail != "" {
			reason += "; last stderr line: " + tail
		}
		return nil, nil, &driver.NoBrowserError{Reason: reason}
	}
	return p, conn, nil
}

// usePipe reports whether to speak CDP over the --remote-debugging-pipe
// file descriptors 3 and 4. Windows cannot hand a child extra descriptors
// from Go (os/exec's ExtraFiles), so there the browser listens on a port
// of its choosing on 127.0.0.1 and cdpkit connects over a websocket.
func (o *Options) usePipe() bool { return runtime.GOOS != "windows" && !o.portTransport }

// startCmd starts the browser as a [sysproc.Tree], so that every helper
// process dies with it and, however cdpkit dies, with cdpkit.
func (p *process) startCmd(exe string, args []string, extra []*os.File) error {
	cmd := exec.Command(exe, args...)
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	parent := p.tmpParent
	if parent == "" {
		parent = os.TempDir()
	}
	if browserTempDirFits(parent) {
		tmp, err := sysproc.MkdirOwnedIn(p.tmpParent, tmpPrefix)
		if err != nil {
			return &driver.NoBrowserError{Reason: "creating a temporary directory: " + err.Error(), Hint: "check that TMPDIR is writable"}
		}
		p.tmp = tmp
		cmd.Env = append(append(os.Environ(), p.env...), "TMPDIR="+tmp)
	}
	cmd.ExtraFiles = extra
	cmd.Stderr = p.stderr
	p.cmd, p.tree = cmd, sysproc.NewTree(cmd)
	if err := p.tree.Start(); err != nil {
		if p.tmp != "" {
			sysproc.RemoveAll(p.tmp)
		}
		return &driver.NoBrowserError{Reason: fmt.Sprintf("starting %s: %v", exe, err), Hint: InstallHint}
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	return nil
}

// browserTempDirFits reports whether to give the browser a TMPDIR of its
// own under base: on Linux (elsewhere Chromium's scratch dirs live in
// per-user places the OS cleans), and only when Chromium's singleton socket,
// base/cdpkit-tmp-N/org.chromium.Chromium.XXXXXX/SingletonSocket, stays
// within the unix socket path limit; otherwise the browser cannot start.
func browserTempDirFits(base string) bool {
	const suffix = "/" + tmpPrefix + "4294967295/org.chromium.Chromium.XXXXXX/SingletonSocket"
	return runtime.GOOS == "linux" && len(base)+len(suffix) <= 107
}

// startPipe starts the browser with CDP on a pair of pipes: it reads
// commands on fd 3 and writes replies on fd 4. When cdpkit dies the pipes
// close and Chromium exits on its own.
func (p *process) startPipe(exe string, args []string) (cdp.Transport, error) {
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("browser: pipe: %w", err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, fmt.Errorf("browser: pipe: %w", err)
	}
	err = p.startCmd(exe, args, []*os.File{cmdR, resW})
	cmdR.Close()
	resW.Close()
	if err != nil {
		cmdW.Close()
		resR.Close()
		return nil, err
	}
	return cdp.NewPipeTransport(resR, cmdW), nil
}

// startPort starts the browser listening for CDP on a free loopback port,
// which it writes to DevToolsActivePort in its profile, and connects to it.
// The context bounds the wait.
func (p *process) startPort(ctx context.Context, exe string, args []string) (cdp.Transport, error) {
	portFile := filepath.Join(p.profile, "DevToolsActivePort")
	os.Remove(portFile) // a previous browser's, on a kept profile
	if err := p.startCmd(exe, args, nil); err != nil {
		return nil, err
	}
	fail := func(reason string) (cdp.Transport, error) {
		p.close(nil)
		if tail := lastLine(p.stderr); tail != "" {
			reason += "; last stderr line: " + tail
		}
		return nil, &driver.NoBrowserError{Reason: reason}
	}
	endpoint, err := pollUntil(ctx, 20*time.Millisecond, p.exited, func() (string, bool) {
		ep, err := activePortEndpoint(p.profile)
		return ep, err == nil
	})
	if err != nil {
		return fail(fmt.Sprintf("%s wrote no DevToolsActivePort: %v", exe, err))
	}
	t, err := cdp.DialWebSocket(ctx, endpoint, nil)
	if err != nil {
		return fail(fmt.Sprintf("connecting to %s at %s: %v", exe, endpoint, err))
	}
	return t, nil
}

// pollUntil calls f every interval until it reports done, ctx ends, or stop
// closes.
func pollUntil[T any](ctx context.Context, interval time.Duration, stop <-chan struct{}, f func() (T, bool)) (T, error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if v, ok := f(); ok {
			return v, nil
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		case <-stop:
			var zero T
			return zero, errors.New("the browser exited")
		case <-tick.C:
		}
	}
}

func launchArgs(profile, debugging string, o *Options, eg *egress) []string {
	args := []string{debugging, "--user-data-dir=" + profile}
	if !o.Headful {
		args = append(args, "--headless")
	}
	if needsNoSandbox() {
		args = append(args, "--no-sandbox")
	}
	args = append(args, quietFlags...)
	if eg != nil {
		args = append(args, eg.flags()...)
	}
	args = append(args, o.launchFlags()...)
	// Chromium keeps only the last --disable-features: a caller's list
	// joins cdpkit's instead of replacing it.
	for _, a := range o.Args {
		if extra, ok := strings.CutPrefix(a, disableFeatures); ok {
			if i := slices.IndexFunc(args, func(s string) bool { return strings.HasPrefix(s, disableFeatures) }); i >= 0 && extra != "" {
				args[i] += "," + extra
			}
			continue
		}
		args = append(args, a)
	}
	return append(args, "about:blank")
}

// needsNoSandbox reports whether Chromium's sandbox cannot work here: as
// root, or inside a container (Linux only; elsewhere the sandbox works).
func needsNoSandbox() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	if os.Geteuid() == 0 {
		return true
	}
	for _, f := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}

// close stops the browser: a polite Browser.close over conn when given,
// then SIGKILL to the whole process group, then the profile is removed. It
// returns once the process is reaped, bounded by a few seconds.
func (p *process) close(conn *cdp.Conn) error {
	var err error
	p.closeOnce.Do(func() {
		p.closing.Store(true)
		if conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			conn.Browser().Call(ctx, "Browser.close", nil, nil)
			cancel()
			select {
			case <-p.exited:
			case <-time.After(3 * time.Second):
			}
		}
		// Kill the tree even when the leader is gone: renderers and
		// helpers may not be.
		p.tree.Kill()
		select {
		case <-p.exited:
			p.tree.Release()
		case <-time.After(5 * time.Second):
			err = errors.New("browser: process did not exit after SIGKILL")
		}
		if p.egress != nil {
			p.egress.close()
		}
		if p.tmp != "" {
			sysproc.RemoveAll(p.tmp)
		}
		if p.own {
			if rerr := removeProfile(p.profile); rerr != nil && err == nil {
				err = fmt.Errorf("browser: removing profile: %w", rerr)
			}
		}
	})
	return err
}

func lastLine(t *sysproc.Tail) string {
	lines := strings.Split(t.String(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.Contains(l, "unexpected operator") && !strings.HasPrefix(l, "/usr/bin/") {
			return l
		}
	}
	return ""
}
