# gp — goodput@SLO toolchain.  Plain GNU make.
#
#   make            build every tool into bin/
#   make check      -Werror build, unit tests under ASan+UBSan, e2e tests (TAP via prove)
#   make demo       the demo campaign against gp-sim behind HAProxy
#   make bench      benchmarks (print figures; not tests; BENCH="sim replay" picks)
#   make deps       install missing Debian packages (apt-get)
#   make install    PREFIX=/usr/local DESTDIR= (tools, man pages, awk/jq scripts,
#                   LICENSE and README in PREFIX/share/doc/gp)
#   make fuzz       libFuzzer harnesses (clang), FUZZ_SECONDS each (not part of check)
#   make memcheck   each tool's e2e path under valgrind (Debian: valgrind; not in check)
#
# User CFLAGS are appended to ours, never replace them.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
SHAREDIR ?= $(PREFIX)/share/gp
DOCDIR  ?= $(PREFIX)/share/doc/gp
CC      ?= cc
PKG_CONFIG ?= pkg-config
WERROR  ?= -Werror
PROVE_J ?= 2

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)
PKGS    := libcurl jansson libevent gsl zlib libcrypto
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

# CPPFLAGS, CFLAGS, LDFLAGS and LDLIBS are the user's: each is appended to
# ours (never replaces them), so `make CFLAGS=-O0 LDFLAGS=-static-libasan`
# works as in any GNU project.
GP_CPPFLAGS = -D_GNU_SOURCE -Isrc/lib -DGP_VERSION='"$(VERSION)"' -DGP_SHAREDIR='"$(SHAREDIR)"' \
	      $(PKG_CFLAGS) $(CPPFLAGS)
GP_CFLAGS = -std=c11 -O2 -g -Wall -Wextra $(WERROR) \
	    -Wno-unused-parameter -Wshadow -Wformat=2 $(GP_CPPFLAGS) $(CFLAGS)
GP_LDFLAGS = $(LDFLAGS)
GP_LDLIBS = $(PKG_LIBS) -lm $(LDLIBS)

# A sanitized build of everything, for the unit tests (and SANITIZE=... by hand).
SANITIZE ?= address,undefined
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all

# src/lib is in folders by layer (src/lib/README); a module is LAYER/NAME.c.
LIB_SRC   := $(sort $(wildcard src/lib/*/*.c))
TOOL_SRC  := $(sort $(wildcard src/gp-*.c))
TOOLS     := $(patsubst src/%.c,bin/%,$(TOOL_SRC))
UNIT_SRC  := $(sort $(wildcard tests/unit/t-*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,build/san/tests/%,$(UNIT_SRC))
E2E       := $(sort $(wildcard tests/t[0-9]*.sh))
# Tests that judge a live replay's timing end to end (a client starved of CPU
# is rightly discarded by gp-verify's client rules) say "# prove: serial" and
# run one at a time after the others, with nothing else on the machine.
E2E_SERIAL := $(sort $(shell grep -l '^\# prove: serial' $(E2E) /dev/null 2>/dev/null))
E2E_PAR   := $(filter-out $(E2E_SERIAL),$(E2E))
MANPAGES  := $(sort $(wildcard doc/*.1))
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(patsubst bench/%.c,build/bench/%,$(BENCH_SRC))

LIB_OBJ     := $(patsubst src/lib/%.c,build/obj/lib/%.o,$(LIB_SRC))
LIB_OBJ_SAN := $(patsubst src/lib/%.c,build/san/lib/%.o,$(LIB_SRC))

.PHONY: all check check-run check-layers unit e2e demo demo-run bench bench-run bench-bins deps deps-check install uninstall clean lint fuzz memcheck FORCE
.DELETE_ON_ERROR:
.SECONDARY:

all: $(TOOLS)

# build/flags holds every setting that is compiled in (compiler, flags,
# version, SHAREDIR): it is rewritten only when one of them changes, and
# every object depends on it, so `make; make install PREFIX=/opt` rebuilds
# what was built for /usr/local.  Each object's own header dependencies come
# from -MMD (build/**/*.d); no object depends on headers it does not include.
BUILD_FLAGS := $(CC) $(GP_CFLAGS) $(GP_LDFLAGS) $(GP_LDLIBS) | $(SAN_FLAGS)
build/flags: FORCE
	@mkdir -p build
	@printf '%s\n' '$(subst ','\'',$(BUILD_FLAGS))' >build/flags.new; \
	if cmp -s build/flags.new build/flags; then rm -f build/flags.new; else mv build/flags.new build/flags; fi

