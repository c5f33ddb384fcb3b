package driver

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// NetworkConditions are custom network throttling: added latency and
// throughput limits; a zero throughput is not limited.
type NetworkConditions struct {
	LatencyMS    float64 `json:"latencyMs"`
	DownloadKbps float64 `json:"downloadKbps,omitempty"`
	UploadKbps   float64 `json:"uploadKbps,omitempty"`
}

// NetworkPresets are the names of the network presets.
var NetworkPresets = []string{"offline", "slow3g", "fast3g", "slow4g", "fast4g"}

// NetworkPreset returns the preset a name means, however it is spelled
// ("Slow 3G", "slow-3g", "slow3g"), "none" for no throttling ("none", "No
// throttling", "No emulation"), or "" for no preset.
func NetworkPreset(name string) string {
	key := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, strings.ToLower(name))
	switch key {
	case "none", "nothrottling", "noemulation", "online":
		return "none"
	}
	if slices.Contains(NetworkPresets, key) {
		return key
	}
	return ""
}

func validateNetwork(c *EmulationChange) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}
	if n := c.Network; n != nil && NetworkPreset(*n) == "" {
		return bad("network %q: use %s or none", *n, strings.Join(NetworkPresets, ", "))
	}
	if nc := c.NetworkCustom; nc != nil {
		if c.Network != nil {
			return bad("network: give a preset or custom conditions, not both")
		}
		for _, v := range []float64{nc.LatencyMS, nc.DownloadKbps, nc.UploadKbps} {
			if !(v >= 0 && v <= 1e7) || math.IsInf(v, 0) {
				return bad("custom network: latency and throughputs are 0 to 10000000")
			}
		}
		if nc.LatencyMS == 0 && nc.DownloadKbps == 0 && nc.UploadKbps == 0 {
			return bad("custom network: give latencyMs, downloadKbps or uploadKbps")
		}
	}
	return nil
}
