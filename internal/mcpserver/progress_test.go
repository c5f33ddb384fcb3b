package mcpserver

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProgressHeartbeat runs the heartbeat in a synctest bubble, where its
// ticker fires at exact fake times: one notification a second naming the
// last stage and the seconds so far, a stage at once when reported, and
// nothing after stop.
func TestProgressHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu  sync.Mutex
			got []mcp.ProgressNotificationParams
		)
		send := func(p *mcp.ProgressNotificationParams) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, *p)
			return nil
		}
		p := startProgress(send, "tok", "navigate_page")
		time.Sleep(2*heartbeat + heartbeat/2) // fake time: the call runs 2.5 s
		p.report("loading")
		time.Sleep(heartbeat) // fake time: past the tick at 3 s
		synctest.Wait()
		p.stop()
		time.Sleep(3 * heartbeat) // fake time: ticks that must not come after stop
		synctest.Wait()

		want := []mcp.ProgressNotificationParams{
			{ProgressToken: "tok", Progress: 1, Message: "navigate_page (1s)"},
			{ProgressToken: "tok", Progress: 2, Message: "navigate_page (2s)"},
			{ProgressToken: "tok", Progress: 3, Message: "loading"},
			{ProgressToken: "tok", Progress: 4, Message: "loading (3s)"},
		}
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("notifications (-want +got):\n%s", diff)
		}
	})
}
