package driver

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeBackend counts what a Manager asks of it; it plays Resetter and
// CallEnder.
type fakeBackend struct {
	mu                        sync.Mutex
	stops, closes, callsEnded int
	reset                     bool
}

func (f *fakeBackend) Name() string                           { return "fake" }
func (f *fakeBackend) Driver(context.Context) (Driver, error) { return nil, nil }
func (f *fakeBackend) Current() Driver                        { return nil }
func (f *fakeBackend) Stop() error                            { f.mu.Lock(); f.stops++; f.mu.Unlock(); return nil }
func (f *fakeBackend) Close() error                           { f.mu.Lock(); f.closes++; f.mu.Unlock(); return nil }
func (f *fakeBackend) CallEnded()                             { f.mu.Lock(); f.callsEnded++; f.mu.Unlock() }
func (f *fakeBackend) TakeReset() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reset
	f.reset = false
	return r
}
func (f *fakeBackend) counts() (stops, closes, callsEnded int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stops, f.closes, f.callsEnded
}

// TestManagerIdleStop: the Manager stops its backend IdleTimeout after the
// last call ended, never during a call, and tells a CallEnder of each
// call's end.
func TestManagerIdleStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		be := &fakeBackend{}
		m := NewManager(be, &ManagerOptions{IdleTimeout: time.Second})
		release := m.Use()
		time.Sleep(3 * time.Second) // fake time: a call longer than the idle timeout
		synctest.Wait()
		if stops, _, _ := be.counts(); stops != 0 {
			t.Fatalf("stops during a call = %d, want 0", stops)
		}
		release()
		release() // a second release is a no-op
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if stops, _, ended := be.counts(); stops != 1 || ended != 1 {
			t.Errorf("after the idle timeout: stops %d, calls ended %d; want 1, 1", stops, ended)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if _, closes, _ := be.counts(); closes != 1 {
			t.Errorf("closes = %d, want 1", closes)
		}
	})
}

// TestManagerRoles: TakeReset asks a Resetter, and a nil Manager's Use and
// TakeReset do nothing.
func TestManagerRoles(t *testing.T) {
	be := &fakeBackend{reset: true}
	m := NewManager(be, nil)
	defer m.Close()
	if !m.TakeReset() || m.TakeReset() {
		t.Error("TakeReset did not report the backend's reset once")
	}
	if m.Peek() != nil {
		t.Error("Peek on a backend that is no Peeker should be nil")
	}
	var nilM *Manager
	nilM.Use()()
	if nilM.TakeReset() {
		t.Error("a nil Manager reported a reset")
	}
}
