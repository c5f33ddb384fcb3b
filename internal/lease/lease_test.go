package lease

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// clock is a settable clock for staleness tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is a store with a settable clock and a settable set of live
// pids.
type fixture struct {
	s     *Store
	clock *clock
	mu    sync.Mutex
	dead  map[int]bool
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{clock: &clock{t: time.UnixMilli(1_700_000_000_000)}, dead: map[int]bool{}}
	s, err := Open(filepath.Join(t.TempDir(), "leases"), &Options{TTL: time.Minute, Now: f.clock.now, Alive: func(pid int) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return pid > 0 && !f.dead[pid]
	}})
	if err != nil {
		t.Fatal(err)
	}
	f.s = s
	return f
}

func (f *fixture) kill(pid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dead[pid] = true
}

var (
	tab    = Tab{Backend: "chrome", Browser: "b1", TargetID: "T1"}
	alice  = Owner{PID: 100, Client: "stdio"}
	bob    = Owner{PID: 200, Client: "stdio"}
	aliceH = Owner{PID: 100, Client: "http-2"}
)

func heldBy(t *testing.T, err error) *HeldError {
	t.Helper()
	var he *HeldError
	if !errors.As(err, &he) || !errors.Is(err, ErrHeld) {
		t.Fatalf("got %v, want a HeldError", err)
	}
	return he
}

func TestClaimConflicts(t *testing.T) {
	tests := []struct {
		name    string
		first   Claim
		second  Claim
		wantErr bool
	}{
		{"another process", Claim{Owner: alice}, Claim{Owner: bob}, true},
		{"another client of the process", Claim{Owner: alice}, Claim{Owner: aliceH}, true},
		{"same owner, explicit again: a fence", Claim{Owner: alice}, Claim{Owner: alice}, true},
		{"another owner's auto lease", Claim{Owner: alice, Auto: true}, Claim{Owner: bob}, true},
		{"own auto lease upgraded", Claim{Owner: alice, Auto: true}, Claim{Owner: alice}, false},
		{"own auto lease kept", Claim{Owner: alice, Auto: true}, Claim{Owner: alice, Auto: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			r1, err := f.s.Claim(tab, tt.first)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := f.s.Claim(tab, tt.second)
			if tt.wantErr {
				if he := heldBy(t, err); he.Record.Nonce != r1.Nonce {
					t.Errorf("holder nonce %s, want %s", he.Record.Nonce, r1.Nonce)
				}
				return
			}
			if err != nil {
				t.Fatalf("second claim: %v", err)
			}
			if r2.Auto != tt.second.Auto {
				t.Errorf("auto %v, want %v", r2.Auto, tt.second.Auto)
			}
		})
	}
}

func TestReclaim(t *testing.T) {
	t.Run("dead owner", func(t *testing.T) {
		f := newFixture(t)
		r1, _ := f.s.Claim(tab, Claim{Owner: alice, Label: "a"})
		f.kill(alice.PID)
		r2, err := f.s.Claim(tab, Claim{Owner: bob})
		if err != nil {
			t.Fatal(err)
		}
		if r2.Nonce == r1.Nonce {
			t.Error("reclaim kept the old nonce")
		}
		if _, err := f.s.Touch(tab, r1.Nonce); err == nil {
			t.Error("the old token still works after a reclaim")
		}
	})
	t.Run("expired", func(t *testing.T) {
		f := newFixture(t)
		r1, _ := f.s.Claim(tab, Claim{Owner: alice})
		f.clock.add(59 * time.Second)
		if _, err := f.s.Touch(tab, r1.Nonce); err != nil { // refreshes
			t.Fatal(err)
		}
		f.clock.add(59 * time.Second)
		if _, err := f.s.Claim(tab, Claim{Owner: bob}); err == nil {
			t.Fatal("a refreshed lease was reclaimed")
		}
		f.clock.add(2 * time.Second)
		if got := f.s.Stale(mustGet(t, f.s)); got != Expired {
			t.Errorf("stale %q, want %q", got, Expired)
		}
		if _, err := f.s.Claim(tab, Claim{Owner: bob}); err != nil {
			t.Fatalf("an expired lease is not reclaimable: %v", err)
		}
	})
}

func mustGet(t *testing.T, s *Store) *Record {
	t.Helper()
	r, err := s.Get(tab)
	if err != nil || r == nil {
		t.Fatalf("get: %v, %v", r, err)
	}
	return r
}

