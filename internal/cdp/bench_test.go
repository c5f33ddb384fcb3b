package cdp_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// BenchmarkEvaluateRoundTrip measures one Runtime.evaluate round trip on an
// attached page session: encode, write, browser work, read, route, decode.
func BenchmarkEvaluateRoundTrip(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr, func(b *testing.B) {
			sess, _ := newPage(b, sharedConn(b, tr))
			settle(b, sess)
			for b.Loop() {
				got, err := evaluate(b.Context(), sess, "1+1", false)
				if err != nil {
					b.Fatal(err)
				}
				if string(got) != "2" {
					b.Fatalf("got 1+1 = %s, want 2", got)
				}
			}
		})
	}
}

// TestRoundTripPercentiles reports the latency distribution of the round
// trip that BenchmarkEvaluateRoundTrip averages. It is a measurement, not a
// check, so it runs only with CDPKIT_BENCH=1:
//
//	CDPKIT_BENCH=1 go test -run TestRoundTripPercentiles -v ./internal/cdp/
func TestRoundTripPercentiles(t *testing.T) {
	if os.Getenv("CDPKIT_BENCH") != "1" {
		t.Skip("set CDPKIT_BENCH=1 to measure round-trip percentiles")
	}
	const warmup, n = 50, 1000
	// The transports take turns, call by call, so that a change in the
	// machine's load during the run (or the browsers still settling after
	// launch) weighs on both alike.
	sessions := make([]*cdp.Session, len(transports))
	took := make([][]time.Duration, len(transports))
	for i, tr := range transports {
		sessions[i], _ = newPage(t, sharedConn(t, tr))
		took[i] = make([]time.Duration, 0, n)
	}
	settle(t, sessions...)
	for round := range warmup + n {
		for i, sess := range sessions {
			start := time.Now()
			if _, err := evaluate(t.Context(), sess, "1+1", false); err != nil {
				t.Fatalf("%s: %v", transports[i], err)
			}
			if round >= warmup {
				took[i] = append(took[i], time.Since(start))
			}
		}
	}
	for i, tr := range transports {
		d := took[i]
		slices.Sort(d)
		t.Logf("roundtrip transport=%s n=%d p50=%dµs p95=%dµs p99=%dµs",
			tr, len(d), percentile(d, 50).Microseconds(), percentile(d, 95).Microseconds(), percentile(d, 99).Microseconds())
	}
}

// percentile returns the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(i, 0)]
}

// settle runs round trips on the sessions, in turns, for settleTime. A
// freshly launched Chromium spends its first seconds on start-up work that
// would otherwise inflate the first measurements several times over.
func settle(tb testing.TB, sessions ...*cdp.Session) {
	tb.Helper()
	const settleTime = 2 * time.Second
	for end := time.Now().Add(settleTime); time.Now().Before(end); {
		for _, sess := range sessions {
			if _, err := evaluate(tb.Context(), sess, "1+1", false); err != nil {
				tb.Fatal(err)
			}
		}
	}
}
