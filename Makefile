# Tandem. The README names two commands: `make run` and `make test`.
# Each installs what it needs first (scripts/setup.sh), quickly when present.

GO        ?= go
# go.mod's go line pins the toolchain; an older Go (1.21+) fetches it
# through the module proxy, also where a distribution sets it to local.
export GOTOOLCHAIN ?= auto
TAGS      := webkit2_41
COMMIT    := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
LDFLAGS   := -X tandem/internal/version.commit=$(COMMIT)
BIN       := build/bin/tandem
DEVBIN    := build/bin/tandem-dev
GOBIN     := $(shell $(GO) env GOPATH)/bin
GOFILES   := $(shell find . -name '*.go' -not -path './frontend/*' 2>/dev/null)
WEBFILES  := $(shell find frontend/src frontend/index.html frontend/vite.config.ts -type f 2>/dev/null)

SEEDS     ?= 100000

.PHONY: run test test-fast stress sim mutants e2e build build-dev frontend setup setup-test vet lint gotest wine-test webtest dev clean bench-mcp bench-release bench-four

## run: install what is missing, build, and start the app
run: setup build
	./$(BIN)

## test: install test needs, then vet, lint, go tests with -race, frontend unit tests, browser e2e
test: setup-test vet lint gotest wine-test webtest e2e
	@echo "make test: all passed"

## test-fast: the inner loop: go tests without -race, browser or window tests, and vitest
test-fast: setup-test
	CI= TANDEM_BIN= $(GO) test -short -tags $(TAGS) ./...
	cd frontend && npm test --silent

## stress: the timing-sensitive packages under -race -count 5 -cpu 1,2 beside a CPU burner
## (STRESS_PKGS, STRESS_COUNT to narrow it)
stress: setup-test build
	scripts/stress.sh

setup:
	@scripts/setup.sh build

setup-test:
	@scripts/setup.sh test

frontend/dist/index.html: $(WEBFILES) frontend/package-lock.json
	cd frontend && npm run build --silent

frontend: frontend/dist/index.html

## build: the production binary build/bin/tandem
build: frontend
	$(GO) build -tags desktop,production,$(TAGS) -ldflags '-w -s $(LDFLAGS)' -o $(BIN) .

## build-dev: the dev binary the browser e2e suite drives (-devserver, -assetdir)
build-dev: frontend
	$(GO) build -tags dev,$(TAGS) -ldflags '$(LDFLAGS)' -o $(DEVBIN) .

## dev: live-reloading development window (wails dev)
dev:
	@scripts/setup.sh dev
	$(GOBIN)/wails dev -tags $(TAGS)

vet: frontend
	$(GO) vet -tags $(TAGS) ./...

## lint: golangci-lint with .golangci.yml (staticcheck, exhaustive, errorlint, contextcheck, funlen, cyclop);
## beside another checkout's lint on this machine it waits for golangci-lint's lock instead of failing
## (LINTPKGS narrows it)
LINTPKGS ?= ./...
lint: frontend
	$(GOBIN)/golangci-lint run --allow-serial-runners $(LINTPKGS)
	@# golangci-lint reads this platform's files only: gofmt checks every one (the Windows driver's too).
	@unformatted="$$(gofmt -l $(GOFILES))"; if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi

# The window smoke test needs the production binary; TANDEM_BIN tells it where.
# The dev binary's listeners are checked from outside; TANDEM_DEV_BIN.
# The simulation runs 1,000 seeds under -race (a run costs several times as
# much there) and 10,000 without. The evaluation's runs (cli/eval_run_test.go)
# run without -race only: 25 s, against four minutes of the cli package's
# critical path under it. A package's tests may take 20 minutes: the
# cli package takes 3 alone but went past 10 on a machine running two suites
# beside CPU burners.
#
# Sweeps of pixels, of cut bytes or of random runs of the pure core take
# minutes each under -race (it instruments every pixel and every step of a
# single goroutine) and test no concurrency of their own that their
# packages' other tests do not test under it: they run once, without -race,
# beside the evaluation's (RACEFREE; 10 of the slowest 11 tests of the race
# run, 1,100 s of its CPU on a busy machine, about a tenth without).
RACEFREE  := TestRunUnattendedSurvivesOneDroppedADBConnection|TestHandBackRegionIsDrawnOnTheNextScreenshot|TestCrashAtAnyLineResumesToTheSameOutcome|TestPNGBandsDecodeToThePicture|TestPrepareMarked|TestJPEGBandsDecodeAsOne|TestCoreKeepsThePromises|TestCoreAnswersEveryCommand|TestCoreKeepsTheLimits
gotest: build build-dev
	TANDEM_BIN=$(CURDIR)/$(BIN) TANDEM_DEV_BIN=$(CURDIR)/$(DEVBIN) $(GO) test -race -tags $(TAGS) -timeout 20m -skip '^($(RACEFREE))$$' ./...
	$(GO) test -count=1 ./engine/sim/ -run 'TestSimulation$$' -seeds 10000 -timeout 5m
	$(GO) test -count=1 -run '^(TestEval.*|$(RACEFREE))$$' -timeout 10m ./cli/ ./engine/ ./engine/model/ ./engine/observe/