DEPFLAGS = -MMD -MP

build/obj/%.o: src/%.c build/flags
	@mkdir -p $(@D)
	$(CC) $(GP_CFLAGS) $(DEPFLAGS) -c -o $@ $<
build/libgp.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
bin/%: build/obj/%.o build/libgp.a | bin
	$(CC) $(GP_CFLAGS) $(GP_LDFLAGS) -o $@ $< build/libgp.a $(GP_LDLIBS)

build/san/lib/%.o: src/lib/%.c build/flags
	@mkdir -p $(@D)
	$(CC) $(GP_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -c -o $@ $<
build/san/libgp.a: $(LIB_OBJ_SAN)
	rm -f $@ && ar rcs $@ $^
build/san/tests/%: tests/unit/%.c build/san/libgp.a build/flags | build/san/tests
	$(CC) $(GP_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -Itests/unit $(GP_LDFLAGS) -o $@ $< build/san/libgp.a $(GP_LDLIBS)

# The bench programs, built by make with the project's warnings (-Werror too);
# bench/run.sh builds them through `make bench-bins`.
build/bench/%: bench/%.c build/libgp.a build/flags
	@mkdir -p $(@D)
	$(CC) $(GP_CFLAGS) $(DEPFLAGS) $(GP_LDFLAGS) -o $@ $< build/libgp.a $(GP_LDLIBS)
bench-bins: $(BENCH_BINS)

bin build/san/tests:
	mkdir -p $@

# check-layers: src/lib's layers are real only when the build refuses an
# upward include or a cycle between modules (tests/check-layers.sh; the
# order is src/lib/README's).  Part of `make check`.
check-layers:
	@sh tests/check-layers.sh src/lib

# check, demo and bench need their packages.  The deps step runs first, on its
# own; the build runs in a sub-make that reads this Makefile again, so the
# pkg-config flags are taken after the packages are installed (a parse-time
# $(shell pkg-config) on a fresh machine would be empty), also under -j.
check: deps-check
	+@$(MAKE) --no-print-directory check-run
check-run: check-layers all $(UNIT_BINS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	GP_BIN=$(CURDIR)/bin GP_TOP=$(CURDIR) \
	prove -j$(PROVE_J) --exec '' $(UNIT_BINS) $(E2E_PAR)
	$(if $(E2E_SERIAL),GP_BIN=$(CURDIR)/bin GP_TOP=$(CURDIR) prove -j1 --exec '' $(E2E_SERIAL))

unit: $(UNIT_BINS)
	prove -j$(PROVE_J) --exec '' $(UNIT_BINS)

e2e: all
	GP_BIN=$(CURDIR)/bin GP_TOP=$(CURDIR) prove -j$(PROVE_J) --exec '' $(E2E_PAR)
	$(if $(E2E_SERIAL),GP_BIN=$(CURDIR)/bin GP_TOP=$(CURDIR) prove -j1 --exec '' $(E2E_SERIAL))

demo: deps-check
	+@$(MAKE) --no-print-directory demo-run
demo-run: all
	GP_BIN=$(CURDIR)/bin bash examples/demo.sh

bench: deps-check
	+@$(MAKE) --no-print-directory bench-run
bench-run: all
	GP_BIN=$(CURDIR)/bin sh bench/run.sh

# deps: install what a fresh Debian 12 lacks (the list: share/packages).
# deps-check does it only when something is missing, so `make check` and
# `make demo` alone work from scratch and cost nothing when all is there.
deps:
	sh share/deps.sh
deps-check:
	@sh share/deps.sh --check || sh share/deps.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(SHAREDIR)/awk $(DESTDIR)$(DOCDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)
	install -m 644 LICENSE README $(DESTDIR)$(DOCDIR)
	$(if $(MANPAGES),install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1)
	$(if $(wildcard share/awk/*.awk),install -m 644 share/awk/*.awk share/awk/*.jq $(DESTDIR)$(SHAREDIR)/awk)
uninstall:
	rm -f $(patsubst bin/%,$(DESTDIR)$(BINDIR)/%,$(TOOLS))
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man1/%,$(MANPAGES))
	rm -rf $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(DOCDIR)

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability -Isrc/lib \
		--suppress=unknownMacro --suppress=nullPointerRedundantCheck:src/gp-replay.c src

# fuzz: coverage-guided fuzzing of the input parsers with libFuzzer (clang;
# Debian: clang and libclang-rt-14-dev).  The library is compiled with our
# flags plus the fuzzer's instrumentation into build/fuzz/; each harness
# tests/fuzz/fuzz-NAME.c runs FUZZ_SECONDS on a copy of tests/fuzz/corpus/NAME
# kept in build/fuzz/corpus-NAME (it grows across runs); crashes are written
# to build/fuzz/crash-NAME-*.  Not part of `make check`.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN      = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz-%.c,%,$(FUZZ_SRC))
FUZZ_BINS    := $(patsubst %,build/fuzz/fuzz-%,$(FUZZ_NAMES))
LIB_OBJ_FUZZ := $(patsubst src/lib/%.c,build/fuzz/lib/%.o,$(LIB_SRC))

build/fuzz/lib/%.o: src/lib/%.c build/flags
	@mkdir -p $(@D)
	$(FUZZ_CC) $(GP_CFLAGS) -Wno-format-nonliteral $(FUZZ_SAN) $(DEPFLAGS) -c -o $@ $<
build/fuzz/libgp.a: $(LIB_OBJ_FUZZ)
	rm -f $@ && ar rcs $@ $^
build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c build/fuzz/libgp.a build/flags | build/fuzz/lib
	$(FUZZ_CC) $(GP_CFLAGS) $(subst fuzzer-no-link,fuzzer,$(FUZZ_SAN)) $(DEPFLAGS) -Itests/unit \
		$(GP_LDFLAGS) -o $@ $< build/fuzz/libgp.a $(GP_LDLIBS)
build/fuzz/lib:
	mkdir -p $@

# `make -jN fuzz` runs N harnesses at once; each one's log is build/fuzz/log-NAME.
fuzz: $(patsubst %,fuzz-run-%,$(FUZZ_NAMES))
	@fail=; for n in $(FUZZ_NAMES); do \
		test -e build/fuzz/failed-$$n && fail="$$fail $$n"; \
		echo "fuzz-$$n: $$(grep -h -e '^stat::number_of_executed_units' build/fuzz/log-$$n)"; \
	done; \
	if [ -n "$$fail" ]; then echo "fuzz: failed:$$fail (see build/fuzz/crash-* and log-*)"; exit 1; fi
fuzz-run-%: build/fuzz/fuzz-%
	@mkdir -p build/fuzz/corpus-$* && cp tests/fuzz/corpus/$*/* build/fuzz/corpus-$*/
	@rm -f build/fuzz/failed-$*
	@echo "== fuzz-$*: $(FUZZ_SECONDS) s (log: build/fuzz/log-$*)"
	@build/fuzz/fuzz-$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix=build/fuzz/crash-$*- \
		build/fuzz/corpus-$* >build/fuzz/log-$* 2>&1 || \
		{ tail -40 build/fuzz/log-$*; echo "fuzz-$*: FAILED"; touch build/fuzz/failed-$*; }

# memcheck: tests/memcheck.sh runs every tool's end-to-end path under valgrind
# memcheck (Debian: valgrind) and fails on any error or definitely lost block.
memcheck: all
	GP_BIN=$(CURDIR)/bin sh tests/memcheck.sh

clean:
	rm -rf build $(TOOLS)

-include $(shell find build -name '*.d' 2>/dev/null)
