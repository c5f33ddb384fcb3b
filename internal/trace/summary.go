package trace

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrUnknownInsight means Insight was asked for a name it does not know.
var ErrUnknownInsight = errors.New("trace: unknown insight")

// Insights are the names Insight takes, in the order they are listed.
var Insights = []string{"lcp", "cls", "long-tasks", "inp", "main-thread", "render-blocking", "third-parties", "document-latency"}

// insightAliases maps other spellings, DevTools' insight names among them,
// to Insights.
var insightAliases = map[string]string{
	"lcp": "lcp", "lcpbreakdown": "lcp", "lcpphases": "lcp", "lcpdiscovery": "lcp",
	"cls": "cls", "clsculprits": "cls", "layoutshifts": "cls",
	"longtasks": "long-tasks", "tbt": "long-tasks",
	"inp": "inp", "inpbreakdown": "inp", "interactions": "inp",
	"mainthread": "main-thread", "categories": "main-thread",
	"renderblocking": "render-blocking", "renderblockingrequests": "render-blocking",
	"thirdparties":    "third-parties",
	"documentlatency": "document-latency", "document": "document-latency", "ttfb": "document-latency",
}

// InsightName returns the insight name resolves to, or "".
func InsightName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return insightAliases[b.String()]
}

// Summary is the report in a few lines, at most limit bytes (0: no limit):
// the page, LCP with its element and phases, FCP, CLS with the shifting
// nodes, TBT with the long tasks, INP, main-thread time by category and
// the slowest render-blocking requests. Lists are cut to fit.
func (r *Report) Summary(limit int) string {
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	if r.URL != "" {
		add("page " + r.URL)
	}
	if !r.Navigation {
		add("no page load in the trace: reload while tracing for LCP, FCP and TTFB")
	}
	if l := r.LCP; l != nil {
		add("LCP " + r.lcpLine(36))
	} else if r.Navigation {
		add("LCP none recorded (a background tab does not paint)")
	}
	var m []string
	if r.FCP != nil {
		m = append(m, fmt.Sprintf("FCP %s", msText(*r.FCP)))
	}
	if d := r.Document; d != nil {
		m = append(m, "TTFB "+msText(d.TTFB))
	}
	m = append(m, fmt.Sprintf("CLS %.3f", r.CLS.Value), "TBT "+msText(r.TBT))
	if r.INP != nil {
		m = append(m, fmt.Sprintf("INP %s (%s, %d interactions)", msText(r.INP.MS), r.INP.Type, r.INP.Interactions))
	}
	add(strings.Join(m, " · "))
	if len(r.CLS.Nodes) > 0 {
		add("shifted: " + joinCut(nodeNames(r.CLS.Nodes), 4))
	}
	if len(r.Tasks) > 0 {
		var ts []string
		for _, t := range topTasks(r.Tasks, 3) {
			ts = append(ts, r.taskText(t, 40))
		}
		add(fmt.Sprintf("long tasks %d: %s", len(r.Tasks), strings.Join(ts, "; ")))
	}
	if len(r.Main) > 0 {
		var cs []string
		for _, c := range r.Main {
			cs = append(cs, c.Name+" "+msText(c.MS))
		}
		add("main thread: " + strings.Join(cs, ", "))
	}
	if len(r.Blocking) > 0 {
		var bs []string
		for _, q := range r.Blocking[:min(3, len(r.Blocking))] {
			bs = append(bs, shortURL(q.URL, r.URL, 40)+" "+reqMS(q))
		}
		add(fmt.Sprintf("render-blocking %d: %s", len(r.Blocking), strings.Join(bs, ", ")))
	}
	return cut(strings.Join(lines, "\n"), limit)
}

func (r *Report) lcpLine(urlMax int) string {
	l := r.LCP
	s := msText(l.MS) + " " + l.Type
	if l.NodeName != "" {
		s += " <" + strings.ToLower(l.NodeName) + ">"
	}
	if l.URL != "" {
		s += " " + shortURL(l.URL, r.URL, urlMax)
	}
	p := l.Phases
	ph := []string{"TTFB " + msText(p.TTFB)}
	if p.LoadDelay != nil {
		ph = append(ph, "load delay "+msText(*p.LoadDelay), "load "+msText(*p.LoadDuration))
	}
	ph = append(ph, "render delay "+msText(p.RenderDelay))
	return s + " (" + strings.Join(ph, ", ") + ")"
}

func (r *Report) taskText(t LongTask, urlMax int) string {
	s := msText(t.MS) + " at " + msText(t.AtMS)
	if t.Function != "" {
		s += " " + t.Function
	}
	if t.URL != "" {
		s += fmt.Sprintf(" %s:%d", shortURL(t.URL, r.URL, urlMax), t.Line)
	}
	return s
}

