package cdpkit_test

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMain runs the tests (on one shared browser) and the examples (which
// show Launch, so launch their own, one at a time), closes the shared
// browser and checks that no goroutine is left behind.
func TestMain(m *testing.M) { browsertest.Main(m, closeShared) }
