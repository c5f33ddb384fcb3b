package browser

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/webdriver"
)

// TestWebDriverErrorHints maps what a WebDriver remote end answers to a
// session request: each failure gets its own code and hint.
func TestWebDriverErrorHints(t *testing.T) {
	t.Parallel()
	c, _ := webdriver.NewClient("http://127.0.0.1:9", nil)
	tests := []struct {
		name     string
		raw      string
		err      error
		wantBusy bool
		wantHint string
	}{
		{"no login", "http://grid:4444", &webdriver.Error{Status: http.StatusUnauthorized}, false, "USER:PASSWORD@"},
		{"wrong login", "http://u:p@grid:4444", &webdriver.Error{Status: http.StatusUnauthorized}, false, "refused the user name and password"},
		{"forbidden", "http://grid:4444", &webdriver.Error{Status: http.StatusForbidden}, false, "wants a login"},
		{"grid queue timeout", "http://grid:4444", &webdriver.Error{Status: 500, Code: "session not created",
			Message: "Could not start a new session. New session request timed out "}, true, ""},
		{"withdrawn", "http://grid:4444", &webdriver.WithdrawnError{Waited: time.Second}, true, ""},
		{"no node", "http://grid:4444", &webdriver.Error{Status: 500, Code: "session not created",
			Message: "Could not start a new session. No nodes support the capabilities in the request "}, false, "no node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := webdriverError(c, "http://grid:4444", tt.raw, 2*time.Second, tt.err)
			var be *driver.BusyError
			var nb *driver.NoBrowserError
			switch {
			case tt.wantBusy:
				if !errors.As(err, &be) || be.Status != 0 || be.Waited != 2*time.Second {
					t.Errorf("webdriverError = %#v, want a BusyError after the 2s wait", err)
				}
			case !errors.As(err, &nb) || !strings.Contains(nb.Hint, tt.wantHint):
				t.Errorf("webdriverError = %#v, want a NoBrowserError whose hint has %q", err, tt.wantHint)
			}
		})
	}
}
