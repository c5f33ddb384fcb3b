package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// peerReport is one comparison run, as printed and as stored in JSON.
type peerReport struct {
	Date     time.Time    `json:"date"`
	NProc    int          `json:"nproc"`
	Chromium string       `json:"chromium"`
	Go       string       `json:"go"`
	Iters    int          `json:"iters"`
	Load     []float64    `json:"load,omitempty"` // 1-minute load average at the start and the end
	Servers  []peerServer `json:"servers"`        // cdpkit first
	Figures  []peerFigure `json:"figures"`
}

// peerServer names one server measured.
type peerServer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// peerFigure is one figure measured on every server. Ratios are
// cdpkit's value over each peer's: below 1 means cdpkit is faster or
// smaller.
type peerFigure struct {
	Key    string             `json:"key"`
	Name   string             `json:"figure"`
	Unit   string             `json:"unit"`
	Values map[string]float64 `json:"values"`
	Ratios map[string]float64 `json:"ratios"`
}

func newPeerReport(ctx context.Context, cfg *config, results []*peerResult, load float64) *peerReport {
	r := &peerReport{
		Load:     []float64{load, sysproc.LoadAverage()},
		Date:     time.Now().UTC(),
		NProc:    runtime.NumCPU(),
		Chromium: chromiumVersion(ctx, cfg.chromium),
		Go:       runtime.Version(),
		Iters:    cfg.iters,
	}
	for _, res := range results {
		r.Servers = append(r.Servers, peerServer{Name: res.name, Version: res.version})
	}
	lat := func(key, name string, get func(*peerResult) latency) {
		for _, p := range []int{50, 95} {
			r.add(fmt.Sprintf("%s.p%d", key, p), fmt.Sprintf("%s p%d", name, p), unitMillis, results, func(res *peerResult) float64 {
				return float64(get(res).p(p).Nanoseconds()) / 1e6
			})
		}
	}
	lat("navigate", "navigate (loopback page)", func(x *peerResult) latency { return x.navigate })
	lat("snapshot", "snapshot ("+snapshotPage+".html)", func(x *peerResult) latency { return x.snapshot })
	lat("click", "click (app.html)", func(x *peerResult) latency { return x.click })
	lat("fill", "fill (app.html)", func(x *peerResult) latency { return x.fill })
	lat("press_key", "press_key Tab (app.html)", func(x *peerResult) latency { return x.pressKey })
	lat("screenshot", "screenshot, viewport png", func(x *peerResult) latency { return x.screenshot })
	lat("screenshot_full", "screenshot, full page png", func(x *peerResult) latency { return x.screenshotFP })
	r.add("cold_start.p50", fmt.Sprintf("cold start → first snapshot, median of %d", cfg.cold), unitMillis, results, func(x *peerResult) float64 {
		return float64(x.coldStart.p(50).Nanoseconds()) / 1e6
	})
	// Sizes compare like with like only where no server cut its snapshot
	// short; a cut page gets its own row and stays out of the total.
	var whole []string
	for _, page := range peerPages {
		name := "snapshot text, " + page + ".html"
		if cut := cutBy(results, page); cut != "" {
			name += " (" + cut + " cut it at its size limit)"
		} else {
			whole = append(whole, page)
		}
		r.add("snapshot_chars."+page, name, unitChars, results, func(x *peerResult) float64 { return float64(x.snapChars[page]) })
	}
	r.add("snapshot_chars.total", "snapshot text, sum over "+strings.Join(whole, ", "), unitChars, results, func(x *peerResult) float64 {
		n := 0
		for _, p := range whole {
			n += x.snapChars[p]
		}
		return float64(n)
	})
	r.add("snapshot_tokens.total", "the same in tokens ≈ chars/4", unitTokens, results, func(x *peerResult) float64 {
		n := 0
		for _, p := range whole {
			n += x.snapChars[p]
		}
		return float64(n) / 4
	})
	for _, step := range []string{"navigate", "click", "fill", "press_key"} {
		r.add("answer_chars."+step, step+" result text, what the agent reads back", unitChars, results, func(x *peerResult) float64 { return float64(x.answerChars[step]) })
	}
	r.add("tools_list_chars", "tools/list JSON, default tool set", unitChars, results, func(x *peerResult) float64 { return float64(x.listChars) })
	r.add("tools_list_tokens", "tools/list tokens ≈ chars/4", unitTokens, results, func(x *peerResult) float64 { return float64(x.listChars) / 4 })
	r.add("mem.server_rss", "server RSS (its process tree minus the browser)", unitMiB, results, func(x *peerResult) float64 { return float64(x.serverRSS) / (1 << 20) })
	r.add("mem.browser_rss", "browser RSS (sum over its processes)", unitMiB, results, func(x *peerResult) float64 { return float64(x.browserRSS) / (1 << 20) })
	return r
}

// cutBy names the servers that truncated page's snapshot, or "".
func cutBy(results []*peerResult, page string) string {
	var names []string
	for _, x := range results {
		if x.truncated[page] {
			names = append(names, x.name)
		}
	}
	return strings.Join(names, ", ")
}

// unitTokens is an estimate: characters / 4.
const unitTokens = "tokens"

func (r *peerReport) add(key, name, unit string, results []*peerResult, get func(*peerResult) float64) {
	f := peerFigure{Key: key, Name: name, Unit: unit, Values: map[string]float64{}, Ratios: map[string]float64{}}
	for _, res := range results {
		f.Values[res.name] = round(get(res), unit)
	}
	own := get(results[0])
	for _, res := range results[1:] {
		if v := get(res); v > 0 {
			f.Ratios[res.name] = math.Round(own/v*100) / 100
		}
	}
	r.Figures = append(r.Figures, f)
}

// peers returns the names of the servers other than cdpkit.
func (r *peerReport) peers() []string {
	var p []string
	for _, s := range r.Servers[1:] {
		p = append(p, s.Name)
	}
	return p
}

// header is the line above the table: when, where, what.
func (r *peerReport) header() string {
	var v []string
	for _, s := range r.Servers {
		v = append(v, s.Name+" "+s.Version)
	}
	return fmt.Sprintf("bench-peers — %s · nproc %d%s · %s · %s · iters=%d",
		r.Date.Format("2006-01-02 15:04 MST"), r.NProc, loadText(r.Load), r.Chromium, strings.Join(v, " · "), r.Iters)
}

// writeTable prints the comparison table: a column per server, then a
// ratio column per peer.
func (r *peerReport) writeTable(w io.Writer) {
	cols := []string{"figure"}
	for _, s := range r.Servers {
		cols = append(cols, s.Name)
	}
	for _, p := range r.peers() {
		cols = append(cols, "cdpkit / "+p)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cols, " | "))
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---:|", len(cols)-1))
	for _, f := range r.Figures {
		row := []string{f.Name + " (" + f.Unit + ")"}
		for _, s := range r.Servers {
			row = append(row, format(figure{Value: f.Values[s.Name], Unit: f.Unit}))
		}
		for _, p := range r.peers() {
			if v, ok := f.Ratios[p]; ok {
				row = append(row, fmt.Sprintf("%.2f", v))
			} else {
				row = append(row, "–")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

func (r *peerReport) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "%s\n\n", r.header())
	r.writeTable(w)
}

// writeJSON writes the report to dir/peers-YYYY-MM-DD.json and
// dir/peers-latest.json, and returns the paths written.
func (r *peerReport) writeJSON(dir string) ([]string, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding results: %w", err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	var paths []string
	for _, name := range []string{"peers-" + r.Date.Format("2006-01-02") + ".json", "peers-latest.json"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return paths, fmt.Errorf("writing results: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
