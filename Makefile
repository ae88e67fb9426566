# sqlstream build, test and maintenance targets. `make help` lists them.

GO        ?= go
BIN       := bin/sqlstream
SHARED    ?= ../shared
QTT_DIR   ?= $(SHARED)/conformance/ksql-qtt
SQLTEST_DIR ?= $(SHARED)/conformance/ksql-sqltests
TIMEOUT   ?= 12m
# The version /info and `sqlstream version` report (internal/version.buildVersion).
VERSION   ?= 0.1.0
LDFLAGS   := -X github.com/sqlstream/sqlstream/internal/version.buildVersion=$(VERSION)

# Packages with goroutines run under the race detector; the end-to-end
# tests in tests/ run once more against the freshly built binary, never
# from the test cache.
RACE_RE   := /(runtime|state|server|repl|cmd|broker|qtt|schemaregistry)(/|$$)
E2E_RE    := /tests(/|$$)

CONSOLE   := console/web

.PHONY: help build run nexmark console test test-race test-invariants test-plain test-e2e test-crash test-failover-long test-fuzz bench conformance rewrite fmt lint clean

help:
	@echo "make build        build $(BIN) (static, CGO_ENABLED=0)"
	@echo "make run          build, then run server + REPL"
	@echo "make console      rebuild the web console's bundle (console/dist, committed) with the pinned npm toolchain"
	@echo "make test         go vet, then unit tests (-race where concurrent, state also with -tags invariants), short fuzzing and end-to-end tests"
	@echo "make test-crash   the long kill -9 run: 1M events, 100 SIGKILLs over three engines under exactly_once_v2 (not in make test)"
	@echo "make test-failover-long  kill -9 one of three servers (one standby each) during 1M events at 20 000/s (not in make test)"
	@echo "make bench        run the benchmarks once each"
	@echo "make nexmark      the Nexmark queries, each on a fresh engine over NEXMARK_EVENTS events, verified, per-core figures vs Flink (not in make test)"
	@echo "make conformance  run ksqlDB's QTT files (easy ones) and SQL test files through sqlstream test (exit 1 when one fails)"
	@echo "make rewrite      regenerate datadriven golden files"
	@echo "make fmt | lint   gofmt the tree | check gofmt and go vet"

# go build -v names each package as it compiles it; the filter turns
# those names into a progress line every 25 packages (a first build compiles
# a few hundred), passes anything else (compiler errors) through, and keeps
# go build's exit status.
build:
	@echo "building $(BIN) $(VERSION): the first build compiles every dependency, a minute or two"
	@{ CGO_ENABLED=0 $(GO) build -v -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sqlstream 2>&1; echo "go-build-exit $$?"; } | \
	awk '/^go-build-exit [0-9]+$$/ { code = $$2; next } \
	     /^[A-Za-z0-9._~\/-]+$$/ { n++; if (n % 25 == 0) printf "  compiled %d packages, now %s\n", n, $$0; next } \
	     { print } \
	     END { if (code == 0) printf "built %s (%d packages compiled)\n", "$(BIN)", n; exit code }'

run: build
	./$(BIN)

# The web console's bundle (console/dist) is committed, so go build needs
# no Node; this rebuilds it with the toolchain package-lock.json pins
# (npm ci installs exactly that; esbuild's binary comes in its npm
# package), after the page logic's node --test tests (web/test). console's Go
# test fails when web/ changed and this was not run.
console:
	cd $(CONSOLE) && npm ci --no-audit --no-fund && npm test --silent && node build.mjs
	@ls -l console/dist/app.js console/dist/app.js.gz console/dist/app.css | awk '{ printf "  %s %d bytes\n", $$NF, $$5 }'

test:
	$(GO) vet ./...
	@$(MAKE) --no-print-directory test-race test-invariants test-plain test-fuzz test-e2e

test-race:
	@pkgs="$$($(GO) list ./... | grep -E '$(RACE_RE)' | grep -Ev '$(E2E_RE)' || true)"; \
	if [ -n "$$pkgs" ]; then echo "go test -race $$(echo $$pkgs | wc -w) packages"; \
	$(GO) test -race -timeout $(TIMEOUT) $$pkgs; fi

# state's expensive self-checks compile only under the invariants tag.
test-invariants:
	$(GO) test -race -tags invariants -timeout $(TIMEOUT) ./state/

test-plain:
	@pkgs="$$($(GO) list ./... | grep -Ev '$(RACE_RE)' | grep -Ev '$(E2E_RE)' || true)"; \
	if [ -n "$$pkgs" ]; then echo "go test $$(echo $$pkgs | wc -w) packages"; \
	$(GO) test -timeout $(TIMEOUT) $$pkgs; fi

