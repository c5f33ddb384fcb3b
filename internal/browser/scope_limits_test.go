package browser

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestScopeTakeReset checks that a replaced browser is reported once to
// each scope that had used it, and never to a scope that began after it.
func TestScopeTakeReset(t *testing.T) {
	use := func(b *Browser, s *driver.Scope) {
		b.mu.Lock()
		b.stateLocked(s)
		b.mu.Unlock()
	}
	first, second := &Browser{}, &Browser{}
	old, fresh := driver.NewScope(nil), driver.NewScope(nil)
	if old.TakeReset() {
		t.Error("a scope that used no browser reports a reset")
	}
	use(first, old)
	use(first, old)
	if old.TakeReset() {
		t.Error("a scope still on its first browser reports a reset")
	}
	use(second, old)
	use(second, fresh)
	if !old.TakeReset() {
		t.Error("a scope whose browser was replaced reports no reset")
	}
	if old.TakeReset() {
		t.Error("the reset is reported twice")
	}
	if fresh.TakeReset() {
		t.Error("a scope that began on the new browser reports a reset")
	}
	if (*driver.Scope)(nil).TakeReset() {
		t.Error("a nil scope reports a reset")
	}
}