func TestRelease(t *testing.T) {
	f := newFixture(t)
	r, _ := f.s.Claim(tab, Claim{Owner: alice})
	if ok, err := f.s.Release(tab, "wrong"); ok || err != nil {
		t.Errorf("release with a wrong nonce: %v, %v", ok, err)
	}
	if ok, err := f.s.Release(tab, r.Nonce); !ok || err != nil {
		t.Errorf("release: %v, %v", ok, err)
	}
	if ok, _ := f.s.Release(tab, r.Nonce); ok {
		t.Error("a second release says it released")
	}
	r, _ = f.s.Claim(tab, Claim{Owner: alice})
	f.clock.add(2 * time.Minute)
	if ok, _ := f.s.Release(tab, r.Nonce); ok {
		t.Error("releasing an expired lease says it released")
	}
	if got, _ := f.s.Get(tab); got != nil {
		t.Error("an expired lease released by its holder stays")
	}
	r, _ = f.s.Claim(tab, Claim{Owner: alice, Auto: true})
	if got, _ := f.s.ReleaseOwned(tab, bob); got != nil {
		t.Error("another owner released an auto lease")
	}
	if got, _ := f.s.ReleaseOwned(tab, alice); got == nil || got.Nonce != r.Nonce {
		t.Errorf("owner's release: %v", got)
	}
}

func TestUnreadableIsNeverFree(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		spoil      func(path string) error
	}{
		{"garbage", "unparseable", func(p string) error { return os.WriteFile(p, []byte("{nope"), 0o600) }},
		{"empty record", "unparseable", func(p string) error { return os.WriteFile(p, []byte("{}"), 0o600) }},
		{"a directory", "not a regular file", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"a FIFO", "not a regular file", mkfifo}, // read, it would block the store forever
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if err := tt.spoil(f.s.leasePath(tab)); err != nil {
				t.Fatal(err)
			}
			he := heldBy(t, func() error { _, err := f.s.Claim(tab, Claim{Owner: bob}); return err }())
			if !strings.HasPrefix(he.Unreadable, tt.want) {
				t.Errorf("unreadable %q, want %s", he.Unreadable, tt.want)
			}
			rows, err := f.s.List(tab.Backend, tab.Browser)
			if err != nil || len(rows) != 1 {
				t.Fatalf("list: %v, %v", rows, err)
			}
			if rows[0].Unreadable == "" || rows[0].Stale != "" || rows[0].TargetID != "T1" {
				t.Errorf("row %+v: want unreadable, not stale, for T1", rows[0])
			}
		})
	}
}

func TestFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits")
	}
	f := newFixture(t)
	f.s.Claim(tab, Claim{Owner: alice})
	f.s.RecordOrigin(tab, "x")
	fi, _ := os.Stat(f.s.Dir())
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %o, want 700", fi.Mode().Perm())
	}
	for _, p := range []string{f.s.leasePath(tab), f.s.originPath(tab)} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v mode %o, want 600", p, err, fi.Mode().Perm())
		}
	}
	if err := os.Chmod(f.s.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f.s.Dir(), nil); err == nil {
		t.Error("opened a store others may read")
	}
}

func TestListKeepsBrowsersApart(t *testing.T) {
	f := newFixture(t)
	other := Tab{Backend: "firefox", Browser: "b1", TargetID: "T1"}
	f.s.Claim(tab, Claim{Owner: alice, Label: "chrome one"})
	f.s.Claim(other, Claim{Owner: bob, Label: "firefox one"})
	rows, _ := f.s.List("chrome", "b1")
	if len(rows) != 1 || rows[0].Label != "chrome one" {
		t.Errorf("rows %+v", rows)
	}
}

func TestToken(t *testing.T) {
	f := newFixture(t)
	r, _ := f.s.Claim(tab, Claim{Owner: alice})
	b, id, n, err := ParseToken(r.Token())
	if err != nil || b != "chrome" || id != "T1" || n != r.Nonce {
		t.Errorf("ParseToken(%q) = %s %s %s %v", r.Token(), b, id, n, err)
	}
	for _, bad := range []string{"", "x", "a:b", "a::c", "a:b:c:d"} {
		if _, _, _, err := ParseToken(bad); !errors.Is(err, ErrBadToken) {
			t.Errorf("ParseToken(%q): %v, want ErrBadToken", bad, err)
		}
	}
}

func TestOrigins(t *testing.T) {
	f := newFixture(t)
	t2 := Tab{Backend: "chrome", Browser: "b1", TargetID: "T2"}
	f.s.RecordOrigin(tab, "first")
	f.s.RecordOrigin(tab, "second") // the first record stays
	f.s.RecordOrigin(t2, "two")
	if row, ok := f.s.OriginOf(tab); !ok || row.Label != "first" {
		t.Errorf("origin %+v %v", row, ok)
	}
	os.WriteFile(f.s.originPath(Tab{Backend: "chrome", Browser: "b1", TargetID: "T3"}), []byte("x"), 0o600)
	f.s.PruneOrigins("chrome", "b1", map[string]bool{"T1": true})
	if rows, _ := f.s.Origins("chrome", "b1"); rows["T2"].Label != "two" {
		t.Error("a prune took a record young enough that its tab may not be known yet")
	}
	f.clock.add(time.Minute)
	kept, err := f.s.PruneOrigins("chrome", "b1", map[string]bool{"T1": true})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := f.s.Origins("chrome", "b1")
	if _, ok := rows["T2"]; ok {
		t.Error("a closed tab's origin survived a prune")
	}
	if rows["T1"].Label != "first" || rows["T3"].Unreadable != "unparseable" {
		t.Errorf("rows %+v", rows)
	}
	if d := cmp.Diff(rows, kept); d != "" {
		t.Errorf("PruneOrigins kept rows other than Origins reads next (-read +kept):\n%s", d)
	}
}

