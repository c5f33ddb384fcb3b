package export

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// collectTimeout bounds reading the metrics for one scrape.
const collectTimeout = 5 * time.Second

// promHandler serves the metrics reader collects in the Prometheus text
// format (0.0.4) at any path it is mounted on. Names are the OpenTelemetry
// ones with dots as underscores, a unit suffix (_milliseconds, _bytes)
// and _total on counters.
func promHandler(reader *sdkmetric.ManualReader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), collectTimeout)
		defer cancel()
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			http.Error(w, "collecting metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		bw := bufio.NewWriter(w)
		writeProm(bw, &rm)
		bw.Flush()
	})
}

// writeProm writes rm in the Prometheus text format.
func writeProm(w io.Writer, rm *metricdata.ResourceMetrics) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			writeMetric(w, m)
		}
	}
}

func writeMetric(w io.Writer, m metricdata.Metrics) {
	name := promName(m.Name, m.Unit)
	help := func(typ, name string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(m.Description), name, typ)
	}
	switch d := m.Data.(type) {
	case metricdata.Histogram[float64]:
		help("histogram", name)
		for _, p := range d.DataPoints {
			writeBuckets(w, name, p.Attributes, p.Bounds, p.BucketCounts, p.Sum, p.Count)
		}
	case metricdata.Histogram[int64]:
		help("histogram", name)
		for _, p := range d.DataPoints {
			writeBuckets(w, name, p.Attributes, p.Bounds, p.BucketCounts, float64(p.Sum), p.Count)
		}
	case metricdata.Sum[int64]:
		writeSum(w, name, d.IsMonotonic, help, points(d.DataPoints))
	case metricdata.Sum[float64]:
		writeSum(w, name, d.IsMonotonic, help, points(d.DataPoints))
	case metricdata.Gauge[int64]:
		help("gauge", name)
		for _, p := range points(d.DataPoints) {
			fmt.Fprintf(w, "%s%s %s\n", name, labels(p.attrs, ""), formatFloat(p.value))
		}
	case metricdata.Gauge[float64]:
		help("gauge", name)
		for _, p := range points(d.DataPoints) {
			fmt.Fprintf(w, "%s%s %s\n", name, labels(p.attrs, ""), formatFloat(p.value))
		}
	}
}

type point struct {
	attrs attribute.Set
	value float64
}

func points[N int64 | float64](dps []metricdata.DataPoint[N]) []point {
	out := make([]point, len(dps))
	for i, p := range dps {
		out[i] = point{p.Attributes, float64(p.Value)}
	}
	return out
}

func writeSum(w io.Writer, name string, monotonic bool, help func(typ, name string), ps []point) {
	typ := "gauge" // an up-down counter is a gauge to Prometheus
	if monotonic {
		typ, name = "counter", name+"_total"
	}
	help(typ, name)
	for _, p := range ps {
		fmt.Fprintf(w, "%s%s %s\n", name, labels(p.attrs, ""), formatFloat(p.value))
	}
}

func writeBuckets(w io.Writer, name string, attrs attribute.Set, bounds []float64, counts []uint64, sum float64, count uint64) {
	var cum uint64
	for i, b := range bounds {
		if i < len(counts) {
			cum += counts[i]
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", name, labels(attrs, formatFloat(b)), cum)
	}
	fmt.Fprintf(w, "%s_bucket%s %d\n", name, labels(attrs, "+Inf"), count)
	fmt.Fprintf(w, "%s_sum%s %s\n", name, labels(attrs, ""), formatFloat(sum))
	fmt.Fprintf(w, "%s_count%s %d\n", name, labels(attrs, ""), count)
}

// labels renders attrs (and le, if not "") as {k="v",…}, sorted by key.
func labels(attrs attribute.Set, le string) string {
	var kv []string
	for it := attrs.Iter(); it.Next(); {
		a := it.Attribute()
		kv = append(kv, sanitize(string(a.Key))+`="`+escapeLabel(a.Value.String())+`"`)
	}
	sort.Strings(kv)
	if le != "" {
		kv = append(kv, `le="`+le+`"`)
	}
	if len(kv) == 0 {
		return ""
	}
	return "{" + strings.Join(kv, ",") + "}"
}

// unitSuffix maps the units cdpkit uses to Prometheus base-unit words.
var unitSuffix = map[string]string{"ms": "_milliseconds", "s": "_seconds", "By": "_bytes"}

// promName turns an OpenTelemetry name and unit into a Prometheus name.
func promName(name, unit string) string {
	n := sanitize(name)
	if s, ok := unitSuffix[unit]; ok && !strings.HasSuffix(n, s) {
		n += s
	}
	return n
}

// sanitize replaces what a Prometheus name may not hold with '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
