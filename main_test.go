package cdpkit_test

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMain runs the tests and the examples, each of which launches and
// closes its own browser (the examples show Launch), one at a time, and
// then checks that no goroutine is left behind.
func TestMain(m *testing.M) { browsertest.Main(m, nil) }
