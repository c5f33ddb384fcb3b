package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cdpkit/cdpkit/internal/lease"
)

func TestStaleAgentTabs(t *testing.T) {
	row := func(id, stale, unreadable string) lease.Row {
		return lease.Row{Record: lease.Record{TargetID: id}, Stale: stale, Unreadable: unreadable}
	}
	rows := []lease.Row{
		row("dead", lease.DeadOwner, ""),      // reaped
		row("expired", lease.Expired, ""),     // reaped
		row("healthy", "", ""),                // a live lease
		row("unreadable", "", "unparseable"),  // never touched
		row("closed", lease.DeadOwner, ""),    // the tab is gone
		row("human", lease.DeadOwner, ""),     // no creation record
		row("badorigin", lease.DeadOwner, ""), // creation record unreadable
	}
	open := map[string]bool{"dead": true, "expired": true, "healthy": true, "unreadable": true, "human": true, "badorigin": true}
	origins := map[string]lease.OriginRow{
		"dead": {}, "expired": {}, "healthy": {}, "unreadable": {}, "closed": {},
		"badorigin": {Unreadable: "EACCES"},
	}
	var got []string
	for _, r := range staleAgentTabs(rows, open, origins) {
		got = append(got, r.TargetID)
	}
	if diff := cmp.Diff([]string{"dead", "expired"}, got); diff != "" {
		t.Errorf("reaped (-want +got):\n%s", diff)
	}
}

func TestTakeLease(t *testing.T) {
	tests := []struct {
		in, wantArgs, wantToken string
		wantErr                 bool
	}{
		{`{"selector":"b"}`, `{"selector":"b"}`, "", false},
		{`{"selector":"b","lease":"chrome:T:n"}`, `{"selector":"b"}`, "chrome:T:n", false},
		{`{"lease":5}`, "", "", true},
		{`{"text":"\"lease\""}`, `{"text":"\"lease\""}`, "", false},
	}
	for _, tt := range tests {
		args, token, err := takeLease(json.RawMessage(tt.in))
		if (err != nil) != tt.wantErr {
			t.Errorf("takeLease(%s) error %v", tt.in, err)
			continue
		}
		if tt.wantErr {
			continue
		}
		if string(args) != tt.wantArgs || token != tt.wantToken {
			t.Errorf("takeLease(%s) = %s, %q; want %s, %q", tt.in, args, token, tt.wantArgs, tt.wantToken)
		}
	}
}