// TestConcurrentClaimsAcrossProcesses runs 50 claims of one tab at once
// from 5 processes of 10 goroutines each: exactly one wins, and the record
// left is whole.
func TestConcurrentClaimsAcrossProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "leases")
	if _, err := Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	const procs, each = 5, 10
	type helper struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
	}
	var hs []helper
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+dir, "LEASE_HELPER_N="+strconv.Itoa(each))
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h := helper{cmd, stdin, bufio.NewReader(stdout)}
		t.Cleanup(func() { h.stdin.Close(); h.cmd.Wait() })
		if line, err := h.out.ReadString('\n'); line != "ready\n" {
			t.Fatalf("helper: %q %v", line, err)
		}
		hs = append(hs, h)
	}
	for _, h := range hs {
		io.WriteString(h.stdin, "go\n")
	}
	wins, refused := 0, 0
	for _, h := range hs {
		line, err := h.out.ReadString('\n')
		var w, r int
		if _, serr := fmt.Sscanf(line, "wins %d refused %d", &w, &r); serr != nil {
			t.Fatalf("helper said %q (%v)", line, err)
		}
		wins += w
		refused += r
	}
	if wins != 1 || refused != procs*each-1 {
		t.Errorf("wins %d refused %d; want 1 and %d", wins, refused, procs*each-1)
	}
	s, _ := Open(dir, nil)
	rows, err := s.List(tab.Backend, tab.Browser)
	if err != nil || len(rows) != 1 || rows[0].Unreadable != "" || rows[0].Stale != "" {
		t.Errorf("after the race: %+v %v; want one whole live record", rows, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

const helperEnv = "LEASE_HELPER_DIR"

// TestMain runs a claim helper process when helperEnv is set: it waits
// for "go", claims tab from LEASE_HELPER_N goroutines at once, prints how
// many won, and stays alive (holding whatever it won) until stdin closes.
func TestMain(m *testing.M) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		browsertest.Main(m, nil)
	}
	s, err := Open(dir, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	n, _ := strconv.Atoi(os.Getenv("LEASE_HELPER_N"))
	in := bufio.NewReader(os.Stdin)
	fmt.Println("ready")
	in.ReadString('\n')
	var mu sync.Mutex
	var wg sync.WaitGroup
	wins, refused := 0, 0
	for i := range n {
		wg.Go(func() {
			_, err := s.Claim(tab, Claim{Owner: Owner{PID: os.Getpid(), Client: fmt.Sprintf("g%d", i)}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, ErrHeld):
				refused++
			default:
				fmt.Fprintln(os.Stderr, "claim:", err)
			}
		})
	}
	wg.Wait()
	fmt.Printf("wins %d refused %d\n", wins, refused)
	io.Copy(io.Discard, in)
	os.Exit(0)
}

func BenchmarkCheck(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "leases"), nil)
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.Claim(tab, Claim{Owner: Owner{PID: os.Getpid(), Client: "stdio"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unleased", func(b *testing.B) {
		other := Tab{Backend: "chrome", Browser: "b1", TargetID: "FREE"}
		for b.Loop() {
			if r, err := s.Get(other); err != nil || r != nil {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("leased", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Touch(tab, r.Nonce); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Every call a second after the last: each one writes the refresh.
	c := &clock{t: time.Now()}
	s2, _ := Open(filepath.Join(b.TempDir(), "leases"), &Options{Now: c.now})
	r2, _ := s2.Claim(tab, Claim{Owner: Owner{PID: os.Getpid(), Client: "stdio"}})
	b.Run("leased-refresh", func(b *testing.B) {
		for b.Loop() {
			c.add(time.Second)
			if _, err := s2.Touch(tab, r2.Nonce); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestOriginsCacheFollowsFiles: the ledger entries Origins keeps between
// calls follow the files: a file changed under it is read again, a
// removed one is gone, a damaged one is unreadable.
func TestOriginsCacheFollowsFiles(t *testing.T) {
	f := newFixture(t)
	f.s.RecordOrigin(tab, "first")
	if rows, _ := f.s.Origins("chrome", "b1"); rows["T1"].Label != "first" {
		t.Fatalf("rows %+v", rows)
	}
	p := f.s.originPath(tab)
	if err := os.WriteFile(p, []byte(`{"targetId":"T1","label":"rewritten by hand","createdAt":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if rows, _ := f.s.Origins("chrome", "b1"); rows["T1"].Label != "rewritten by hand" {
		t.Errorf("after a rewrite: rows %+v", rows)
	}
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rows, _ := f.s.Origins("chrome", "b1"); rows["T1"].Unreadable != "unparseable" {
		t.Errorf("after damage: rows %+v", rows)
	}
	os.Remove(p)
	if rows, _ := f.s.Origins("chrome", "b1"); len(rows) != 0 {
		t.Errorf("after removal: rows %+v", rows)
	}
}
