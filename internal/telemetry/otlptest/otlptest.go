// Package otlptest is an OTLP/HTTP receiver for tests: an httptest server
// that decodes the protobuf export requests cdpkit's exporters send and
// keeps what they carried.
package otlptest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	collmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	// URL is the endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	mu      sync.Mutex
	spans   []*tracepb.Span                             // guarded by mu
	metrics []*collmetricpb.ExportMetricsServiceRequest // guarded by mu
	raw     [][]byte                                    // guarded by mu; every body, decompressed
}

// New starts a receiver, closed when the test ends.
func New(t testing.TB) *Receiver {
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		body, ok := r.read(w, req)
		if !ok {
			return
		}
		var m colltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range m.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		r.reply(w, &colltracepb.ExportTraceServiceResponse{})
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		body, ok := r.read(w, req)
		if !ok {
			return
		}
		var m collmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.metrics = append(r.metrics, &m)
		r.mu.Unlock()
		r.reply(w, &collmetricpb.ExportMetricsServiceResponse{})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) read(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return nil, false
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	r.mu.Lock()
	r.raw = append(r.raw, b)
	r.mu.Unlock()
	return b, true
}

func (r *Receiver) reply(w http.ResponseWriter, m proto.Message) {
	b, err := proto.Marshal(m)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// Metrics returns the metric export requests received so far.
func (r *Receiver) Metrics() []*collmetricpb.ExportMetricsServiceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*collmetricpb.ExportMetricsServiceRequest(nil), r.metrics...)
}

// Raw returns every request body received so far, decompressed: what a
// needle must not be found in.
func (r *Receiver) Raw() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.raw...)
}

// Attr returns a span attribute's value as a string ("" when absent).
func Attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			v := kv.Value
			switch {
			case v.GetStringValue() != "":
				return v.GetStringValue()
			case v.GetIntValue() != 0:
				return strconv.FormatInt(v.GetIntValue(), 10)
			case v.GetDoubleValue() != 0:
				return "number"
			}
			return v.String()
		}
	}
	return ""
}

// Env returns a Getenv that points the OTLP exporters at r, exporting
// metrics every interval ms.
func (r *Receiver) Env(extra map[string]string) func(string) string {
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}
