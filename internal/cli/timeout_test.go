package cli

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// TestTimeoutBoundsWholeCall checks that --timeout bounds the whole call,
// connecting included (issue #25 item 19): a daemon that accepts but never
// answers gets TIMEOUT after --timeout, not after the connect budget plus
// --timeout.
func TestTimeoutBoundsWholeCall(t *testing.T) {
	dir, err := os.MkdirTemp("", "ck")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("CDPKIT_STATE_DIR", dir)
	ln, err := net.Listen("unix", filepath.Join(dir, DefaultSession+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a daemon that hangs: it accepts and says nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := Run(t.Context(), []string{"--timeout", "1s", "list_pages"}, &stdout, &stderr, Options{Tools: tools.All(), Executable: "/nonexistent"})
	took := time.Since(start)
	if code != 1 || !strings.Contains(stderr.String(), "TIMEOUT") || !strings.Contains(stderr.String(), "within 1s") {
		t.Fatalf("exit %d, stderr %q; want 1 and TIMEOUT within 1s", code, stderr.String())
	}
	// Not a wall-clock bound on the machine's speed: the call must end
	// before the connect budget alone would have run out.
	if took >= startBudget {
		t.Errorf("the call took %v, at least the connect budget %v: --timeout does not bound connecting", took, startBudget)
	}
}
