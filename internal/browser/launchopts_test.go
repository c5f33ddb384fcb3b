package browser

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

func TestParseViewport(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want *driver.Viewport
	}{
		{"800x600", &driver.Viewport{Width: 800, Height: 600, DeviceScaleFactor: 1}},
		{" 1280X720 ", &driver.Viewport{Width: 1280, Height: 720, DeviceScaleFactor: 1}},
		{"800", nil},
		{"800x", nil},
		{"0x600", nil},
		{"800x99999", nil},
		{"axb", nil},
	} {
		got, err := driver.ParseViewport(tt.in)
		if tt.want == nil {
			if !errors.Is(err, driver.ErrInvalidArgument) {
				t.Errorf("ParseViewport(%q) = %v, %v; want ErrInvalidArgument", tt.in, got, err)
			}
			continue
		}
		if err != nil || *got != *tt.want {
			t.Errorf("ParseViewport(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestCheckLaunchOptions(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	headedWant := driver.ErrNoDisplay
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		headedWant = nil
	}
	for _, tt := range []struct {
		name string
		o    Options
		want error // nil, ErrInvalidArgument or ErrNoDisplay
	}{
		{"none", Options{}, nil},
		{"all good", Options{UserDataDir: t.TempDir(), Viewport: &driver.Viewport{Width: 800, Height: 600}, UserAgent: "x/1",
			ProxyServer: "127.0.0.1:3128", ProxyBypass: []string{"*.example.com"}, Lang: "pt-BR", Timezone: "Europe/Berlin", IgnoreHTTPSErrors: true}, nil},
		{"headed without a display", Options{Headful: true}, headedWant},
		{"headed attached", Options{Headful: true, BrowserURL: "http://127.0.0.1:9222"}, driver.ErrInvalidArgument},
		{"user agent attached", Options{UserAgent: "x", WSEndpoint: "ws://127.0.0.1:1/x"}, driver.ErrInvalidArgument},
		{"relative profile", Options{UserDataDir: "profile"}, driver.ErrInvalidArgument},
		{"bad viewport", Options{Viewport: &driver.Viewport{Width: 0, Height: 5}}, driver.ErrInvalidArgument},
		{"user agent with a newline", Options{UserAgent: "x\r\nEvil: 1"}, driver.ErrInvalidArgument},
		{"bad lang", Options{Lang: "german!"}, driver.ErrInvalidArgument},
		{"bad timezone", Options{Timezone: "Mars/Olympus"}, driver.ErrInvalidArgument},
		{"Local timezone", Options{Timezone: "Local"}, driver.ErrInvalidArgument},
		{"socks proxy", Options{ProxyServer: "socks5://127.0.0.1:1080"}, driver.ErrInvalidArgument},
		{"proxy without port", Options{ProxyServer: "http://proxy.example"}, driver.ErrInvalidArgument},
		{"bypass without proxy", Options{ProxyBypass: []string{"x"}}, driver.ErrInvalidArgument},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.CheckLaunchOptions()
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("CheckLaunchOptions() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCheckDisplay(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("a display always exists here")
	}
	for _, env := range [][2]string{{"DISPLAY", ":0"}, {"WAYLAND_DISPLAY", "wayland-0"}} {
		t.Setenv("DISPLAY", "")
		t.Setenv("WAYLAND_DISPLAY", "")
		t.Setenv(env[0], env[1])
		if err := CheckDisplay(); err != nil {
			t.Errorf("with %s=%s: CheckDisplay() = %v, want nil", env[0], env[1], err)
		}
	}
}

func TestLaunchFlagsAndEnv(t *testing.T) {
	t.Parallel()
	o := Options{Viewport: &driver.Viewport{Width: 800, Height: 600}, UserAgent: "ua/1", Lang: "de-DE", Timezone: "Asia/Tokyo", IgnoreHTTPSErrors: true}
	want := []string{"--window-size=800,600", "--user-agent=ua/1", "--lang=de-DE", "--accept-lang=de-DE", "--ignore-certificate-errors"}
	if diff := cmp.Diff(want, o.launchFlags()); diff != "" {
		t.Errorf("launchFlags (-want +got):\n%s", diff)
	}
	env := o.launchEnv()
	if env[0] != "TZ=Asia/Tokyo" {
		t.Errorf("launchEnv()[0] = %q, want TZ=Asia/Tokyo", env[0])
	}
	if d := o.tabDefaults(); d.Viewport == o.Viewport || d.Viewport.Width != 800 || d.Timezone != "Asia/Tokyo" || d.Locale != "de-DE" {
		t.Errorf("tabDefaults() = %+v, want a copy of the viewport, the time zone and the locale", d)
	}
}

func TestParseSingletonLock(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		host string
		pid  int
	}{
		{"myhost-1234", "myhost", 1234},
		{"build-box-7-42", "build-box-7", 42},
		{"nopid", "", 0},
		{"host-x", "", 0},
	} {
		if host, pid := parseSingletonLock(tt.in); host != tt.host || pid != tt.pid {
			t.Errorf("parseSingletonLock(%q) = %q, %d; want %q, %d", tt.in, host, pid, tt.host, tt.pid)
		}
	}
}

// TestClaimProfile checks the SingletonLock rules with made-up locks: a
// live holder on this host (this test process) refuses, naming its pid;
// another host refuses; a dead holder's lock is cleared.
func TestClaimProfile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows marks a profile with a locked file, not a symlink")
	}
	t.Parallel()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	lock := func(t *testing.T, target string) string {
		dir := t.TempDir()
		if err := os.Symlink(target, filepath.Join(dir, "SingletonLock")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("live holder", func(t *testing.T) {
		dir := lock(t, fmt.Sprintf("%s-%d", host, os.Getpid()))
		var pu *driver.ProfileInUseError
		err := claimProfile(dir)
		if !errors.As(err, &pu) || pu.PID != os.Getpid() || pu.Host != "" {
			t.Errorf("claimProfile = %v, want a *ProfileInUseError with pid %d", err, os.Getpid())
		}
		if !errors.Is(err, driver.ErrProfileInUse) {
			t.Errorf("claimProfile's error does not wrap ErrProfileInUse")
		}
	})
	t.Run("other host", func(t *testing.T) {
		dir := lock(t, "elsewhere.example-99")
		var pu *driver.ProfileInUseError
		if err := claimProfile(dir); !errors.As(err, &pu) || pu.Host != "elsewhere.example" || pu.PID != 99 {
			t.Errorf("claimProfile = %v, want in use by pid 99 on elsewhere.example", err)
		}
	})
	t.Run("dead holder", func(t *testing.T) {
		dir := lock(t, fmt.Sprintf("%s-%d", host, deadPID(t)))
		if err := claimProfile(dir); err != nil {
			t.Fatalf("claimProfile = %v, want nil for a stale lock", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "SingletonLock")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the stale SingletonLock is still there: %v", err)
		}
	})
	t.Run("missing dir is made", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "new", "profile")
		if err := claimProfile(dir); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("the profile dir was not made: %v", err)
		}
	})
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess(os.Args[0], []string{os.Args[0], "-test.run=^$"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

func TestBypassList(t *testing.T) {
	t.Parallel()
	l := parseBypass([]string{"*.corp.example, .internal.example;exact.example", "10.0.0.0/8", "<local>", "port.example:8080", "https://schemed.example"})
	for _, tt := range []struct {
		hostport string
		want     bool
	}{
		{"a.corp.example:443", true},
		{"corp.example:443", false},
		{"x.internal.example:80", true},
		{"exact.example:80", true},
		{"sub.exact.example:80", false},
		{"10.1.2.3:80", true},
		{"11.1.2.3:80", false},
		{"intranet:80", true},
		{"port.example:8080", true},
		{"port.example:80", false},
		{"schemed.example:443", true},
		{"example.com:443", false},
		{"127.0.0.1:80", true}, // loopback bypasses, as in Chromium
		{"localhost:80", true},
		{"[::1]:80", true},
	} {
		if got := l.match(tt.hostport); got != tt.want {
			t.Errorf("match(%q) = %v, want %v", tt.hostport, got, tt.want)
		}
	}
	if parseBypass([]string{"<-loopback>"}).match("127.0.0.1:80") {
		t.Errorf("with <-loopback>, loopback bypasses the proxy; want it proxied")
	}
	if !parseBypass([]string{"*"}).match("anything.example:1") {
		t.Errorf("* does not match everything")
	}
}

// TestEgressUpstream drives the egress proxy with a Go client, no browser:
// allowed requests reach the upstream proxy by name (plain http and
// CONNECT), requests the policy refuses never do.
func TestEgressUpstream(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "site") }))
	defer site.Close()
	var mu sync.Mutex
	var seen []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == http.MethodConnect {
			seen = append(seen, "CONNECT "+r.Host+" auth="+r.Header.Get("Proxy-Authorization"))
		} else {
			seen = append(seen, "GET "+r.URL.String()+" auth="+r.Header.Get("Proxy-Authorization"))
		}
		mu.Unlock()
		if r.Method == http.MethodConnect {
			http.Error(w, "no tunnels here", http.StatusForbidden)
			return
		}
		io.WriteString(w, "via upstream")
	}))
	defer up.Close()

	start := func(t *testing.T, p *policy.Policy) *http.Client {
		e, err := startEgress(p, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.close)
		if err := e.setUpstream("http://u:p%40ss@"+up.Listener.Addr().String(), []string{"<-loopback>"}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(e.flags(), " "), "--proxy-bypass-list=<-loopback>") {
			t.Errorf("flags %q do not send loopback to the egress proxy", e.flags())
		}
		proxyURL := &url.URL{Scheme: "http", Host: e.ln.Addr().String()}
		tr := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	const auth = "auth=Basic dTpwQHNz" // u:p@ss

	t.Run("allowed", func(t *testing.T) {
		c := start(t, &policy.Policy{})
		resp, err := c.Get(site.URL + "/page")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "via upstream" {
			t.Errorf("body = %q, want the upstream's answer", body)
		}
		// A tunnel the upstream refuses fails; what matters is that it was asked.
		if _, err := c.Get("https://" + site.Listener.Addr().String() + "/"); err == nil {
			t.Errorf("https through an upstream that refuses CONNECT succeeded")
		}
		mu.Lock()
		defer mu.Unlock()
		for _, want := range []string{"GET " + site.URL + "/page " + auth, "CONNECT " + site.Listener.Addr().String() + " " + auth} {
			found := false
			for _, s := range seen {
				found = found || s == want
			}
			if !found {
				t.Errorf("upstream saw %q, want %q among them", seen, want)
			}
		}
	})
	t.Run("no address rules: unresolvable names reach the upstream", func(t *testing.T) {
		c := start(t, &policy.Policy{AllowPrivateNetworks: true})
		resp, err := c.Get("http://only-the-proxy-knows.invalid/x")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET through the upstream = %s, want 200", resp.Status)
		}
	})
	t.Run("refused by the policy", func(t *testing.T) {
		c := start(t, &policy.Policy{BlockLoopback: true})
		blocked := site.URL + "/blocked"
		if resp, err := c.Get(blocked); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Errorf("GET %s through the egress proxy = %s, want refused", blocked, resp.Status)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, s := range seen {
			if strings.Contains(s, "/blocked") {
				t.Errorf("the upstream saw %q, which the policy refuses", s)
			}
		}
	})
}

