// Package firefox is cdpkit's Firefox backend: it launches (or attaches
// to) Firefox, speaks WebDriver BiDi to it through internal/bidi, and
// implements the backend-neutral driver.Driver and driver.TabDriver for
// the tools Firefox can run. It uses nothing of the CDP core.
package firefox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
	"github.com/cdpkit/cdpkit/internal/wsconn"
)

// profilePrefix names the throwaway profiles of launched Firefoxes, so
// that the ones a killed cdpkit left are swept at the next start.
const profilePrefix = "cdpkit-firefox-"

// listenLine is what Firefox prints on stderr once its BiDi server listens.
const listenLine = "WebDriver BiDi listening on "

// Options say how to get a Firefox: launch one (the default) or attach to
// a running one (WSEndpoint). Nil means defaults.
type Options struct {
	// ExecPath is the Firefox to launch; empty means firefox-esr, then
	// firefox, on PATH.
	ExecPath string
	// Args are extra command-line arguments for a launched Firefox.
	Args []string
	// Headful shows a window instead of running headless.
	Headful bool
	// WSEndpoint attaches to a running Firefox's BiDi websocket
	// (ws://host:port or ws://host:port/session) instead of launching.
	WSEndpoint string
	// CommandTimeout bounds BiDi commands that have no other deadline;
	// zero means bidi.DefaultTimeout.
	CommandTimeout time.Duration
	// LaunchTimeout bounds starting or reaching the browser; zero means
	// 60 s. Firefox starts on a new profile every time, slower than
	// Chromium: on a busy 2-core machine a first start took 11 s to print
	// its BiDi address and 19 s more to answer session.new.
	LaunchTimeout time.Duration
	Logger        *slog.Logger
	// URLPolicy judges every navigation request of every tab and frame,
	// in the browser (see guard.go); nil means the defaults of
	// policy.Policy.
	URLPolicy *policy.Policy
	// DownloadDir is where downloads are saved, in every user context
	// (an isolated scope's own DownloadDir for its); empty leaves
	// Firefox's download behaviour alone and keeps no download table (see
	// downloads.go).
	DownloadDir string
	// DownloadMax caps one download's bytes, DownloadFiles the downloads
	// one session (scope) keeps and DownloadTotal the bytes they hold;
	// zero means driver.DefaultDownloadMax, driver.DefaultDownloadFiles and
	// driver.DefaultDownloadTotal. Firefox applies them when a download ends.
	DownloadMax   int64
	DownloadFiles int
	DownloadTotal int64
}

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

func (o *Options) launchTimeout() time.Duration {
	if o.LaunchTimeout > 0 {
		return o.LaunchTimeout
	}
	return 60 * time.Second
}

// FindExec returns the Firefox to launch: path if set, else firefox-esr or
// firefox on PATH.
func FindExec(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", &driver.NoBrowserError{Reason: "no Firefox found on PATH (firefox-esr or firefox)",
		Hint: "install firefox-esr (scripts/install-deps.sh does) or set the executable path"}
}

// process is a launched Firefox: its process tree, profile and stderr.
type process struct {
	cmd     *exec.Cmd
	tree    *sysproc.Tree
	profile string
	exited  chan struct{}
	stderr  *sysproc.Tail
	once    sync.Once
	url     string // the BiDi websocket address Firefox printed
}

