package tools

import (
	"fmt"
	"slices"
	"strings"
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
// state, downloads, and performance work (heap snapshots, Lighthouse).
var devtoolsTools = append(slices.Clone(coreTools),
	"list_console_messages", "get_console_message",
	"list_network_requests", "get_network_request",
	"mock_request", "list_mocks", "clear_mocks",
	"list_cookies", "set_cookie", "delete_cookies",
	"save_storage_state", "load_storage_state", "list_downloads",
	"take_heapsnapshot", "lighthouse_audit",
)

// Select returns the tools a --tools value names: "core" (the default
// when empty), "devtools" (core plus console, network, mocks, cookies,
// storage state, downloads, heap snapshots and Lighthouse), "full" (every
// tool), or a comma-separated list of names. An unknown name is an error
// that lists the valid ones.
func Select(spec string) ([]Tool, error) {
	all := All()
	var names []string
	switch strings.TrimSpace(spec) {
	case "", "core":
		names = coreTools
	case "devtools":
		names = devtoolsTools
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
			return nil, fmt.Errorf("--tools: unknown tool %q; use core, devtools, full or names from: %s", n, strings.Join(valid, ", "))
		}
		if !slices.ContainsFunc(out, func(t Tool) bool { return t.Name == n }) {
			out = append(out, all[i])
		}
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