# A few seconds of fuzzing each for the parsers of user input (statement
# text, JSON and DELIMITED records); the seed corpora are checked in under
# testdata/fuzz/ and every crash they found is one of them.
FUZZTIME  ?= 5s
test-fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./sql/parser/
	$(GO) test -run '^$$' -fuzz '^FuzzJSONDecode$$' -fuzztime $(FUZZTIME) ./sql/format/
	$(GO) test -run '^$$' -fuzz '^FuzzDelimitedDecode$$' -fuzztime $(FUZZTIME) ./sql/format/
	$(GO) test -run '^$$' -fuzz '^FuzzRequestDecoders$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzParseSchema$$' -fuzztime $(FUZZTIME) ./schemaregistry/
	$(GO) test -run '^$$' -fuzz '^FuzzFindFirst$$' -fuzztime $(FUZZTIME) ./sql/functions/internal/java/

# The end-to-end tests that only wait on their own processes (most of
# them: a test's server sits idle between commits and polls) run
# E2E_PARALLEL at a time (t.Parallel); the kill -9, failover, terminal
# and Nexmark ones run alone first.
# The web console's browser tests save a screenshot of each step under
# $(ARTIFACTS)/console/<test>/ (the run's own: emptied first).
E2E_PARALLEL ?= 4
ARTIFACTS ?= bin/test-artifacts
test-e2e:
	rm -rf $(ARTIFACTS)/console && mkdir -p $(ARTIFACTS)/console
	SQLSTREAM_CONSOLE_SCREENSHOTS=$(abspath $(ARTIFACTS))/console $(GO) test -count=1 -timeout $(TIMEOUT) -parallel $(E2E_PARALLEL) ./tests/...
	@echo "console screenshots: $(ARTIFACTS)/console ($$(find $(ARTIFACTS)/console -name '*.png' | wc -l) files)"

# The long kill -9 run (tests/eos_crash_test.go): a broker process, three
# engine processes, 1M events and 100 seeded SIGKILLs; SQLSTREAM_CRASH_SEED
# replays another schedule.
test-crash:
	SQLSTREAM_CRASH_LONG=1 $(GO) test -count=1 -timeout 90m -run '^TestEOSCrashLong$$' -v ./tests/

# The long failover run (tests/failover_test.go): three servers with
# num.standby.replicas=1 under exactly_once_v2 count 1M events produced at
# 20 000 a second; one is SIGKILLed once 30 % are produced. It logs the
# time from the kill to every moved task's output moving again, the rate
# reached, and the records lost or duplicated (must be 0).
# SQLSTREAM_FAILOVER_EVENTS and SQLSTREAM_FAILOVER_RATE set the size
# (12 000 at 300 in make test).
FAILOVER_EVENTS ?= 1000000
FAILOVER_RATE   ?= 20000
test-failover-long:
	SQLSTREAM_FAILOVER_EVENTS=$(FAILOVER_EVENTS) SQLSTREAM_FAILOVER_RATE=$(FAILOVER_RATE) \
	$(GO) test -count=1 -timeout 30m -run '^TestFailoverWithStandbys$$' -v ./tests/

bench:
	@if [ -d tests/bench ]; then \
		$(GO) test -run '^$$' -bench . -benchtime 1x ./tests/bench/...; \
	else \
		$(GO) test -run '^$$' -bench . -benchtime 1x ./...; \
	fi

# The Nexmark benchmark (tests/nexmark_test.go, package nexmark): the
# tests build the binary, start a `sqlstream broker` process and load
# NEXMARK_EVENTS events once with `sqlstream nexmark` (NEXMARK_RATE
# events per second of event time), then run each query alone on a fresh
# engine process until its consumer groups have committed the end of
# their input, read that process's CPU-seconds from /proc/<pid>/stat,
# check the sink against the reference computation, and print one line
# per query; the Markdown table goes to NEXMARK_REPORT.
# NEXMARK_QUERIES=q0,q5 runs some only. NEXMARK_PROFILE=<dir> writes each
# engine's CPU profile to <dir>/<query>.pprof (nexmark/doc.go).
NEXMARK_EVENTS  ?= 200000
NEXMARK_RATE    ?= 1250
NEXMARK_REPORT  ?= $(CURDIR)/bin/nexmark.md
NEXMARK_QUERIES ?=
nexmark:
	@mkdir -p $(dir $(NEXMARK_REPORT))
	NEXMARK_EVENTS=$(NEXMARK_EVENTS) NEXMARK_RATE=$(NEXMARK_RATE) NEXMARK_REPORT=$(NEXMARK_REPORT) \
	NEXMARK_QUERIES=$(NEXMARK_QUERIES) $(GO) test -count=1 -timeout 90m -run '^TestNexmarkBenchmark$$' -v ./tests/
	@cat $(NEXMARK_REPORT)

conformance: build
	@if [ -d "$(QTT_DIR)" ]; then \
		./$(BIN) test --only-easy "$(QTT_DIR)" $$([ -d "$(SQLTEST_DIR)" ] && echo "$(SQLTEST_DIR)"); \
	else \
		echo "skipping conformance: $(QTT_DIR) not found (set QTT_DIR=...)"; \
	fi

# Packages whose tests use datadriven accept -rewrite.
rewrite:
	@pkgs="$$(grep -rl --include='*_test.go' 'cockroachdb/datadriven' . | xargs -r -n1 dirname | sort -u)"; \
	if [ -n "$$pkgs" ]; then $(GO) test $$pkgs -args -rewrite; fi

fmt:
	gofmt -w .

lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
