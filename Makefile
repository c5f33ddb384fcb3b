# Build, lint and test cdpkit. `make test` is what CI runs (see .ci/run).

GO ?= go
GOFMT ?= gofmt
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN := bin/cdpkit

.PHONY: build browser deps lint cross test demo bench bench-peers soak clean load load-quick

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN) ./cmd/cdpkit

# browser installs Chromium when none is found (scripts/install-browser.sh),
# all that make demo needs; it is a no-op otherwise.
browser:
	bash scripts/install-browser.sh

# deps installs Chromium and the programs tests use (scripts/install-deps.sh:
# Firefox, poppler-utils, Node.js and npm, ffmpeg, chromedriver, nginx) when
# missing; it is a no-op otherwise. Only the test and measurement targets
# need them.
deps:
	bash scripts/install-deps.sh

# STATICCHECK is pinned; go run fetches it through the module proxy once and
# caches it. staticcheck.conf says which checks run. Even with the tool
# cached, go run of a path@version asks the proxy about each prefix of the
# path on every run (a slow or absent network failed make test), so lint
# runs it with the module cache as its proxy, and only a tool not there yet
# (a fresh machine) is fetched through the real one.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
CACHEPROXY = GOPROXY=file://$$($(GO) env GOMODCACHE)/cache/download

lint:
	@out="$$($(GOFMT) -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt -l: these files need formatting:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@# a second try only for a module-proxy hiccup while fetching the tool
	@$(CACHEPROXY) $(GO) run $(STATICCHECK) -version >/dev/null 2>&1 || \
		$(GO) run $(STATICCHECK) -version >/dev/null || $(GO) run $(STATICCHECK) -version >/dev/null
	$(CACHEPROXY) $(GO) run $(STATICCHECK) ./...
	@# the public API against its committed listing, api/cdpkit.txt
	$(GO) test -count=1 -run 'TestAPI' .

# cross checks that every package, test files included, compiles for darwin
# and windows (go vet type-checks all of it, so a test reaching for a
# Linux-only syscall fails here, not on a Mac), then links the shipped binary
# for the same two platforms, so their standard library is compiled once for
# both steps. No file depends on the CPU, so other architectures would find
# nothing new; `make release` builds every PLATFORMS entry.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
CROSS := darwin/arm64 windows/amd64
cross:
	@set -e; for p in $(CROSS); do echo "go vet and go build ./cmd/cdpkit for $$p"; \
		export CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/}; $(GO) vet ./...; $(GO) build -o /dev/null ./cmd/cdpkit; done

# test runs lint and cross beside the tests (the tests leave a core idle
# while they wait on browsers) at the lowest CPU priority, so that on a
# machine whose build cache is empty their compiling (staticcheck's most of
# all) takes only what the tests leave idle instead of starving the browsers
# under test; then both test tiers. CDPKIT_REQUIRE_BROWSER=1
# turns a missing Chromium into a failure instead of a skip. The race
# detector runs only on internal/cdp, the concurrency core (where it runs
# instead of the plain run, not besides it), beside the other packages'. The
# biggest packages are listed first so they start first. Each package's
# closing line (ok/FAIL) is printed as go test gives it, then lint's output.
# go test's own vet pass is off: lint runs go vet on everything.
# -trimpath (GOFLAGS) keeps build-cache keys free of the checkout's path, so a
# fresh clone reuses what an earlier one compiled.
# -timeout is a net for a hung test, set well above the slowest package's
# time on a new machine (internal/tools: 211 s with a warm build cache, 622 s
# while everything else compiled around it on a new machine).
# TEST_P packages run at once, each with TEST_PARALLEL parallel tests (a
# tab or scope each).
SLOW_PKGS := ./internal/tools ./internal/browser ./cmd/cdpkit ./internal/firefox
TEST_P ?= 2
TEST_PARALLEL ?= 2
test: export GOFLAGS := -trimpath $(GOFLAGS)
test: deps
	@checks=$$(mktemp); nice -n 19 $(MAKE) --no-print-directory lint cross >$$checks 2>&1 & lint=$$!; \
	CDPKIT_REQUIRE_BROWSER=1 $(GO) test -vet=off -race -count=1 -timeout 12m ./internal/cdp/... & race=$$!; \
	CDPKIT_REQUIRE_BROWSER=1 $(GO) test -vet=off -count=1 -timeout 20m -p $(TEST_P) -parallel $(TEST_PARALLEL) $(SLOW_PKGS) \
		$$($(GO) list ./... | grep -v -e '/internal/cdp$$' -e '/internal/cdp/' $(foreach p,$(SLOW_PKGS),-e '$(patsubst ./%,/%,$(p))$$')); rest=$$?; \
	wait $$race; race_rc=$$?; \
	wait $$lint; lint_rc=$$?; echo "--- make lint cross"; cat $$checks; rm -f $$checks; \
	if [ $$rest -ne 0 ] || [ $$race_rc -ne 0 ] || [ $$lint_rc -ne 0 ]; then echo "make test: FAIL"; exit 1; fi
	cd examples && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) run ./clickref

