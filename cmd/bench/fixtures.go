package main

import (
	"embed"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"

	fixturepages "github.com/cdpkit/cdpkit/internal/fixtures"
)

// fixtures are the bench's own pages; serveFixtures also serves the
// shared fixture pages under /pages/.
//
//go:embed testdata/*.html
var fixtures embed.FS

// serveFixtures serves the fixture pages on 127.0.0.1 until Close. Every
// response is no-store, so each navigation goes to the server as a real
// page load would.
func serveFixtures() (*httptest.Server, error) {
	pages, err := fs.Sub(fixtures, "testdata")
	if err != nil {
		return nil, err
	}
	// Bind 127.0.0.1 explicitly rather than httptest's default, which may
	// fall back to [::1].
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(pages))
	// The shared fixture pages, also used by the tests' golden snapshots.
	mux.Handle("/pages/", http.StripPrefix("/pages", http.FileServerFS(fixturepages.Pages())))
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})}}
	srv.Start()
	return srv, nil
}
