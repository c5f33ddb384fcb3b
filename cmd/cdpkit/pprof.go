package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"time"

	"github.com/cdpkit/cdpkit/internal/mcpserver"
)

// pprofEnv names the address cdpkit serves Go's runtime profiles on
// (heap, goroutines, CPU, mutex and block contention) when it is set; it is off by default. `make
// soak` reads the heap and goroutine counts from it.
const pprofEnv = "CDPKIT_PPROF"

// startPprofFor starts the profile server for the commands that run a
// server (mcp, serve, daemon) and does nothing for the others.
func startPprofFor(command string, stderr io.Writer) error {
	switch command {
	case "mcp", "serve", "daemon":
		return startPprof(stderr)
	}
	return nil
}

// startPprof serves net/http/pprof on the loopback address CDPKIT_PPROF
// names, if any, for the life of the process. It refuses a non-loopback
// address: the profiles show memory contents (URLs, page text). It
// reports where it listens on stderr, never on stdout (the MCP stream).
func startPprof(stderr io.Writer) error {
	addr := os.Getenv(pprofEnv)
	if addr == "" {
		return nil
	}
	// Contention shows only where it is sampled: every 5th mutex
	// contention event, and blocking of 10 µs or more.
	runtime.SetMutexProfileFraction(5)
	runtime.SetBlockProfileRate(int((10 * time.Microsecond).Nanoseconds()))
	_, err := servePprof(addr, stderr)
	return err
}

// servePprof serves the profiles on addr until the server is closed.
func servePprof(addr string, stderr io.Writer) (*http.Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", pprofEnv, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%s=%q: want a loopback address such as 127.0.0.1:6060", pprofEnv, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pprofEnv, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// The Host and Origin checks of /mcp: loopback binding alone does not
	// keep out a page on a name rebound to 127.0.0.1.
	srv := &http.Server{Handler: mcpserver.RequireHost(nil, mux), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stderr, "cdpkit: serving profiles on http://%s/debug/pprof/\n", ln.Addr())
	return srv, nil
}
