package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/lease"
)

// leased returns copies of h whose calls come from two clients of this
// process sharing one lease store.
func leased(t *testing.T, h *harness) (a, b *harness) {
	t.Helper()
	s, err := lease.Open(filepath.Join(t.TempDir(), "leases"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a = h.with(func(env *Env) { env.Leases, env.Client = s, "client-a" })
	b = h.with(func(env *Env) { env.Leases, env.Client = s, "client-b" })
	return a, b
}

// TestLeaseDoor checks the door's lease paths inside one process: another
// client is refused before anything runs, the token names its tab, and a
// token for another tab is a bad argument.
func TestLeaseDoor(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	a, b := leased(t, h)
	other := a.mustCall(t, "new_page", `{}`)["id"].(string)
	c := a.mustCall(t, "claim_page", `{"label":"fence"}`)
	id, token := c["targetId"].(string), c["lease"].(string)

	_, err := b.call(t, "take_snapshot", fmt.Sprintf(`{"target":%q}`, id))
	wantCode(t, err, LeaseConflict, "fence")
	_, err = a.call(t, "take_snapshot", fmt.Sprintf(`{"target":%q}`, id))
	wantCode(t, err, LeaseConflict, id) // an explicit lease demands its token from its holder too
	a.mustCall(t, "take_snapshot", fmt.Sprintf(`{"lease":%q}`, token))
	_, err = a.call(t, "take_snapshot", fmt.Sprintf(`{"lease":%q,"target":%q}`, token, other))
	wantCode(t, err, InvalidArgs, other)
	_, err = a.call(t, "take_snapshot", `{"lease":"nonsense"}`)
	wantCode(t, err, InvalidArgs, "nonsense")
	_, err = a.call(t, "list_pages", fmt.Sprintf(`{"lease":%q}`, token))
	wantCode(t, err, InvalidArgs, "lease") // not a tab tool

	pages := a.mustCall(t, "list_pages", `{}`)["pages"].([]any)
	origins := map[string]string{}
	for _, p := range pages {
		p := p.(map[string]any)
		origins[p["id"].(string)] = p["origin"].(string)
	}
	if origins[id] != "agent" || origins[other] != "agent" {
		t.Errorf("origins %v: want agent for the tabs new_page and claim_page opened", origins)
	}

	rel := b.mustCall(t, "release_page", fmt.Sprintf(`{"lease":%q}`, token))
	if rel["released"] != true || rel["closed"] != true {
		t.Errorf("release_page = %v: want released, and closed (cdpkit opened it)", rel)
	}
	again := a.mustCall(t, "release_page", fmt.Sprintf(`{"lease":%q}`, token))
	if again["released"] != false || again["closed"] != false {
		t.Errorf("a second release = %v: want nothing released or closed", again)
	}
}

// TestLeaseCheckLatency measures what the lease check adds to a tab tool
// call: p50 of Tool.Call on a cheap read-only tool, interleaved, on a tab
// nobody leased and on a tab leased by the caller (with its token), each
// against the same tab with leases off. It asserts nothing; run it with
// CDPKIT_MEASURE=1 -v.
func TestLeaseCheckLatency(t *testing.T) {
	if os.Getenv("CDPKIT_MEASURE") == "" {
		t.Skip("a measurement: set CDPKIT_MEASURE=1")
	}
	h := newHarness(t, nil)
	a, _ := leased(t, h)
	free := a.mustCall(t, "new_page", `{}`)["id"].(string)
	c := a.mustCall(t, "claim_page", `{}`)
	const n = 500
	tool := toolNamed(t, "list_console_messages")
	modes := []struct {
		env  *Env
		args string
	}{
		{h.env, fmt.Sprintf(`{"target":%q}`, free)},
		{a.env, fmt.Sprintf(`{"target":%q}`, free)},
		{h.env, fmt.Sprintf(`{"target":%q}`, c["targetId"])},
		{a.env, fmt.Sprintf(`{"lease":%q}`, c["lease"])},
	}
	// Interleaved, so that the machine's load falls on every mode alike.
	ds := make([][]time.Duration, len(modes))
	for range n {
		for i, m := range modes {
			start := time.Now()
			if _, err := tool.Call(t.Context(), m.env, []byte(m.args)); err != nil {
				t.Fatal(err)
			}
			ds[i] = append(ds[i], time.Since(start))
		}
	}
	p50 := make([]time.Duration, len(modes))
	for i := range ds {
		slices.Sort(ds[i])
		p50[i] = ds[i][n/2]
	}
	off, unleased, offHeld, held := p50[0], p50[1], p50[2], p50[3]
	t.Logf("p50 of %d list_console_messages calls: tab A leases off %v, unleased %v (+%v); tab B leases off %v, leased with token %v (+%v)",
		n, off, unleased, unleased-off, offHeld, held, held-offHeld)
}