// launch starts Firefox on a new throwaway profile and returns it with a
// BiDi connection on which session.new has run. ctx bounds the start.
func launch(ctx context.Context, o *Options) (*process, *bidi.Conn, error) {
	exe, err := FindExec(o.ExecPath)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.launchTimeout())
	defer cancel()
	sysproc.SweepOwned(o.logger(), profilePrefix)
	profile, err := sysproc.MkdirOwned(profilePrefix)
	if err != nil {
		return nil, nil, &driver.NoBrowserError{Reason: "creating a temporary profile: " + err.Error(), Hint: "check that TMPDIR is writable"}
	}
	if err := writeUserJS(profile); err != nil {
		sysproc.RemoveAll(profile)
		return nil, nil, &driver.NoBrowserError{Reason: "writing the profile's prefs: " + err.Error(), Hint: "check that TMPDIR is writable"}
	}
	args := []string{"--no-remote", "--profile", profile, "--remote-debugging-port=0", "--remote-allow-hosts", "127.0.0.1,localhost"}
	if !o.Headful {
		args = append(args, "--headless")
	}
	args = append(args, o.Args...)
	args = append(args, "about:blank")
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_REMOTE_SETTINGS_DEVTOOLS=0")
	if !o.Headful {
		cmd.Env = append(cmd.Env, "MOZ_HEADLESS=1")
	}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	p := &process{cmd: cmd, profile: profile, exited: make(chan struct{}), stderr: &sysproc.Tail{Max: 8 << 10}}
	p.tree = sysproc.NewTree(cmd)
	if err := p.tree.Start(); err != nil {
		pw.Close()
		sysproc.RemoveAll(profile)
		return nil, nil, &driver.NoBrowserError{Reason: fmt.Sprintf("starting %s: %v", exe, err), Hint: "install firefox-esr"}
	}
	go func() {
		cmd.Wait()
		pw.Close()
		close(p.exited)
	}()
	endpoint := make(chan string, 1)
	go p.readStderr(pr, endpoint)

	var url string
	select {
	case url = <-endpoint:
	case <-p.exited:
		p.close(nil)
		return nil, nil, &driver.NoBrowserError{Reason: fmt.Sprintf("%s exited before it listened: %s", exe, lastLine(p.stderr)), Hint: "run it by hand with --headless to see why"}
	case <-ctx.Done():
		p.close(nil)
		return nil, nil, &driver.NoBrowserError{Reason: fmt.Sprintf("%s did not print its WebDriver BiDi address in time", exe), Hint: "a loaded machine may need a longer launch timeout"}
	}
	p.url = url
	conn, err := connect(ctx, url, o)
	if err != nil {
		p.close(nil)
		return nil, nil, &driver.NoBrowserError{Reason: fmt.Sprintf("%s did not start a BiDi session: %v", exe, err), Hint: "check that this is Firefox 129 or newer; on a busy machine a start can take longer: try again"}
	}
	go func() {
		<-p.exited
		conn.CloseWith(errors.New("firefox exited"))
	}()
	return p, conn, nil
}

// readStderr sends the BiDi address once Firefox prints it, and keeps the
// tail of stderr for error messages.
func (p *process) readStderr(r io.Reader, endpoint chan<- string) {
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		line := sc.Text()
		p.stderr.Write([]byte(line + "\n"))
		if !sent {
			if i := strings.Index(line, listenLine); i >= 0 {
				endpoint <- strings.TrimSpace(line[i+len(listenLine):])
				sent = true
			}
		}
	}
	io.Copy(io.Discard, r)
}

// maxMessage bounds one message from Firefox: screenshots and PDFs arrive
// as base64 in one (the same bound as CDP's).
const maxMessage = 256 << 20

// connect dials a BiDi websocket and starts a session on it.
func connect(ctx context.Context, url string, o *Options) (*bidi.Conn, error) {
	if !strings.HasSuffix(url, "/session") && !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(url, "ws://"), "wss://"), "/") {
		url += "/session"
	}
	t, err := wsconn.Dial(ctx, url, nil, maxMessage)
	if err != nil {
		return nil, err
	}
	conn := bidi.NewConn(t, &bidi.Options{DefaultTimeout: o.CommandTimeout, Logger: o.logger()})
	if _, err := conn.NewSession(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// close stops Firefox: a polite browser.close over conn when given, then a
// kill of the whole process tree, then the profile is removed. It returns
// once the process is reaped, bounded by a few seconds.
func (p *process) close(conn *bidi.Conn) error {
	var err error
	p.once.Do(func() {
		if conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			conn.Call(ctx, "browser.close", nil, nil)
			cancel()
			select {
			case <-p.exited:
			case <-time.After(3 * time.Second):
			}
		}
		p.tree.Kill() // content processes may outlive the parent
		select {
		case <-p.exited:
			p.tree.Release()
		case <-time.After(5 * time.Second):
			err = errors.New("firefox: process did not exit after kill")
		}
		if rerr := sysproc.RemoveAll(p.profile); rerr != nil && err == nil {
			err = fmt.Errorf("firefox: removing profile: %w", rerr)
		}
	})
	return err
}

func lastLine(t *sysproc.Tail) string {
	lines := strings.Split(strings.TrimSpace(t.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
