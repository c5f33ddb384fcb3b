package driver

import (
	"errors"
	"testing"
)

func TestMockTableTakeOrderAndTimes(t *testing.T) {
	var m MockTable
	tab := MockTab{ID: "t1", Context: "c1"}
	first, err := m.Add(MockRule{URL: "*/api/*", Action: MockFulfill, Status: 201, Times: 2}, tab)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Add(MockRule{URL: "*/api/*", Action: MockFail}, tab); err != nil {
		t.Fatal(err)
	}
	req := MockRequest{URL: "http://x/api/a", Method: "GET", ResourceType: "fetch"}
	for i, want := range []string{MockFulfill, MockFulfill, MockFail} {
		r, fail, ok := m.Take(tab, req)
		if !ok || fail || r.Action != want {
			t.Fatalf("request %d: got %q ok=%v fail=%v, want %q", i, r.Action, ok, fail, want)
		}
	}
	rules, _ := m.List(MockQuery{IDs: []int{first.ID}}, MockTab{}, func(string) bool { return true })
	if len(rules) != 1 || !rules[0].Expired || rules[0].Hits != 2 {
		t.Fatalf("first rule after its two times: %+v", rules)
	}
	if _, _, ok := m.Take(tab, MockRequest{URL: "http://x/other"}); ok {
		t.Fatal("a request no rule matches was taken")
	}
}

func TestMockTableFilters(t *testing.T) {
	var m MockTable
	tab := MockTab{ID: "t1", Context: "c1"}
	if _, err := m.Add(MockRule{URL: "*", Action: MockFail, Method: "POST", ResourceType: "xhr"}, tab); err != nil {
		t.Fatal(err)
	}
	for _, req := range []MockRequest{
		{URL: "http://x/", Method: "GET", ResourceType: "xhr"},
		{URL: "http://x/", Method: "POST", ResourceType: "fetch"},
	} {
		if _, _, ok := m.Take(tab, req); ok {
			t.Errorf("%+v was taken by a POST xhr rule", req)
		}
	}
	if _, _, ok := m.Take(tab, MockRequest{URL: "http://x/", Method: "POST", ResourceType: "xhr"}); !ok {
		t.Error("a POST xhr request was not taken")
	}
}

// A scope's rules, even over a whole context, answer only its own tabs.
func TestMockTableScopes(t *testing.T) {
	var m MockTable
	a, b := &Scope{}, &Scope{}
	if _, err := m.Add(MockRule{URL: "*", Action: MockFail, Context: true}, MockTab{ID: "a1", Context: "c", Owner: a}); err != nil {
		t.Fatal(err)
	}
	req := MockRequest{URL: "http://x/"}
	if _, _, ok := m.Take(MockTab{ID: "b1", Context: "c", Owner: b}, req); ok {
		t.Error("scope a's context rule answered scope b's tab")
	}
	if _, _, ok := m.Take(MockTab{ID: "a2", Context: "c", Owner: a}, req); !ok {
		t.Error("scope a's context rule did not answer a's other tab")
	}
	if _, _, ok := m.Take(MockTab{ID: "a3", Context: "other", Owner: a}, req); ok {
		t.Error("a context rule answered a tab of another context")
	}
	if !m.Applies(MockTab{ID: "a2", Context: "c", Owner: a}) || m.Applies(MockTab{ID: "b1", Context: "c", Owner: b}) {
		t.Error("Applies disagrees with Take")
	}
	if rules, _ := m.List(MockQuery{Scope: b}, MockTab{}, func(string) bool { return true }); len(rules) != 0 {
		t.Errorf("scope b lists %d of a's rules", len(rules))
	}
}

func TestMockTableFailRateRepeats(t *testing.T) {
	draws := func() (fails int) {
		var m MockTable
		tab := MockTab{ID: "t"}
		if _, err := m.Add(MockRule{URL: "*", Action: MockContinue, FailRate: 0.5, Seed: 7}, tab); err != nil {
			t.Fatal(err)
		}
		for range 100 {
			if _, fail, _ := m.Take(tab, MockRequest{URL: "u"}); fail {
				fails++
			}
		}
		return fails
	}
	a, b := draws(), draws()
	if a != b || a == 0 || a == 100 {
		t.Fatalf("failRate 0.5 with one seed failed %d then %d of 100", a, b)
	}
}

func TestMockTableListPrunesClosedTabs(t *testing.T) {
	var m MockTable
	s := &Scope{}
	gone, _ := m.Add(MockRule{URL: "*", Action: MockFail}, MockTab{ID: "closed", Owner: s})
	kept, _ := m.Add(MockRule{URL: "*", Action: MockFail}, MockTab{ID: "open", Owner: s})
	ctxRule, _ := m.Add(MockRule{URL: "*", Action: MockFail, Context: true}, MockTab{ID: "closed", Owner: s})
	rules, pruned := m.List(MockQuery{Scope: s}, MockTab{}, func(tab string) bool { return tab == "open" })
	if len(pruned) != 1 || pruned[0].ID != gone.ID {
		t.Fatalf("pruned %+v, want rule %d", pruned, gone.ID)
	}
	if len(rules) != 2 || rules[0].ID != kept.ID || rules[1].ID != ctxRule.ID {
		t.Fatalf("listed %+v, want rules %d and %d", rules, kept.ID, ctxRule.ID)
	}
}

func TestMockTableClear(t *testing.T) {
	var m MockTable
	a, b := &Scope{}, &Scope{}
	ra, _ := m.Add(MockRule{URL: "*", Action: MockFail}, MockTab{ID: "a1", Owner: a})
	rb, _ := m.Add(MockRule{URL: "*", Action: MockFail}, MockTab{ID: "b1", Owner: b})
	// An id another scope made is not there for a; nothing is removed.
	if _, err := m.Clear(MockQuery{Scope: a, IDs: []int{ra.ID, rb.ID}}, MockTab{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("clearing another scope's rule: %v", err)
	}
	if rules, _ := m.List(MockQuery{}, MockTab{}, func(string) bool { return true }); len(rules) != 2 {
		t.Fatalf("a refused clear removed rules: %d left", len(rules))
	}
	cleared, err := m.Clear(MockQuery{Scope: a}, MockTab{})
	if err != nil || len(cleared) != 1 || cleared[0].ID != ra.ID {
		t.Fatalf("clearing a's rules: %+v, %v", cleared, err)
	}
}

func TestMockTableFull(t *testing.T) {
	var m MockTable
	tab := MockTab{ID: "t"}
	for range MaxMockRules - 1 {
		if _, err := m.Add(MockRule{URL: "*/live", Action: MockFail}, tab); err != nil {
			t.Fatal(err)
		}
	}
	spent, _ := m.Add(MockRule{URL: "*/once", Action: MockFail, Times: 1}, tab)
	if _, err := m.Add(MockRule{URL: "*", Action: MockFail}, tab); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a rule over the bound: %v", err)
	}
	m.Take(tab, MockRequest{URL: "http://x/once"})
	// The expired rule makes room.
	if _, err := m.Add(MockRule{URL: "*", Action: MockFail}, tab); err != nil {
		t.Fatalf("with rule %d expired: %v", spent.ID, err)
	}
	if _, err := m.Add(MockRule{URL: "", Action: MockFail}, tab); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("an empty pattern: %v", err)
	}
}
