# HealthTrail — the two commands a newcomer needs are `make run` and `make test`.
SWIFT        ?= swift
APT_PACKAGES := libxml2-dev zlib1g-dev libdeflate-dev libsqlite3-dev pkg-config
# The tests read archives with the system's unzip too, as an independent reader; strace
# stops runs at each step of their commit (CommitSignalTests).
TEST_APT_PACKAGES := unzip strace sqlite3
# Headless Chromium renders the SVG maps in the tests (BrowserRenderingTests): ~155 MB, ~50 s once.
BROWSER_APT_PACKAGES := chromium
SAMPLE       := data/sample-export.zip
SAMPLE_OUT   := out/sample
BIN          := .build/release/healthtrail
BENCH_DAYS   ?= 720
BENCH_RUNS   ?= 5
# The cohort benchmark: this many synthesized persons of this many days each.
COHORT_PERSONS ?= 20
COHORT_DAYS  ?= 30
# The distinct-sources benchmark: records per archive, one source vs. a distinct source each.
SOURCES_RECORDS ?= 100000
# The cached archive is named after the generator's sources: a changed generator makes a new one.
SYNTH_HASH   := $(shell cat Sources/HealthTrailSynth/*.swift | sha1sum | cut -c1-10)
BENCH_ZIP    := .bench/bench-export-$(BENCH_DAYS)d-$(SYNTH_HASH).zip

SPARK_VENV   := .build/spark-venv
SPARK_WORK   := .build/spark-test
SPARK_BENCH_N ?= 20

.PHONY: all deps test-deps browser-deps apt-install build run test test-unit test-agreement bench sample clean help spark-venv spark-test spark-bench docs \
	man completions install install-files uninstall format format-check

all: build

help:
	@echo "make run    build (release) and process $(SAMPLE) into $(SAMPLE_OUT)/"
	@echo "make test   run the test suite (after make format-check); CI runs make test-agreement too"
	@echo "make test-unit  the layer tests alone, in process (no binary, no end-to-end runs)"
	@echo "make test-agreement  the release and debug builds write the same bytes (builds both)"
	@echo "make format format every Swift file as .swift-format says (make format-check: fail if one is not)"
	@echo "make bench  healthtrail vs. the bare floor on a ~700 MB synthesized export, then on one twice as long"
	@echo "make sample regenerate $(SAMPLE) with the project's generator"
	@echo "make install  install the release binary (built if older than its sources), man page, completions and example pipelines under PREFIX ($(PREFIX))"
	@echo "make docs   rewrite the table of files and columns in docs/outputs.md from OutputSchema.swift"
	@echo "make spark-test  the Spark driver (pipelines/spark) in local mode against the one-machine cohort"
	@echo "make spark-bench Spark local[2] vs. run --pipeline --jobs 2 on $(SPARK_BENCH_N) synthesized archives"
	@echo "make bench-double  the bench on a 1440-day archive only (make bench runs it too)"
	@echo "make bench-guard   the 720-day bench against the committed report; fails when a figure regressed beyond noise"
	@echo "make bench-peers   healthtrail beside other tools that read the same export"
	@echo "make fuzz   libFuzzer on each input reader, FUZZ_SECONDS ($(FUZZ_SECONDS)) each, then more release/debug cases"
	@echo "make clean  remove .build, out and .bench"

# System libraries (libxml2, zlib) from Debian, installed only when missing.
deps:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_PACKAGES) $(TEST_APT_PACKAGES)"
	@# routes.geojson is also checked by PyPI's geojson validator when it can be installed.
	@python3 -c "import geojson" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check geojson \
		|| echo "note: PyPI geojson unavailable; the tests use their own RFC 7946 checks only"
	@# The zCDP → (ε, δ) conversion is compared with OpenDP's when it can be installed.
	@python3 -c "import opendp" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check opendp \
		|| echo "note: PyPI opendp unavailable; ApproximateDPTests.agreesWithOpenDP is skipped"
	@# The Rényi accountant is compared with Google's dp_accounting when it can be installed.
	@python3 -c "import dp_accounting" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check dp-accounting \
		|| echo "note: PyPI dp-accounting unavailable; RenyiAccountantTests.agreesWithDPAccounting is skipped"
	@# The SQLite and Parquet outputs are read back by pyarrow and DuckDB, the README's examples
	@# by pandas and GDAL (pyogrio, what QGIS reads GeoJSON with).
	@python3 -c "import pyarrow, duckdb, pandas, pyogrio" 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check pyarrow duckdb pandas pyogrio \
		|| echo "note: PyPI readers unavailable; TableFormatTests and ReadmeOpenItInTests are skipped"
	@# The Spark driver's tests (SparkDriverTests) need a JVM; Debian's default JRE when none is on PATH.
	@command -v java >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="default-jre-headless"

# The browser the SVG tests render with, installed only when none is on PATH.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
		|| $(MAKE) --no-print-directory apt-install PACKAGES="$(BROWSER_APT_PACKAGES)"

apt-install:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -c release --product healthtrail

# The binary as a file: rebuilt only when a source is newer, so that `sudo make install` after
# `make build` installs what was built instead of building again as root.
BIN_SOURCES  := Package.swift $(shell find Sources -type f 2>/dev/null)
$(BIN): $(BIN_SOURCES)
	@$(MAKE) --no-print-directory deps
	$(SWIFT) build -c release --product healthtrail
	touch $@

run: build
	@rm -rf $(SAMPLE_OUT).tmp
	$(BIN) run $(SAMPLE) --out $(SAMPLE_OUT)
	@echo "outputs: $(CURDIR)/$(SAMPLE_OUT)/"

# `make install`: the release binary, healthtrail(1) and completions for bash, zsh and fish, all
# made from the argument parser (the man page by Tools/manpage.py from the binary's own
# description of its commands; the completions by the binary). PREFIX and DESTDIR as usual:
#   make install PREFIX=~/.local      sudo make install      make install DESTDIR=pkg PREFIX=/usr
PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       := $(PREFIX)/bin
MAN1DIR      := $(PREFIX)/share/man/man1
BASHCOMPDIR  := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR   := $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR  := $(PREFIX)/share/fish/vendor_completions.d
# The shipped pipeline files, which `healthtrail run --help` and the man page refer to.
EXAMPLEDIR   := $(PREFIX)/share/healthtrail/examples
EXAMPLES     := pipelines/README.md pipelines/nightly.yaml pipelines/cohort.yaml pipelines/releases.yaml
GEN          := .build/generated

man: $(BIN)
	@$(MAKE) --no-print-directory $(GEN)/healthtrail.1

completions: $(BIN)
	@$(MAKE) --no-print-directory $(GEN)/completions

# The man page names $(EXAMPLEDIR): remade when PREFIX changes, through a file that holds the
# folder and is rewritten only when it differs.
$(GEN)/exampledir: FORCE
	@mkdir -p $(GEN)
	@echo "$(EXAMPLEDIR)" | cmp -s - $@ || echo "$(EXAMPLEDIR)" > $@

$(GEN)/healthtrail.1: $(BIN) Tools/manpage.py $(GEN)/exampledir
	@mkdir -p $(GEN)
	python3 Tools/manpage.py $(BIN) "$(EXAMPLEDIR)" > $@.tmp && mv $@.tmp $@

$(GEN)/completions: $(BIN)
	@mkdir -p $@
	$(BIN) --generate-completion-script bash > $@/healthtrail.bash
	$(BIN) --generate-completion-script zsh > $@/_healthtrail
	$(BIN) --generate-completion-script fish > $@/healthtrail.fish
	@touch $@

install: $(BIN)
	@$(MAKE) --no-print-directory install-files

# Installs $(BIN) (built first only when a source is newer), the man page, the completions and
# the example pipelines.
install-files: $(GEN)/healthtrail.1 $(GEN)/completions
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MAN1DIR)" "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)" \
		"$(DESTDIR)$(EXAMPLEDIR)"
	install -m 0755 $(BIN) "$(DESTDIR)$(BINDIR)/healthtrail"
	install -m 0644 $(GEN)/healthtrail.1 "$(DESTDIR)$(MAN1DIR)/healthtrail.1"
	install -m 0644 $(GEN)/completions/healthtrail.bash "$(DESTDIR)$(BASHCOMPDIR)/healthtrail"
	install -m 0644 $(GEN)/completions/_healthtrail "$(DESTDIR)$(ZSHCOMPDIR)/_healthtrail"
	install -m 0644 $(GEN)/completions/healthtrail.fish "$(DESTDIR)$(FISHCOMPDIR)/healthtrail.fish"
	install -m 0644 $(EXAMPLES) "$(DESTDIR)$(EXAMPLEDIR)/"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/healthtrail" "$(DESTDIR)$(MAN1DIR)/healthtrail.1" "$(DESTDIR)$(BASHCOMPDIR)/healthtrail" \
		"$(DESTDIR)$(ZSHCOMPDIR)/_healthtrail" "$(DESTDIR)$(FISHCOMPDIR)/healthtrail.fish"
	rm -f $(addprefix "$(DESTDIR)$(EXAMPLEDIR)/,$(addsuffix ",$(notdir $(EXAMPLES))))
	-rmdir "$(DESTDIR)$(EXAMPLEDIR)" "$(DESTDIR)$(PREFIX)/share/healthtrail" 2>/dev/null

# The tests check the binary users run: $(BIN), built exactly as `make build` builds it, is
# what every command-line test drives. The unit tests are compiled in the release configuration
# too (with testable imports, in .build-test/ so that they do not rebuild $(BIN)).
# `make test-agreement` (run by CI after `make test`) builds the debug binary as well and runs
# the two suites that require both builds to write the same bytes; `make test` skips them, which
# keeps a fresh clone's first run to two builds instead of three.
TEST_SCRATCH := .build-test
TEST_TMP     := $(TEST_SCRATCH)/tmp
DEBUG_BIN    := .build/debug/healthtrail
AGREEMENT    := BuildAgreement
# Cases of the release/debug differential test over mutated inputs (more in `make fuzz`).
MUTATIONS    ?= 300

# Swift files formatted by the toolchain's swift-format with .swift-format (Tools/format.sh):
# `make format` rewrites them, `make format-check` (run first by `make test`) fails naming any
# file it would change. SWIFT_FORMAT=/path/to/swift-format uses another binary.
SWIFT_FORMAT ?= $(SWIFT) format

format:
	@SWIFT_FORMAT="$(SWIFT_FORMAT)" Tools/format.sh apply

format-check:
	@SWIFT_FORMAT="$(SWIFT_FORMAT)" Tools/format.sh check

# The build just confirmed the binary current, so it is touched: the tests' check that a binary
# is not older than Sources/ (for `swift test` run by hand) must not trip on a source file whose
# time changed but whose bytes did not (a format pass), which the build skips.
# The tests' scratch files (about 1 GB a run) go to a folder of their own, emptied before each
# run and removed after one that passes (kept after a failure, to look into).
define run-tests
	rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	TMPDIR=$(CURDIR)/$(TEST_TMP) HEALTHTRAIL_BINARY=$(CURDIR)/$(BIN) HEALTHTRAIL_DEBUG_BINARY=$(CURDIR)/$(DEBUG_BIN) \
		HEALTHTRAIL_MUTATIONS=$(MUTATIONS) $(SWIFT) test -c release --scratch-path $(TEST_SCRATCH) $(1)
	rm -rf $(TEST_TMP)
endef

test: format-check test-deps browser-deps
	$(SWIFT) build -c release --product healthtrail
	touch $(BIN)
	$(call run-tests,--skip $(AGREEMENT))

# The layer test targets alone (every target but HealthTrailEndToEndTests): they run in process,
# so no binary is built; still compiled in release, like everything the tests check.
test-unit: format-check
	$(call run-tests,--skip HealthTrailEndToEndTests)

# The release and debug builds of the same sources write the same bytes (BuildAgreementTests,
# BuildAgreementMutationTests): no compiler setting may change what HealthTrail computes.
test-agreement: test-deps
	$(SWIFT) build -c release --product healthtrail
	$(SWIFT) build -c debug --product healthtrail
	touch $(BIN) $(DEBUG_BIN)
	$(call run-tests,--filter $(AGREEMENT))

# docs/outputs.md's table of files and columns is generated from OutputSchema (Sources/HealthTrailRun/
# Outputs/OutputSchema.swift); `make test` fails when they differ.
docs:
	HEALTHTRAIL_WRITE_DOCS=1 $(SWIFT) test -c release --scratch-path $(TEST_SCRATCH) --filter OutputSchemaReadmeTests

sample: build
	$(BIN) synth $(SAMPLE) --days 7 --seed 2024
	@ls -l $(SAMPLE)

# The commit a bench measures, written into its reports; taken once, before any report is rewritten
# (bench-double, run from bench, is handed it rather than seeing the tree dirtied by latest.md).
BENCH_COMMIT ?= $(shell git describe --always --dirty 2>/dev/null)
# `--compare` and the committed version of a report, HEAD's copy in .bench/ (so that a second run
# before a commit still compares with the commit, not with the first run); nothing without one.
# $(1): the report's JSON under Benchmarks/results/.
committed-report = $(shell mkdir -p .bench && git show HEAD:Benchmarks/results/$(1) > .bench/committed-$(1) 2>/dev/null && echo --compare .bench/committed-$(1) || rm -f .bench/committed-$(1))

bench-archive: deps
	$(SWIFT) build -c release --product healthtrail
	$(SWIFT) build -c release --product healthtrail-floor
	$(SWIFT) build -c release --product healthtrail-bench
	@mkdir -p .bench
	@[ -f $(BENCH_ZIP) ] || { echo "synthesizing $(BENCH_ZIP) (once; cached)"; rm -f .bench/bench-export-$(BENCH_DAYS)d-*.zip; \
		$(BIN) synth $(BENCH_ZIP).tmp --days $(BENCH_DAYS) --seed 42 --summary > .bench/synth-summary.json && mv $(BENCH_ZIP).tmp $(BENCH_ZIP); }

bench: bench-archive
	.build/release/healthtrail-bench --archive $(BENCH_ZIP) --healthtrail $(BIN) \
		--floor .build/release/healthtrail-floor --runs $(BENCH_RUNS) --out-dir .bench/runs \
		--commit "$(BENCH_COMMIT)" $(call committed-report,latest.json) --report Benchmarks/results/latest.md
	.build/release/healthtrail-bench cohort --healthtrail $(BIN) --pipeline pipelines/cohort.yaml \
		--persons $(COHORT_PERSONS) --days $(COHORT_DAYS) --runs 3 --jobs 1,2 --out-dir .bench/cohort \
		--report Benchmarks/results/cohort.md
	$(MAKE) --no-print-directory bench-double BENCH_COMMIT="$(BENCH_COMMIT)"
	python3 Benchmarks/doubling_summary.py Benchmarks/results/latest.json Benchmarks/results/double.json \
		Benchmarks/results/doubling.md
	# Cases with a limit last: each fails `make bench` when over it, after every figure is measured.
	.build/release/healthtrail-bench busy --healthtrail $(BIN) --days 300 --runs 3 --out-dir .bench/busy \
		--report Benchmarks/results/busy.md
	.build/release/healthtrail-bench sources --healthtrail $(BIN) --records $(SOURCES_RECORDS) --runs 3 \
		--max-ratio 2 --out-dir .bench/sources --report Benchmarks/results/sources.md
	python3 Benchmarks/route_memory.py --healthtrail $(BIN) --max-rss-mb 150 --out-dir .bench/route-memory \
		--report Benchmarks/results/route-memory.md
	python3 Benchmarks/hostile.py --healthtrail $(BIN) --out-dir .bench/hostile --report Benchmarks/results/hostile.md

# The Spark driver's Python environment (pyspark from PyPI, ~900 MB), made once.
spark-venv:
	@pipelines/spark/setup-venv.sh $(SPARK_VENV)

spark-test: deps spark-venv
	$(SWIFT) build -c release --product healthtrail
	pipelines/spark/try-local.sh $(BIN) $(SPARK_VENV) $(SPARK_WORK)

spark-bench: deps spark-venv
	$(SWIFT) build -c release --product healthtrail
	Benchmarks/spark/bench.sh $(BIN) $(SPARK_VENV) .bench/spark $(SPARK_BENCH_N) 10 3

# The same bench on an archive twice as long (1440 days, ≈ 1.4 GB of export.xml), to see
# whether HealthTrail's ratio to the floor and its peak RSS stay flat when the export doubles.
# Its archive is cached beside the 720-day one (neither deletes the other); see Benchmarks/README.md.
DOUBLE_DAYS  := 1440
DOUBLE_RUNS  ?= 3
DOUBLE_ZIP   := .bench/bench-export-$(DOUBLE_DAYS)d-$(SYNTH_HASH).zip

bench-double: deps
	$(SWIFT) build -c release --product healthtrail
	$(SWIFT) build -c release --product healthtrail-floor
	$(SWIFT) build -c release --product healthtrail-bench
	@mkdir -p .bench
	@[ -f $(DOUBLE_ZIP) ] || { echo "synthesizing $(DOUBLE_ZIP) (once; cached)"; rm -f .bench/bench-export-$(DOUBLE_DAYS)d-*.zip; \
		$(BIN) synth $(DOUBLE_ZIP).tmp --days $(DOUBLE_DAYS) --seed 42 --summary > .bench/synth-summary-$(DOUBLE_DAYS)d.json && mv $(DOUBLE_ZIP).tmp $(DOUBLE_ZIP); }
	.build/release/healthtrail-bench --archive $(DOUBLE_ZIP) --healthtrail $(BIN) \
		--floor .build/release/healthtrail-floor --runs $(DOUBLE_RUNS) --out-dir .bench/runs-double \
		--commit "$(BENCH_COMMIT)" $(call committed-report,double.json) --label "$(DOUBLE_DAYS) days" --report Benchmarks/results/double.md

# The perf guard: the 720-day case alone against the committed latest.json, failing (exit 3 from
# the driver) when a figure got slower or larger beyond noise. Its report goes to .bench/guard.md,
# so that a check before a commit leaves Benchmarks/results/ as it was; `make bench` never fails on
# a comparison, only on its cases' limits.
bench-guard: bench-archive
	@git show HEAD:Benchmarks/results/latest.json > .bench/committed-latest.json 2>/dev/null \
		|| { echo "bench-guard: no committed Benchmarks/results/latest.json to compare with"; exit 2; }
	.build/release/healthtrail-bench --archive $(BENCH_ZIP) --healthtrail $(BIN) \
		--floor .build/release/healthtrail-floor --runs $(BENCH_RUNS) --out-dir .bench/runs-guard \
		--commit "$(BENCH_COMMIT)" --compare .bench/committed-latest.json --fail-on-regression yes --report .bench/guard.md

# HealthTrail beside other tools that read the same export (a venv under .bench/peers-venv).
# The peer is slow on the 720-day archive (many minutes): it runs once, HealthTrail 3 times.
bench-peers: deps
	$(SWIFT) build -c release --product healthtrail
	@mkdir -p .bench
	@[ -f $(BENCH_ZIP) ] || { echo "synthesizing $(BENCH_ZIP) (once; cached)"; rm -f .bench/bench-export-$(BENCH_DAYS)d-*.zip; \
		$(BIN) synth $(BENCH_ZIP).tmp --days $(BENCH_DAYS) --seed 42 --summary > .bench/synth-summary.json && mv $(BENCH_ZIP).tmp $(BENCH_ZIP); }
	Benchmarks/peers/run_peers.sh $(BENCH_ZIP) $(BIN) Benchmarks/results/peers.md

.PHONY: bench-double bench-peers bench-guard bench-archive

clean:
	rm -rf .build out .bench

# libFuzzer on each reader of untrusted input (Fuzz/README.md): the zip reader, export.xml,
# GPX, the date parser and the ECG files, FUZZ_SECONDS each. The fuzz package is separate: `swift build` and
# `swift test` never build it. Corpus, findings and logs go to .fuzz/ (not committed).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := zip export-xml device-elision gpx timestamp ecg
FUZZ_BIN     := .fuzz/build/debug
.PHONY: fuzz
fuzz: deps
	$(SWIFT) build -c release --product healthtrail
	cd Fuzz && $(SWIFT) build -c debug --scratch-path ../.fuzz/build \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -O -Xswiftc -disable-cmo
	@[ -f .fuzz/seed-export.zip ] || $(BIN) synth .fuzz/seed-export.zip --days 2 --seed 7
	@rm -rf .fuzz/seeds && python3 Fuzz/make_corpus.py .fuzz/seeds .fuzz/seed-export.zip ../shared/fixtures/real
	@failed=""; for t in $(FUZZ_TARGETS); do \
		mkdir -p .fuzz/corpus/$$t .fuzz/findings/$$t; \
		dict=""; case $$t in export-xml|device-elision|gpx) dict=-dict=Fuzz/xml.dict;; esac; \
		echo "== fuzz-$$t: $(FUZZ_SECONDS) s (log: .fuzz/fuzz-$$t.log)"; \
		$(FUZZ_BIN)/fuzz-$$t .fuzz/corpus/$$t .fuzz/seeds/$$t $$dict -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -print_final_stats=1 -artifact_prefix=.fuzz/findings/$$t/ > .fuzz/fuzz-$$t.log 2>&1 \
			|| failed="$$failed $$t"; \
		grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units|^SUMMARY" .fuzz/fuzz-$$t.log; \
		ls .fuzz/findings/$$t | sed "s|^|   finding: .fuzz/findings/$$t/|"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzzing found problems in:$$failed (reproduce: $(FUZZ_BIN)/fuzz-TARGET FILE)"; exit 1; fi
	$(MAKE) --no-print-directory fuzz-builds

# The release/debug differential test over many more mutated inputs than `make test` runs.
FUZZ_MUTATIONS ?= 5000
.PHONY: fuzz-builds
fuzz-builds: deps
	$(SWIFT) build -c release --product healthtrail
	$(SWIFT) build -c debug --product healthtrail
	HEALTHTRAIL_BINARY=$(CURDIR)/$(BIN) HEALTHTRAIL_DEBUG_BINARY=$(CURDIR)/$(DEBUG_BIN) HEALTHTRAIL_MUTATIONS=$(FUZZ_MUTATIONS) \
		$(SWIFT) test -c release --scratch-path $(TEST_SCRATCH) --filter BuildAgreementMutationTests

FORCE:
.PHONY: FORCE
