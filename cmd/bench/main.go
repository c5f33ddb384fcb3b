// Command bench measures cdpkit: the raw CDP round-trip floor over the pipe
// and a websocket, what the same work costs through `cdpkit mcp`, and how
// big and hungry the binary and its browser are. `make bench` runs it:
//
//	go run ./cmd/bench -cdpkit bin/cdpkit
//
// Its last stage runs the same calls through `cdpkit mcp --browser
// firefox` next to Chromium, when a Firefox is found (-firefox,
// $FIREFOX_PATH, firefox-esr or firefox on PATH); without one the table
// says those figures were skipped. It prints a markdown table on stdout, progress on stderr, and writes the
// same figures as JSON to <out>/YYYY-MM-DD.json and <out>/latest.json. It
// needs no network beyond loopback.
//
// # Cleanup
//
// Everything the bench creates lives under one scratch directory: the
// profiles of the browsers it launches, and the TMPDIR of the `cdpkit mcp`
// child. Every exit path that runs defers (errors, panics, SIGINT, SIGTERM)
// stops those browsers by process group and removes the directory. A bench
// killed outright leaves its browsers to die of Pdeathsig or a closed pipe,
// and its directory to the next run's sweep.
//
// bench is a developer tool, not part of the shipped binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// defaultTimeout bounds the whole run, so that a wedged browser cannot
// hang `make bench` or `make bench-peers` (each must finish within 10
// minutes). -timeout stretches it on a machine too busy for that: at a
// load average of 40 on 2 cores, bench-peers needs about 15.
const defaultTimeout = 9 * time.Minute

