package browsertest

import (
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// leakWait is how long Main gives goroutines to wind down after the tests
// and the teardown before it calls them leaked. Goroutines of a closed
// browser (read loops, process waiters) exit within milliseconds on a quiet
// machine; the margin is for a loaded one.
const leakWait = 20 * time.Second

// Main runs a package's tests, then teardown (closing what the package's
// tests share, such as its one browser), then fails the run if goroutines
// the tests started are still running. Use it as the whole of TestMain:
//
//	func TestMain(m *testing.M) { browsertest.Main(m, closeShared) }
//
// teardown may be nil. An error from it fails the run. The leak check runs
// only when the tests passed, so that a failure is not buried under the
// goroutines it left behind. It does not return.
func Main(m *testing.M, teardown func() error) {
	code := m.Run()
	if teardown != nil {
		if err := teardown(); err != nil {
			fmt.Fprintf(os.Stderr, "browsertest: teardown: %v\n", err)
			code = max(code, 1)
		}
	}
	if code == 0 {
		if err := FindLeaks(leakWait); err != nil {
			fmt.Fprintf(os.Stderr, "browsertest: goroutines leaked by the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// FindLeaks waits up to within for the goroutines other than the caller's
// and the testing framework's to exit, and returns an error listing those
// still running then.
func FindLeaks(within time.Duration, opts ...goleak.Option) error {
	// Keep-alive connections of the default client are idle, not leaked.
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(within)
	for {
		err := goleak.Find(opts...)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		http.DefaultClient.CloseIdleConnections()
	}
}

// Eventually calls cond until it returns nil, and fails the test with
// cond's last error if that has not happened within the given time. Use it
// for the waits that must poll, where no event says the condition is met;
// within is a deadline for a bug to fail the test, not a promise of speed,
// so make it generous enough for a loaded machine.
func Eventually(t testing.TB, within time.Duration, cond func() error) {
	t.Helper()
	if err := Poll(within, cond); err != nil {
		t.Fatalf("not within %v: %v", within, err)
	}
}

// Poll calls cond until it returns nil, and returns nil then, or cond's
// last error once within has passed. It is Eventually for callers that
// report the failure themselves.
func Poll(within time.Duration, cond func() error) error {
	deadline := time.Now().Add(within)
	wait := time.Millisecond
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait) // the poll interval
		wait = min(2*wait, 50*time.Millisecond)
	}
}
