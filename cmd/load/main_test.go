package main

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMain fails the run if a test leaves a goroutine running.
func TestMain(m *testing.M) { browsertest.Main(m, nil) }