## wine-test: the Windows desktop driver's tests and a CLI run on it, as Windows programs under Wine
wine-test:
	scripts/wine-test.sh

## sim: run the engine's randomized simulation over SEEDS seeds (default 100000), and the
## backend's several runs with one person over SEEDS/20
sim:
	$(GO) test ./engine/sim/ -run 'TestSimulation$$' -seeds $(SEEDS) -timeout 0 -v
	$(GO) test ./backend/ -run 'TestManyRunsOnePerson$$' -manyseeds $$(( $(SEEDS) / 20 )) -timeout 0 -v

## mutants: plant each fault of engine/mutants/list.go in the run's core, alone, and show the
## core's random runs or the simulation catch it (SEEDS=2000 here; not part of make test)
mutants:
	$(GO) run ./engine/mutants -seeds $(if $(filter command line,$(origin SEEDS)),$(SEEDS),2000)

## bench-release: this tree's tandem run against a previous release's (OLD=commit, default the last tag,
## else 5bde43b), paired and alternated: CPU and wall per step of both, a 6-step task's time, and the ratios (ROUNDS=7)
bench-release: setup build
	scripts/bench-release.sh

## bench-four: four phones at once against one through tandem run --device (four tandem vphone
## processes, one adb server): wall and CPU a step, step ratio, max RSS an extra device (ROUNDS=4)
bench-four: setup build
	TANDEM_BIN=$(CURDIR)/$(BIN) $(GO) test ./scripts/benchrelease -run '^$$' -bench FourRelease -benchtime $${ROUNDS:-4}x -timeout 30m -v

## bench-mcp: Tandem's MCP server against @mobilenext/mobile-mcp 1.0.4 on one virtual phone
## (median of 50 calls each: screenshot, tap, the screen's elements; README "MCP")
bench-mcp: setup-test build
	cd bench/mobile-mcp && npm ci --silent --no-audit --no-fund
	TANDEM_BIN=$(CURDIR)/$(BIN) $(GO) test ./mcpserver -run '^$$' -bench MCPVersusMobileMCP -benchtime 50x

webtest:
	cd frontend && npm run check --silent && npm test --silent

## e2e: the browser suite alone (real Go backend under Xvfb, driven in chromium)
e2e: setup-test build-dev
	cd frontend && TANDEM_DEV_BIN=$(CURDIR)/$(DEVBIN) npm run e2e --silent

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html test-artifacts

# ---- Packaging (README "Install packages"). Slow, so not part of `make test`.
# The version comes from internal/version (scripts/package/version.sh).

.PHONY: package package-deb package-tarball package-windows package-test setup-package icons

setup-package:
	@scripts/setup.sh package

## icons: re-make the icon set (build/appicon.png, build/linux/icons, build/windows/icon.ico, app/icon.png)
icons:
	$(GO) run ./scripts/package/icongen -out build -window app/icon.png

## package: the .deb, the portable tarball and the Windows installer, in dist/
package: setup-package package-deb package-tarball package-windows
	@ls -l dist

package-deb: build
	scripts/package/deb.sh $(BIN)

package-tarball: build
	scripts/package/tarball.sh $(BIN)

package-windows: frontend
	scripts/package/windows.sh $(COMMIT)

## package-test: build and install the .deb, validate, start it from its menu entry under Xvfb, remove it; check the Windows PE files
package-test: setup-test package
	scripts/package/test.sh