// TestManagerKeepsUserDataDir checks that a Manager on a --user-data-dir
// restarts on it after an idle stop and leaves it in place on Close, while
// its temporary profiles would be removed.
func TestManagerKeepsUserDataDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "profile")
	m := NewManager(&Options{ExecPath: browsertest.ExecPath(t), UserDataDir: dir})
	dm := driver.NewManager(m.Backend(), &driver.ManagerOptions{IdleTimeout: 50 * time.Millisecond})
	defer dm.Close()
	for round := range 2 {
		release := dm.Use()
		b, err := m.Browser(t.Context())
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if b.ProfileDir() != dir {
			t.Errorf("round %d: the browser runs on %q, want %q", round, b.ProfileDir(), dir)
		}
		release()
		browsertest.Eventually(t, time.Minute, func() error {
			if m.Current() != nil {
				return errors.New("the idle browser is still running")
			}
			return nil
		})
		if _, err := os.Stat(filepath.Join(dir, "Default")); err != nil {
			t.Fatalf("round %d: the profile is gone after an idle stop: %v", round, err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitNoProcesses(t, "--user-data-dir="+dir, browsertest.ProcWait)
	if _, err := os.Stat(filepath.Join(dir, "Default")); err != nil {
		t.Errorf("the profile is gone after Close: %v", err)
	}
}
