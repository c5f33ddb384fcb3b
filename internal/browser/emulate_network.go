package browser

import (
	"context"
	"fmt"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// networkConditions are the throttling presets, after Chrome DevTools'
// own (whose "Slow 4G" is its former "Fast 3G"): latency in ms, throughput
// in bytes per second.
var networkConditions = map[string]network.Conditions{
	"offline": {Offline: true, DownloadThroughput: -1, UploadThroughput: -1, ConnectionType: network.ConnectionTypeNone},
	"slow3g":  {Latency: 2000, DownloadThroughput: 50_000, UploadThroughput: 50_000, ConnectionType: network.ConnectionTypeCellular3g},
	"fast3g":  {Latency: 562.5, DownloadThroughput: 180_000, UploadThroughput: 84_375, ConnectionType: network.ConnectionTypeCellular3g},
	"slow4g":  {Latency: 562.5, DownloadThroughput: 180_000, UploadThroughput: 84_375, ConnectionType: network.ConnectionTypeCellular4g},
	"fast4g":  {Latency: 165, DownloadThroughput: 1_012_500, UploadThroughput: 168_750, ConnectionType: network.ConnectionTypeCellular4g},
}

// networkOf returns the Emulation.Network and NetworkCustom that c sets.
func networkOf(c driver.EmulationChange) (string, *driver.NetworkConditions) {
	if c.NetworkCustom != nil {
		nc := *c.NetworkCustom
		return "custom", &nc
	}
	if p := driver.NetworkPreset(*c.Network); p != "none" {
		return p, nil
	}
	return "", nil
}

// conditions returns the CDP conditions of a preset or of custom ones.
func conditions(preset string, custom *driver.NetworkConditions) (network.Conditions, bool) {
	if preset == "custom" && custom != nil {
		tp := func(kbps float64) float64 {
			if kbps == 0 {
				return -1
			}
			return kbps * 1000 / 8
		}
		return network.Conditions{Latency: custom.LatencyMS, DownloadThroughput: tp(custom.DownloadKbps), UploadThroughput: tp(custom.UploadKbps)}, true
	}
	c, ok := networkConditions[preset]
	return c, ok
}

// applyNetwork throttles every request of the tab as the preset (or custom
// conditions) say ("": not at all), and makes navigator.onLine and
// navigator.connection agree.
func applyNetwork(ctx context.Context, s cdpapi.Session, preset string, custom *driver.NetworkConditions) error {
	rules := []*network.Conditions{}
	state := network.OverrideNetworkStateParams{DownloadThroughput: -1, UploadThroughput: -1}
	if c, ok := conditions(preset, custom); ok {
		rules = append(rules, &c) // an empty URL pattern matches every request
		state = network.OverrideNetworkStateParams{Offline: c.Offline, Latency: c.Latency,
			DownloadThroughput: c.DownloadThroughput, UploadThroughput: c.UploadThroughput, ConnectionType: c.ConnectionType}
	}
	if _, err := cdpapi.Call(ctx, s, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: rules}); err != nil {
		return fmt.Errorf("browser: emulating network conditions: %w", err)
	}
	if _, err := cdpapi.Call(ctx, s, network.OverrideNetworkState, state); err != nil {
		return fmt.Errorf("browser: emulating the network state: %w", err)
	}
	return nil
}
