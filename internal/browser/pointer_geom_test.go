package browser

import (
	"errors"
	"slices"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestClickPoints(t *testing.T) {
	box := func(x, y, w, h float64) dom.Quad { return dom.Quad{x, y, x + w, y, x + w, y + h, x, y + h} }
	tests := []struct {
		name   string
		quads  []dom.Quad
		dx, dy float64
		want   []point
	}{
		{"center then quadrants", []dom.Quad{box(10, 20, 40, 80)}, 0, 0,
			[]point{{30, 60}, {20, 40}, {40, 40}, {20, 80}, {40, 80}}},
		{"offset by a frame", []dom.Quad{box(0, 0, 40, 40)}, 100.5, 200, []point{{120, 220}, {110, 210}, {130, 210}, {110, 230}, {130, 230}}},
		{"clipped by the viewport", []dom.Quad{box(-20, -20, 40, 40)}, 0, 0, []point{{0, 0}, {10, 10}}},
		{"tiny: one point", []dom.Quad{box(5, 5, 1, 1)}, 0, 0, []point{{5, 5}}},
		{"no area", []dom.Quad{box(5, 5, 0, 10), {1, 2, 3}}, 0, 0, nil},
		{"off screen", []dom.Quad{box(2000, 5, 10, 10)}, 0, 0, nil},
		{"turned 90°", []dom.Quad{{40, 0, 40, 40, 0, 40, 0, 0}}, 0, 0, []point{{20, 20}, {30, 10}, {30, 30}, {10, 10}, {10, 30}}},
		{"fragments, capped", []dom.Quad{box(0, 0, 100, 20), box(0, 20, 60, 20), box(0, 40, 80, 20)}, 0, 0,
			[]point{{50, 10}, {25, 5}, {75, 5}, {25, 15}, {75, 15}, {30, 30}, {15, 25}, {45, 25}, {15, 35}, {45, 35}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clickPoints(tt.quads, tt.dx, tt.dy, 1280, 720)
			if !slices.Equal(got, tt.want) {
				t.Errorf("clickPoints\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestSameQuads(t *testing.T) {
	a := []dom.Quad{{0, 0, 10, 0, 10, 10, 0, 10}}
	tests := []struct {
		b    []dom.Quad
		want bool
	}{
		{[]dom.Quad{{0, 0, 10, 0, 10, 10, 0, 10.001}}, true},
		{[]dom.Quad{{0, 0, 10, 0, 10, 10, 0, 11}}, false},
		{nil, false},
		{[]dom.Quad{{0, 0, 10, 0}}, false},
	}
	for _, tt := range tests {
		if got := sameQuads(a, tt.b); got != tt.want {
			t.Errorf("sameQuads(%v, %v) = %v, want %v", a, tt.b, got, tt.want)
		}
	}
}

func TestViewportOverlap(t *testing.T) {
	tests := []struct {
		r         rect
		in, fully bool
	}{
		{rect{10, 10, 100, 50}, true, true},
		{rect{0, 0, 800, 600}, true, true},
		{rect{-10, 10, 100, 50}, true, false},
		{rect{700, 550, 200, 100}, true, false},
		{rect{800, 10, 10, 10}, false, false},
		{rect{10, -60, 10, 60}, false, false},
		{rect{10, 10, 0, 0}, false, false},
	}
	for _, tt := range tests {
		in, fully := viewportOverlap(tt.r, 800, 600)
		if in != tt.in || fully != tt.fully {
			t.Errorf("viewportOverlap(%+v) = %v, %v; want %v, %v", tt.r, in, fully, tt.in, tt.fully)
		}
	}
}

func TestDescribeNode(t *testing.T) {
	tests := []struct {
		n    nodeInfo
		want string
	}{
		{nodeInfo{Tag: "div", ID: "overlay", Classes: []string{"modal"}, Text: "  Accept\n cookies "}, `div#overlay.modal "Accept cookies"`},
		{nodeInfo{Tag: "header", Classes: []string{"a", "b", "c", "d"}}, "header.a.b.c.…"},
		{nodeInfo{Tag: "p", Text: `say "hi" ` + "0123456789012345678901234567890123456789xyz"},
			`p "say \"hi\" 0123456789012345678901234567890…"`},
		{nodeInfo{}, "element"},
	}
	for _, tt := range tests {
		if got := tt.n.describe(); got != tt.want {
			t.Errorf("describe(%+v)\n got %s\nwant %s", tt.n, got, tt.want)
		}
	}
}

func TestMouseButton(t *testing.T) {
	for name, want := range map[string]int64{"": 1, "left": 1, "right": 2, "middle": 4} {
		if _, bits, err := mouseButton(name); err != nil || bits != want {
			t.Errorf("mouseButton(%q) = %d, %v; want %d", name, bits, err, want)
		}
	}
	if _, _, err := mouseButton("back"); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Errorf("mouseButton(back) = %v, want ErrInvalidArgument", err)
	}
}

// TestNavWatch feeds navWatch the events of what input can set off.
func TestNavWatch(t *testing.T) {
	ev := func(method, params string) cdp.Event { return cdp.Event{Method: method, Params: jsonv2.Value(params)} }
	requested := ev("Page.frameRequestedNavigation", `{"frameId":"MAIN","reason":"formSubmissionGet","url":"http://x/","disposition":"currentTab"}`)
	startedNav := ev("Page.frameStartedNavigating", `{"frameId":"MAIN","url":"http://x/","loaderId":"L2","navigationType":"differentDocument"}`)
	committed := ev("Page.frameNavigated", `{"frame":{"id":"MAIN","loaderId":"L2","url":"http://x/","domainAndRegistry":"","securityOrigin":"","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]},"type":"Navigation"}`)
	loaded := ev("Page.lifecycleEvent", `{"frameId":"MAIN","loaderId":"L2","name":"load","timestamp":1}`)
	oldLoad := ev("Page.lifecycleEvent", `{"frameId":"MAIN","loaderId":"L1","name":"load","timestamp":1}`)
	stopped := ev("Page.frameStoppedLoading", `{"frameId":"MAIN"}`)
	tests := []struct {
		name          string
		events        []cdp.Event
		started, done bool
	}{
		{"nothing", nil, false, false},
		{"requested, still loading", []cdp.Event{requested, startedNav, committed}, true, false},
		{"loaded", []cdp.Event{requested, startedNav, committed, loaded}, true, true},
		{"the old document's load does not count", []cdp.Event{startedNav, oldLoad, committed}, true, false},
		{"no commit (204, download)", []cdp.Event{requested, stopped}, true, true},
		{"new tab", []cdp.Event{ev("Page.frameRequestedNavigation", `{"frameId":"MAIN","reason":"anchorClick","url":"http://x/","disposition":"newTab"}`)}, false, false},
		{"another frame", []cdp.Event{ev("Page.frameStartedNavigating", `{"frameId":"SUB","url":"http://x/","loaderId":"L","navigationType":"differentDocument"}`)}, false, false},
		{"same document", []cdp.Event{ev("Page.frameStartedNavigating", `{"frameId":"MAIN","url":"http://x/#a","loaderId":"L1","navigationType":"sameDocument"}`)}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &navWatch{main: "MAIN"}
			for _, e := range tt.events {
				w.observe(e)
			}
			if w.started != tt.started || w.done() != tt.done {
				t.Errorf("started, done = %v, %v; want %v, %v", w.started, w.done(), tt.started, tt.done)
			}
		})
	}
}