// config is what the flags say.
type config struct {
	cdpkit    string        // the cdpkit binary under test
	chromium  string        // the browser every stage launches
	n         int           // raw round trips measured per transport
	iters     int           // tool calls measured per tool
	out       string        // results directory
	peers     string        // npm prefix holding the peers; set, the run compares instead
	trace     bool          // print each tool's CDP timeline instead
	floors    bool          // print only each tool next to its raw CDP floor
	formats   bool          // print the capture time and bytes of each image format
	traceArgs []string      // extra flags for the -trace browser
	timeout   time.Duration // bounds the whole run
	cold      int           // cold starts per server, bench-peers
	// telemetryOnly runs only the telemetry stage and prints its figures.
	telemetryOnly bool
	// network runs only the request log and mocking figures.
	network bool
	// firefox is the Firefox the backends stage drives; "" skips it.
	firefox string
	// backends runs only the Chromium-next-to-Firefox figures.
	backends bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code, after every
// defer that stops a browser or removes a directory has run.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if cfg.trace {
		if err := runTrace(ctx, log, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}
	if cfg.floors {
		if err := runFloors(ctx, log, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}
	if cfg.formats {
		if err := runFormats(ctx, log, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}
	if cfg.peers != "" {
		if err := runPeers(ctx, log, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if cfg.telemetryOnly {
		return runTelemetryOnly(ctx, log, cfg, stdout, stderr)
	}
	if cfg.backends {
		if err := runBackendsOnly(ctx, log, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}
	if cfg.network {
		if err := runNetworkOnly(ctx, log, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}

	rep, err := bench(ctx, log, cfg)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("the run took longer than its %v bound, so the machine is too busy for these figures; rerun when it is quieter, or with fewer -iters and -n: %w", cfg.timeout, err)
		}
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	rep.writeMarkdown(stdout)
	paths, err := rep.writeJSON(cfg.out)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	log.Info("wrote results", "files", strings.Join(paths, " "))
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.cdpkit, "cdpkit", "", "the cdpkit `binary` to measure (required)")
	fs.StringVar(&c.chromium, "chromium", "", "browser `executable` (default: $CHROMIUM_PATH, else the first of chromium, chromium-browser, google-chrome, google-chrome-stable on PATH)")
	fs.IntVar(&c.n, "n", 1000, "raw CDP round trips measured per transport")
	fs.IntVar(&c.iters, "iters", 30, "tool calls measured per tool")
	fs.StringVar(&c.out, "out", "bench/results", "`directory` for the JSON results")
	fs.DurationVar(&c.timeout, "timeout", defaultTimeout, "bound on the whole run")
	fs.IntVar(&c.cold, "cold", 3, "cold starts per server (bench-peers)")
	fs.BoolVar(&c.telemetryOnly, "telemetry-only", false, "run only the telemetry stage (take_snapshot with OTLP export off, live, dead; exit times) and print its figures")
	fs.BoolVar(&c.trace, "trace", false, "print each tool's median CDP timeline (through a recording websocket relay) instead of measuring")
	fs.BoolVar(&c.floors, "floors", false, "print only each tool's p50 next to its raw CDP floor's (quick; writes no results)")
	fs.BoolVar(&c.formats, "formats", false, "print the time and bytes of a viewport capture in each image format and encoder setting, on the bench pages and a photo-like page (writes no results)")
	fs.Func("trace-chrome-arg", "extra `flag` for the -trace browser, to see what a browser flag changes (repeatable)", func(v string) error {
		c.traceArgs = append(c.traceArgs, v)
		return nil
	})
	fs.BoolVar(&c.network, "network", false, "measure only the request log and mocking figures (also part of the full run), print them and write no results")
	fs.StringVar(&c.firefox, "firefox", "", "Firefox `executable` measured next to Chromium (default: $FIREFOX_PATH, else firefox-esr or firefox on PATH; none found, its figures are skipped)")
	fs.BoolVar(&c.backends, "backends", false, "measure only Chromium and Firefox side by side (also part of the full run), print them and write no results")
	fs.StringVar(&c.peers, "peers", "", "compare with the peers installed under this npm prefix `directory` (see scripts/install-peers.sh) instead of measuring cdpkit alone")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.cdpkit == "" {
		return nil, errors.New("-cdpkit is required (build it with `make build`, then pass -cdpkit bin/cdpkit)")
	}
	if fi, err := os.Stat(c.cdpkit); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("-cdpkit %q is not a file", c.cdpkit)
	}
	if c.n < 1 || c.iters < 1 || c.cold < 1 {
		return nil, errors.New("-n, -iters and -cold must be at least 1")
	}
	explicit := c.chromium
	if explicit == "" {
		explicit = os.Getenv("CHROMIUM_PATH")
	}
	exe, err := browser.FindExecutable(explicit)
	if err != nil {
		return nil, err
	}
	c.chromium = exe
	c.firefox = findFirefox(c.firefox)
	return c, nil
}

// bench runs every stage in turn, each stopping its browser before the next
// starts, and assembles the report.
func bench(ctx context.Context, log *slog.Logger, cfg *config) (*report, error) {
	if n := sweepScratch(log); n > 0 {
		log.Info("removed scratch directories of killed runs", "count", n)
	}
	scratch, err := newScratch()
	if err != nil {
		return nil, fmt.Errorf("creating the scratch directory: %w", err)
	}
	defer removeScratch(log, scratch)
	// browser.Start puts its profile in os.TempDir(); pointing TMPDIR into
	// the scratch directory keeps that profile where the sweep finds it.
	if err := os.Setenv("TMPDIR", scratch); err != nil {
		return nil, err
	}

	load := sysproc.LoadAverage()
	rep := &report{
		Date:     time.Now().UTC(),
		NProc:    runtime.NumCPU(),
		Chromium: chromiumVersion(ctx, cfg.chromium),
		Go:       runtime.Version(),
		N:        cfg.n,
		Iters:    cfg.iters,
	}
	log.Info("bench starting", "cdpkit", cfg.cdpkit, "chromium", cfg.chromium, "version", rep.Chromium, "n", cfg.n, "iters", cfg.iters)

	log.Info("raw CDP over the pipe")
	pipe, err := benchPipe(ctx, log, cfg)
	if err != nil {
		return nil, fmt.Errorf("raw pipe: %w", err)
	}
	log.Info("raw CDP over the pipe done", "evaluate_p50_us", pipe.evaluate.p(50).Microseconds())

	log.Info("raw CDP over a websocket")
	ws, err := benchWebSocket(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("raw websocket: %w", err)
	}
	log.Info("raw CDP over a websocket done", "evaluate_p50_us", ws.evaluate.p(50).Microseconds())

	log.Info("through cdpkit mcp")
	m, err := benchMCP(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	rep.Cdpkit = m.serverVersion

	size, err := fileSize(cfg.cdpkit)
	if err != nil {
		return nil, err
	}
	rep.addFigures(pipe, ws, m, size)
	log.Info("each tool next to its raw CDP floor")
	floors, err := benchFloors(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("floors: %w", err)
	}
	rep.addFloorFigures(floors)
	log.Info("through the cdpkit CLI")
	cli, err := benchCLI(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("cli: %w", err)
	}
	rep.addCLIFigures(cli)
	log.Info("never-wedge timings")
	wedge, err := benchWedge(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("never-wedge: %w", err)
	}
	rep.addWedgeFigures(wedge)
	log.Info("telemetry export off, live, dead")
	tel, err := benchTelemetry(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	rep.addTelemetryFigures(tel)
	log.Info("request log and mocking")
	network, err := benchNetwork(ctx, log, cfg, scratch)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	rep.addNetworkFigures(network)
	if err := runBackends(ctx, log, cfg, scratch, rep); err != nil {
		return nil, fmt.Errorf("chromium and firefox: %w", err)
	}
	rep.Load = []float64{load, sysproc.LoadAverage()}
	return rep, nil
}

// chromiumVersion runs `<exe> --version`; Debian's wrapper script chatters
// on stderr, so only stdout counts.
func chromiumVersion(ctx context.Context, exe string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, "--version").Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("reading the binary's size: %w", err)
	}
	return fi.Size(), nil
}