# demo needs only a browser: no test tool is installed and no service is
# left running (a test checks this rule).
demo: browser build
	$(GO) run ./cmd/demo -cdpkit $(BIN)

# Both bench targets write bench/results/ and regenerate docs/performance.md
# (linked from the README's Performance section) from it.
bench: deps build
	$(GO) run ./cmd/bench -cdpkit $(BIN)
	$(GO) test ./cmd/bench -run TestREADMEPerformance -update

# bench-peers compares cdpkit with @playwright/mcp and chrome-devtools-mcp,
# pinned in scripts/install-peers.sh and installed with npm into PEERS_DIR.
PEERS_DIR ?= $(HOME)/.cache/cdpkit-bench/peers
bench-peers: deps build
	bash scripts/install-peers.sh $(PEERS_DIR)
	$(GO) run ./cmd/bench -cdpkit $(BIN) -peers $(PEERS_DIR)
	$(GO) test ./cmd/bench -run TestREADMEPerformance -update

# soak runs 1,000 navigations in 4 tabs through cdpkit mcp and reports, at
# the start, at navigation 100 and at the end, cdpkit's RSS (at once, 3 s
# later, after a GC), heap in use and goroutines (from CDPKIT_PPROF) and the
# Chromium tree's RSS, and judges the steady-state RSS against 3 x heap in
# use + 30 MB, then the
# launch/close leak test at 50 cycles (make test runs 5), and Firefox's at 20
# (make test runs 2; skipped without firefox-esr). Not part of test.
soak: deps build
	$(GO) run ./cmd/soak -cdpkit $(BIN)
	CDPKIT_SOAK=1 CDPKIT_REQUIRE_BROWSER=1 $(GO) test -count=1 -run 'TestLaunchCloseNoLeaks|TestQuietIdleBrowser' -v -timeout 20m ./internal/browser/
	CDPKIT_SOAK=1 $(GO) test -count=1 -run 'TestLaunchCloseLeavesNothing' -v -timeout 20m ./internal/firefox/

clean:
	rm -rf bin/

.PHONY: release npm npm-pack clean-dist

# release builds static binaries (no cgo, -trimpath, the version stamped in)
# for every PLATFORMS entry into dist/build/, then archives each with the
# README (tar.gz; zip for Windows) and writes dist/SHA256SUMS. Archive names
# and contents match .goreleaser.yaml, which publishes the same for a tag.
# Archived files carry the commit's time, so a commit gives the same bytes.
DIST := dist
COMMIT_TIME = $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
release:
	rm -rf $(DIST)
	@set -e; for p in $(PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; exe=cdpkit; \
		if [ $$os = windows ]; then exe=cdpkit.exe; fi; echo "go build $$p"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" \
			-o $(DIST)/build/$${os}_$$arch/$$exe ./cmd/cdpkit; done
	$(GO) run ./scripts/release archives -version $(VERSION) -dist $(DIST) -mtime $(COMMIT_TIME)

# npm builds the npm packages from the release archives into dist/npm/ and
# packs each there: the launcher cdpkit and @cdpkit/<os>-<cpu> per platform
# (docs/decisions/2026-12-03-npm-packages.md). npm-pack alone does the same
# from archives already in dist/, such as those GoReleaser made for a tag.
npm: release
	$(MAKE) npm-pack VERSION=$(VERSION)
npm-pack:
	$(GO) run ./scripts/release npm -version $(VERSION) -dist $(DIST)
	cd $(DIST)/npm && npm pack --silent $$(for d in */; do printf './%s ' "$$d"; done)

# clean also removes dist/.
clean: clean-dist
clean-dist:
	rm -rf $(DIST)

# load runs 1, 4, 8, 16 and 32 concurrent HTTP MCP sessions through the
# core loop against cdpkit serve (one browser, --isolate-sessions,
# --browsers 2) and Playwright MCP, a fresh server per level, servers taking
# turns (cmd/load), writes bench/results/load-*.json and regenerates the
# load table in docs/performance.md. About 10 minutes on a quiet 2-core
# machine; run it on one. load-quick checks the harness (1 and 4 sessions,
# 2 loops) and writes nothing. Not part of test; bounded by -max.
load: deps build
	bash scripts/install-peers.sh $(PEERS_DIR)
	$(GO) run ./cmd/load -cdpkit $(BIN) -peers $(PEERS_DIR) -out bench/results -max 60m
	$(GO) test ./cmd/load -run TestPerformanceLoad -update
load-quick: build
	$(GO) run ./cmd/load -cdpkit $(BIN) -peers $(PEERS_DIR) -quick