// Insight is one insight in detail; name is one of Insights or an alias
// (InsightName). It fails with ErrUnknownInsight.
func (r *Report) Insight(name string) (string, error) {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	switch InsightName(name) {
	case "lcp":
		if r.LCP == nil {
			w("no LCP in the trace: it needs a page load (reload: true) in a tab that paints (the front one)")
			break
		}
		l := r.LCP
		w("LCP %s: %s element <%s> (DOM node %d)", msText(l.MS), l.Type, strings.ToLower(l.NodeName), l.NodeID)
		if l.URL != "" {
			w("image %s", l.URL)
		}
		p := l.Phases
		w("time to first byte  %s", msText(p.TTFB))
		if p.LoadDelay != nil {
			w("resource load delay %s (first byte until the image's request starts)", msText(*p.LoadDelay))
			w("resource load       %s", msText(*p.LoadDuration))
		}
		w("render delay        %s (until it is painted)", msText(p.RenderDelay))
	case "cls":
		w("CLS %.4f: %d shifts in the worst session window", r.CLS.Value, r.CLS.Shifts)
		for _, n := range r.CLS.Nodes[:min(20, len(r.CLS.Nodes))] {
			w("  %s  %.4f", n.Name, n.Score)
		}
	case "long-tasks":
		w("TBT %s (blocking time over 50 ms per task, counted from %s); %d long tasks", msText(r.TBT), r.TBTFrom, len(r.Tasks))
		for _, t := range topTasks(r.Tasks, 20) {
			w("  %s", r.taskText(t, 120))
		}
	case "inp":
		if r.INP == nil {
			w("no interactions in the trace: click or type while tracing to measure INP")
			break
		}
		w("INP %s: slowest %s of %d interactions", msText(r.INP.MS), r.INP.Type, r.INP.Interactions)
	case "main-thread":
		for _, c := range r.Main {
			w("%-10s %s", c.Name, msText(c.MS))
		}
	case "render-blocking":
		if len(r.Blocking) == 0 {
			w("no render-blocking requests")
		}
		for _, q := range r.Blocking[:min(20, len(r.Blocking))] {
			w("  %s %s %s at %s, %s, %d bytes", reqMS(q), q.Type, q.URL, msText(q.StartMS), q.Blocking, q.Bytes)
		}
	case "third-parties":
		if len(r.Parties) == 0 {
			w("no script time attributed to an origin")
		}
		for _, p := range r.Parties[:min(20, len(r.Parties))] {
			first := ""
			if p.First {
				first = " (the page's own)"
			}
			w("  %s %s%s", msText(p.MS), p.Origin, first)
		}
	case "document-latency":
		d := r.Document
		if d == nil {
			w("no document request in the trace: reload while tracing")
			break
		}
		w("document %s: status %d, first byte at %s, last at %s, %d bytes", d.URL, d.Status, msText(d.TTFB), msText(d.MS), d.Bytes)
	default:
		return "", fmt.Errorf("%w %q: use one of %s", ErrUnknownInsight, name, strings.Join(Insights, ", "))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// topTasks returns the n longest tasks, in the order they ran.
func topTasks(ts []LongTask, n int) []LongTask {
	if len(ts) <= n {
		return ts
	}
	// Selection of the n longest; n is small.
	keep := make([]bool, len(ts))
	for range n {
		best := -1
		for i := range ts {
			if !keep[i] && (best < 0 || ts[i].MS > ts[best].MS) {
				best = i
			}
		}
		keep[best] = true
	}
	var out []LongTask
	for i, t := range ts {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}

func nodeNames(ns []Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("%s (%.3f)", n.Name, n.Score)
	}
	return out
}

// joinCut joins the first n of ss and says how many more there are.
func joinCut(ss []string, n int) string {
	if len(ss) <= n {
		return strings.Join(ss, ", ")
	}
	return strings.Join(ss[:n], ", ") + fmt.Sprintf(" and %d more", len(ss)-n)
}

func reqMS(q Request) string {
	if q.MS < 0 {
		return "unfinished"
	}
	return msText(q.MS)
}

// msText shows a duration in ms, or in s from 10 s.
func msText(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.1f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// cut shortens s to at most limit bytes, at a line end when it can.
func cut(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	s = s[:limit-len("…")]
	if i := strings.LastIndexByte(s, '\n'); i > limit/2 {
		return s[:i]
	}
	for len(s) > 0 && !utf8.RuneStart(s[len(s)-1]) {
		s = s[:len(s)-1] // not inside a rune
	}
	if len(s) > 0 {
		s = s[:len(s)-1]
	}
	return s + "…"
}
