package browsertest

import "testing"

// TestMain fails the run if a test leaves a goroutine running.
func TestMain(m *testing.M) { Main(m, nil) }
