package tools

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// coreTools are the tools declared Core: what an agent needs for the
// open → look → act → verify loop. Every tool schema costs context on
// every turn, so the default profile offers only these.
var coreTools = func() []string {
	var names []string
	for _, t := range All() {
		if t.Core {
			names = append(names, t.Name)
		}
	}
	return names
}()

// devtoolsTools are the core loop plus what debugging a web app needs:
// the console, the network log, the fake backend, cookies and storage
// state, downloads, performance work (traces, heap snapshots,
// Lighthouse) and screen recording.
var devtoolsTools = append(slices.Clone(coreTools),
	"get_console_message",
	"list_network_requests", "get_network_request",
	"mock_request", "list_mocks", "clear_mocks",
	"list_cookies", "set_cookie", "delete_cookies",
	"save_storage_state", "load_storage_state", "list_downloads",
	"take_heapsnapshot", "lighthouse_audit",
	"performance_start_trace", "performance_stop_trace", "performance_trace", "performance_analyze_insight",
	"start_screen_recording", "stop_screen_recording",
)

// visionProfile is the core loop plus the tools that act at screenshot
// coordinates, for models that look at the page.
var visionProfile = append(slices.Clone(coreTools), "click_at", "move_mouse", "drag_at", "scroll_at")

// coreHidden are the arguments the core profile's schemas leave out: new_page's
// lease arguments belong with the lease tools (claim_page, release_page,
// list_leases), which core does not offer.
var coreHidden = map[string][]string{
	"new_page": {"claim", "label", "ttlMs"},
}

// withoutProperties returns s without the named properties (s itself when
// there are none to drop).
func withoutProperties(s *jsonschema.Schema, names []string) *jsonschema.Schema {
	if s == nil || len(names) == 0 {
		return s
	}
	c := *s
	c.Properties = maps.Clone(s.Properties)
	c.PropertyOrder = slices.DeleteFunc(slices.Clone(s.PropertyOrder), func(p string) bool { return slices.Contains(names, p) })
	c.Required = slices.DeleteFunc(slices.Clone(s.Required), func(p string) bool { return slices.Contains(names, p) })
	for _, n := range names {
		delete(c.Properties, n)
	}
	return &c
}

// Select returns the tools a --tools value names: "core" (the default
// when empty), "devtools" (core plus console, network, mocks, cookies,
// storage state, downloads, performance traces, heap snapshots and
// Lighthouse), "full" (every tool), or a comma-separated list of names.
// An unknown name is an error that lists the valid ones.
func Select(spec string) ([]Tool, error) {
	all := All()
	var names []string
	switch strings.TrimSpace(spec) {
	case "", "core":
		// Core is what a model pays for on every turn (9,000 characters of
		// tools/list at most): its schemas leave out arguments of features
		// whose tools are not in core (see coreHidden); they are accepted
		// all the same.
		list, err := Select(strings.Join(coreTools, ","))
		for i := range list {
			list[i].InputSchema = withoutProperties(list[i].InputSchema, coreHidden[list[i].Name])
		}
		return list, err
	case "devtools":
		names = devtoolsTools
	case "vision":
		names = visionProfile
	case "full":
		return all, nil
	default:
		for _, n := range strings.Split(spec, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	var out []Tool
	for _, n := range names {
		i := slices.IndexFunc(all, func(t Tool) bool { return t.Name == n })
		if i < 0 {
			var valid []string
			for _, t := range all {
				valid = append(valid, t.Name)
			}
			return nil, fmt.Errorf("--tools: unknown tool %q; use core, devtools, vision, full or names from: %s", n, strings.Join(valid, ", "))
		}
		if !slices.ContainsFunc(out, func(t Tool) bool { return t.Name == n }) {
			out = append(out, all[i])
		}
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
