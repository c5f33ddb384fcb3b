package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
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
	"--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions",
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

// process is a browser cdpkit launched: its own process group, a pipe for
// CDP, and a temporary profile removed on close.
type process struct {
	cmd     *exec.Cmd
	profile string // removed on close when ownProfile
	own     bool
	exited  chan struct{} // closed when the process has been reaped
	stderr  *sysproc.Tail

	egress *egress // nil when the policy has no address rule to enforce

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
			return nil, nil, &NoBrowserError{Reason: err.Error(), Hint: "drop that browser flag"}
		}
	}
	// A profile that o names belongs to the Manager, which keeps it across
	// relaunches; otherwise the browser gets one of its own.
	profile, own := o.profile, o.profile == ""
	if own {
		if profile, err = newProfile(); err != nil {
			return nil, nil, &NoBrowserError{Reason: "creating a temporary profile: " + err.Error(), Hint: "check that TMPDIR is writable"}
		}
	} else {
		clearSingleton(profile)
	}
	dropProfile := func(dir string) {
		if own {
			removeProfile(dir)
		}
	}

	// The browser reads commands on fd 3 and writes replies on fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		dropProfile(profile)
		return nil, nil, fmt.Errorf("browser: pipe: %w", err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		dropProfile(profile)
		return nil, nil, fmt.Errorf("browser: pipe: %w", err)
	}

	// Every connection of the browser goes through the egress proxy,
	// which judges the address it connects to (egress.go).
	var eg *egress
	if !o.noGuard && needsEgress(o.urlPolicy()) {
		if eg, err = startEgress(o.urlPolicy(), o.logger()); err != nil {
			cmdR.Close()
			cmdW.Close()
			resR.Close()
			resW.Close()
			dropProfile(profile)
			return nil, nil, err
		}
	}
	args := launchArgs(profile, o, eg)
	cmd := exec.Command(exe, args...)
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true, // so close can kill renderers and helpers too
		// A backstop for when cdpkit dies without closing: the pipe closing
		// already makes Chromium exit.
		Pdeathsig: syscall.SIGKILL,
	}
	p := &process{cmd: cmd, profile: profile, own: own, exited: make(chan struct{}), stderr: &sysproc.Tail{Max: 8 << 10}, egress: eg}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		cmdR.Close()
		cmdW.Close()
		resR.Close()
		resW.Close()
		dropProfile(profile)
		if eg != nil {
			eg.close()
		}
		return nil, nil, &NoBrowserError{Reason: fmt.Sprintf("starting %s: %v", exe, err), Hint: InstallHint}
	}
	cmdR.Close()
	resW.Close()
	go func() {
		cmd.Wait()
		close(p.exited)
	}()

	conn := cdp.NewConn(&processTransport{cdp.NewPipeTransport(resR, cmdW), p}, &cdp.Options{DefaultTimeout: o.CDPTimeout, Logger: o.logger()})
	go func() {
		// A browser that exits on its own closes the pipe, but make sure.
		<-p.exited
		conn.Close()
	}()
	if _, err := browserVersion(ctx, conn); err != nil {
		conn.Close()
		p.close(nil)
		reason := fmt.Sprintf("%s did not answer on the DevTools pipe: %v", exe, err)
		if tail := lastLine(p.stderr); tail != "" {
			reason += "; last stderr line: " + tail
		}
		return nil, nil, &NoBrowserError{Reason: reason, Hint: "run `cdpkit doctor` to diagnose"}
	}
	return p, conn, nil
}

func launchArgs(profile string, o *Options, eg *egress) []string {
	args := []string{"--remote-debugging-pipe", "--user-data-dir=" + profile}
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
	args = append(args, o.Args...)
	return append(args, "about:blank")
}

// needsNoSandbox reports whether Chromium's sandbox cannot work here: as
// root, or inside a container.
func needsNoSandbox() bool {
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
		// Kill the group even when the leader is gone: renderers and
		// helpers share it.
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			err = errors.New("browser: process did not exit after SIGKILL")
		}
		if p.egress != nil {
			p.egress.close()
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
