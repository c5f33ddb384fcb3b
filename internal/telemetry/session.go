package telemetry

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Reasons a session closed, for [Telemetry.SessionClosed].
const (
	ReasonExplicit = "explicit" // the client closed it (or stdin closed)
	ReasonEnded    = "ended"    // the client closed it or it idled out
	ReasonTimeout  = "timeout"  // it idled out
	ReasonSignal   = "signal"   // the process was told to stop
	ReasonCrash    = "crash"    // its server failed
)

// SessionOpened records that session began; it counts as active until
// [Telemetry.SessionClosed]. Opening an open session does nothing.
func (t *Telemetry) SessionOpened(id string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if _, ok := t.sessions[id]; ok {
		t.mu.Unlock()
		return
	}
	t.sessions[id] = &session{start: time.Now()}
	t.mu.Unlock()
	t.inst.active.Add(context.Background(), 1)
	t.log.Info("session created", "session_id", id)
}

// SessionClosed records that session ended, for reason (one of the Reason
// constants). Closing a session that is not open does nothing.
func (t *Telemetry) SessionClosed(id, reason string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	s, ok := t.sessions[id]
	delete(t.sessions, id)
	for k := range t.lastSnap {
		if k.session == id {
			delete(t.lastSnap, k)
		}
	}
	t.mu.Unlock()
	if !ok {
		return
	}
	d := time.Since(s.start)
	ctx := context.Background()
	t.inst.active.Add(ctx, -1)
	t.inst.sessionDur.Record(ctx, float64(d.Milliseconds()))
	t.log.Info("session closed", "session_id", id, "reason", reason, "total_commands", s.commands,
		"duration_ms", d.Milliseconds())
}

// countCommand adds a call to its session's count.
func (t *Telemetry) countCommand(id string) {
	t.mu.Lock()
	if s, ok := t.sessions[id]; ok {
		s.commands++
	}
	t.mu.Unlock()
}

// snapKey is one session's tab.
type snapKey struct{ session, tab string }

// maxSnapTimes bounds the snapshot times kept for stale-ref ages.
const maxSnapTimes = 10_000

// notedSnapshot remembers when session last read tab's refs.
func (t *Telemetry) notedSnapshot(session, tab string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lastSnap) >= maxSnapTimes {
		clear(t.lastSnap) // ages become unknown rather than memory growing
	}
	t.lastSnap[snapKey{session, tab}] = time.Now()
}

// staleRef warns that a call used a ref from a page state that is gone,
// with the age of the session's last snapshot of that tab (-1 unknown).
func (t *Telemetry) staleRef(session, tab, ref string, sc trace.SpanContext) {
	t.mu.Lock()
	at, ok := t.lastSnap[snapKey{session, tab}]
	t.mu.Unlock()
	age := int64(-1)
	if ok {
		age = time.Since(at).Milliseconds()
	}
	t.log.LogAttrs(context.Background(), slog.LevelWarn, "stale ref",
		slog.String("trace_id", traceID(sc)), slog.String("session_id", session),
		slog.String("target", tab), slog.String("ref_id", ref), slog.Int64("snapshot_age_ms", age))
}
