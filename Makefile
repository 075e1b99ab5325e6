# FastPixSeek build. `make` builds build/lib/libfastpixseek.so.1 and build/bin/fpx-seek,
# and is a no-op when no source changed (real file targets; the library and the tool
# build in separate SwiftPM scratch directories, because their link flags differ and
# sharing one .build/release would make each build undo the other).
#
# `make install PREFIX=/usr/local DESTDIR=...` installs what `make` built (it never
# builds): the library (stripped, no RUNPATH), the header, fastpixseek.pc, the fpx-seek
# tool and its man page. `make uninstall` removes exactly those files.
# `make wheel` builds a Python wheel that carries the library (setuptools; see Bindings/python).
# `make check` runs every test (tools/test-all.sh, the CI entry point).
#
# The Swift toolchain: SWIFT names the `swift` driver: $(SWIFT_TOOLCHAIN)/usr/bin/swift
# when SWIFT_TOOLCHAIN is set, else `swift` on PATH, else /opt/swift/usr/bin/swift.

PREFIX     ?= /usr/local
# Debian and derivatives: the multiarch directory (/usr/lib/x86_64-linux-gnu, ...).
MULTIARCH  := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
LIBDIR     ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=
# Stripping on install; debian/rules passes STRIP=: and lets dh_strip do it (-dbgsym).
STRIP      ?= strip --strip-unneeded --remove-section=.comment --remove-section=.note
ifdef SWIFT_TOOLCHAIN
SWIFT      ?= $(SWIFT_TOOLCHAIN)/usr/bin/swift
else
SWIFT      ?= $(or $(shell command -v swift 2>/dev/null),/opt/swift/usr/bin/swift)
endif
# `make wheel` needs pip and setuptools: the test venv's python (tools/deps.sh --test makes
# build/venv) when there is one, else python3 (Debian's has no pip unless python3-pip).
PYTHON     ?= $(if $(wildcard $(CURDIR)/build/venv/bin/python),$(CURDIR)/build/venv/bin/python,python3)
# SwiftPM writes its lock files and TemporaryDirectory.* folders to $TMPDIR and leaves
# them there: every swift command here gets a TMPDIR inside the scratch tree instead.
SWIFT_TMP  := $(CURDIR)/.build/tmp
SWIFT_RUN   = @mkdir -p $(SWIFT_TMP); TMPDIR=$(SWIFT_TMP) $(SWIFT)
SOVERSION  := 1
VERSION    := $(shell sed -n 's/^\#define FPX_VERSION_MAJOR \([0-9]*\)/\1/p' Include/fastpix/seek.h).$(shell sed -n 's/^\#define FPX_VERSION_MINOR \([0-9]*\)/\1/p' Include/fastpix/seek.h).$(shell sed -n 's/^\#define FPX_VERSION_PATCH \([0-9]*\)/\1/p' Include/fastpix/seek.h)
OUT        := build
MAP        := $(CURDIR)/Sources/FastPixSeek/fastpixseek.map
LIB_SCRATCH := .build/lib
CLI_SCRATCH := .build/cli
LIB_FILE   := $(OUT)/lib/libfastpixseek.so.$(SOVERSION)
CLI_FILE   := $(OUT)/bin/fpx-seek
UNINST_PC  := $(OUT)/lib/fastpixseek-uninstalled.pc

# These flags must stay on the command line: in Package.swift's unsafeFlags
# they break `swift test`. See docs/ARCHITECTURE.md ("Shipping the .so").
# lld, unlike gold, keeps the Swift symbols made local by the version script out
# of .dynsym entirely. --disable-local-rpath: no RUNPATH [$ORIGIN] (the library
# and the tool need nothing from their own directory).
SWIFT_COMMON_FLAGS := -c release --disable-local-rpath -Xswiftc -static-stdlib
SWIFT_LIB_FLAGS := $(SWIFT_COMMON_FLAGS) --scratch-path $(LIB_SCRATCH) -Xswiftc -use-ld=lld \
	-Xlinker --version-script=$(MAP) \
	-Xlinker -soname=libfastpixseek.so.$(SOVERSION) \
	-Xlinker -z -Xlinker nodelete
SWIFT_CLI_FLAGS := $(SWIFT_COMMON_FLAGS) --scratch-path $(CLI_SCRATCH)
# Extra flags from the environment (debian/rules passes the hardening LDFLAGS).
SWIFT_EXTRA_FLAGS ?=

# What each product is built from (the tool links the core and engine statically,
# never the library).
COMMON_SRC := Package.swift $(shell find Sources/FastPixSeekCore Sources/FastPixSeekEngine Sources/CFFmpeg -type f 2>/dev/null)
LIB_SRC    := $(COMMON_SRC) $(shell find Sources/FastPixSeek Sources/CFastPixSeekABI Include -type f 2>/dev/null)
CLI_SRC    := $(COMMON_SRC) $(shell find Sources/fpx-seek Sources/CFastPixSeekABI Include -type f 2>/dev/null)
# SwiftPM does not notice a changed header behind a system-library module (the
# constants of seek.h, e.g. FPX_VERSION_*): when the header is newer than the
# product, touch the Swift files that import it so they are recompiled.
ABI_IMPORTERS = $(shell grep -l '^import CFastPixSeekABI' $(1) 2>/dev/null)
TOUCH_IF_HEADER_NEWER = @if [ Include/fastpix/seek.h -nt $@ ]; then touch $(call ABI_IMPORTERS,$(1)); fi

.PHONY: all lib cli install uninstall check clean fixtures wheel

# One clear line when the toolchain is missing (first line of every Swift recipe).
SWIFT_CHECK = @command -v $(firstword $(SWIFT)) >/dev/null 2>&1 || { echo "error: no Swift toolchain at '$(SWIFT)': set SWIFT_TOOLCHAIN=/path/to/toolchain (holding usr/bin/swift) or SWIFT=/path/to/swift" >&2; exit 1; }

all: lib cli

lib: $(LIB_FILE) $(OUT)/lib/libfastpixseek.so $(UNINST_PC)
cli: $(CLI_FILE)

$(LIB_FILE): $(LIB_SRC)
	$(SWIFT_CHECK)
	@rm -f $(LIB_SCRATCH)/release/libfastpixseek.so  # relink: SwiftPM does not see the version script change
	$(call TOUCH_IF_HEADER_NEWER,Sources/FastPixSeek/*.swift)
	$(SWIFT_RUN) build $(SWIFT_LIB_FLAGS) $(SWIFT_EXTRA_FLAGS) --product fastpixseek
	@mkdir -p $(OUT)/lib
	cp -f $(LIB_SCRATCH)/release/libfastpixseek.so $(OUT)/lib/.libfastpixseek.so.tmp
	mv -f $(OUT)/lib/.libfastpixseek.so.tmp $@

$(OUT)/lib/libfastpixseek.so: | $(LIB_FILE)
	ln -sf libfastpixseek.so.$(SOVERSION) $@

$(UNINST_PC): fastpixseek.pc.in Include/fastpix/seek.h
	@mkdir -p $(OUT)/lib
	sed -e 's|@PREFIX@|$(CURDIR)/$(OUT)|' -e 's|@LIBDIR@|$(CURDIR)/$(OUT)/lib|' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/Include|' -e 's|@VERSION@|$(VERSION)|' \
	    fastpixseek.pc.in > $@

$(CLI_FILE): $(CLI_SRC)
	$(SWIFT_CHECK)
	$(call TOUCH_IF_HEADER_NEWER,Sources/fpx-seek/*.swift)
	$(SWIFT_RUN) build $(SWIFT_CLI_FLAGS) $(SWIFT_EXTRA_FLAGS) --product fpx-seek
	@mkdir -p $(OUT)/bin
	cp -f $(CLI_SCRATCH)/release/fpx-seek $(OUT)/bin/.fpx-seek.tmp
	mv -f $(OUT)/bin/.fpx-seek.tmp $@

# install never builds: it installs what `make` built, or stops with one line.
install:
	@for f in $(LIB_FILE) $(CLI_FILE); do [ -f $$f ] || { echo "make install: $$f is missing; run 'make' first" >&2; exit 1; }; done
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/fastpix $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/fpx-seek
	install -m 0644 $(LIB_FILE) $(DESTDIR)$(LIBDIR)/libfastpixseek.so.$(SOVERSION)
	$(STRIP) $(DESTDIR)$(LIBDIR)/libfastpixseek.so.$(SOVERSION)
	ln -sf libfastpixseek.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libfastpixseek.so
	install -m 0644 Include/fastpix/seek.h $(DESTDIR)$(INCLUDEDIR)/fastpix/seek.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    fastpixseek.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/fastpixseek.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/fastpixseek.pc
	install -m 0755 $(CLI_FILE) $(DESTDIR)$(BINDIR)/fpx-seek
	$(STRIP) $(DESTDIR)$(BINDIR)/fpx-seek
	install -m 0644 docs/fpx-seek.1 $(DESTDIR)$(MANDIR)/man1/fpx-seek.1
	install -m 0644 docs/fpx-seek.schema.json $(DESTDIR)$(DATADIR)/fpx-seek/fpx-seek.schema.json
	@$(LOADER_HINT)

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libfastpixseek.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libfastpixseek.so \
	      $(DESTDIR)$(INCLUDEDIR)/fastpix/seek.h $(DESTDIR)$(PKGCONFIGDIR)/fastpixseek.pc \
	      $(DESTDIR)$(BINDIR)/fpx-seek $(DESTDIR)$(MANDIR)/man1/fpx-seek.1 \
	      $(DESTDIR)$(DATADIR)/fpx-seek/fpx-seek.schema.json
	@# The directories of our own (and pkgconfig/, when we left it empty); never others.
	rmdir $(DESTDIR)$(INCLUDEDIR)/fastpix $(DESTDIR)$(DATADIR)/fpx-seek 2>/dev/null || true
	rmdir $(DESTDIR)$(PKGCONFIGDIR) 2>/dev/null || true

# After an install to a directory the loader does not search, the one line a user needs
# (nothing for a staged DESTDIR install: the staging tree is not where programs will run).
# (The loader searches the ld cache, /etc/ld.so.conf.d, and the default directories.)
LOADER_HINT = d="$(LIBDIR)"; \
	if [ -n "$(DESTDIR)" ]; then :; \
	elif ! /sbin/ldconfig -p 2>/dev/null | grep -q " => $$d/libfastpixseek.so.$(SOVERSION)$$"; then \
	  if grep -qsx "$$d" /etc/ld.so.conf /etc/ld.so.conf.d/*.conf; then \
	    echo "make install: run 'sudo ldconfig' once so programs find libfastpixseek.so.$(SOVERSION) in $$d"; \
	  else \
	    echo "make install: $$d is not searched by the loader: start programs with LD_LIBRARY_PATH=$$d (or add $$d to /etc/ld.so.conf.d/ and run ldconfig), and use PKG_CONFIG_PATH=$(PKGCONFIGDIR)"; \
	  fi; \
	fi

# A wheel carrying the stripped library inside the package (found before any system copy),
# for machines with FFmpeg 5.1 but no libfastpixseek1 package: build/wheel/*.whl. Built by
# setuptools (`pip wheel`, metadata from Bindings/python/pyproject.toml) from a copy of
# Bindings/python with the library added as package data, so the source tree stays as it is.
# PIP_WHEEL_FLAGS=--no-build-isolation builds offline with the setuptools and wheel at hand.
PIP_WHEEL_FLAGS ?=
wheel: $(LIB_FILE)
	rm -rf $(OUT)/wheel && mkdir -p $(OUT)/wheel/src
	cd Bindings/python && cp -r pyproject.toml setup.py README.md $(CURDIR)/$(OUT)/wheel/src/
	cp LICENSE NOTICE $(OUT)/wheel/src/
	mkdir -p $(OUT)/wheel/src/fastpix_seek
	cp Bindings/python/fastpix_seek/*.py Bindings/python/fastpix_seek/py.typed $(OUT)/wheel/src/fastpix_seek/
	cp -f $(LIB_FILE) $(OUT)/wheel/src/fastpix_seek/$(notdir $(LIB_FILE))
	$(STRIP) $(OUT)/wheel/src/fastpix_seek/$(notdir $(LIB_FILE))
	$(PYTHON) -m pip wheel -q --no-deps --disable-pip-version-check $(PIP_WHEEL_FLAGS) -w $(OUT)/wheel $(OUT)/wheel/src
	rm -rf $(OUT)/wheel/src
	@ls $(OUT)/wheel/*.whl

check:
	bash tools/test-all.sh

clean:
	rm -rf $(OUT) .build

# ---- memsafe: relink when the version script changes --------------------------
# swift build does not see the version script as an input; this stamp removes
# the linked library when fastpixseek.map is newer, so `make lib` relinks.
lib: $(OUT)/.map-stamp
$(OUT)/.map-stamp: $(MAP)
	@mkdir -p $(OUT)
	rm -f .build/release/libfastpixseek.so
	@touch $@
# ---- memsafe: sanitizer builds (make test-asan, make test-tsan) ---------------
# The library is built with the sanitizer into build/asan/lib or build/tsan/lib
# (separate scratch paths, so the shipped build is untouched), the C tests are
# compiled with the toolchain's clang and the same sanitizer (ASan + UBSan for
# the C side: swiftc has no -sanitize=undefined on Linux, and Swift code traps
# on overflow and out-of-bounds access by itself), then run by Tests/c/run.sh
# without its meta-tests (the instrumented .so is not the shipped one). The
# Swift tests run with `swift test --sanitize`. Any sanitizer report fails.
# test-asan-c / test-tsan-c: the C tests only (tools/test-all.sh runs test-asan-c).
SAN_CLANG  ?= $(dir $(realpath $(shell command -v $(SWIFT))))clang
FPX_FIXTURES ?=
# The toolchain's TSan runtime carries libdispatch interceptors: link its libdispatch.
SAN_SWIFT_LIBDIR = $(dir $(realpath $(shell command -v $(SWIFT))))../lib/swift/linux
SAN_TSAN_LIBS = -L$(SAN_SWIFT_LIBDIR) -Wl,-rpath,$(SAN_SWIFT_LIBDIR) -ldispatch -lBlocksRuntime
SAN_LINK   := -Xswiftc -static-stdlib -Xswiftc -use-ld=lld -Xlinker --version-script=$(MAP) \
	-Xlinker -soname=libfastpixseek.so.$(SOVERSION) -Xlinker -z -Xlinker nodelete

.PHONY: lib-asan lib-tsan test-asan test-tsan test-asan-c test-tsan-c

lib-asan lib-tsan: lib-%:
	$(SWIFT_RUN) build -c release --scratch-path .build-$* -Xswiftc -sanitize=$(if $(filter asan,$*),address,thread) \
		$(SAN_LINK) --product fastpixseek
	@mkdir -p $(OUT)/$*/lib
	cp -f .build-$*/release/libfastpixseek.so $(OUT)/$*/lib/libfastpixseek.so.$(SOVERSION)
	ln -sf libfastpixseek.so.$(SOVERSION) $(OUT)/$*/lib/libfastpixseek.so

test-asan-c: lib-asan
	FPX_LIBDIR=$(CURDIR)/$(OUT)/asan/lib FPX_SKIP_META=1 FPX_TEST_TIMEOUT=300 \
	CC="$(SAN_CLANG) -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -fuse-ld=lld" \
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	bash Tests/c/run.sh $(FPX_FIXTURES)

test-tsan-c: lib-tsan
	FPX_LIBDIR=$(CURDIR)/$(OUT)/tsan/lib FPX_SKIP_META=1 FPX_TEST_TIMEOUT=600 \
	CC="$(SAN_CLANG) -fsanitize=thread -fno-omit-frame-pointer -fuse-ld=lld $(SAN_TSAN_LIBS)" \
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	bash Tests/c/run.sh $(FPX_FIXTURES)

# Leak checking stays on for the C tests; for swift test it is off, because
# XCTest's own runner leaks its test closures (LeakSanitizer lists them, rooted
# in libXCTest), and the core tests' fake players are reachable only from them.
test-asan: test-asan-c
	@mkdir -p $(SWIFT_TMP); ASAN_OPTIONS=detect_leaks=0 TMPDIR=$(SWIFT_TMP) $(SWIFT) test --scratch-path .build-asan-test --sanitize=address

test-tsan: test-tsan-c
	$(SWIFT_RUN) test --scratch-path .build-tsan-test --sanitize=thread

# ---- memsafe: fuzzing (make fuzz SECONDS=N) -------------------------------------
# libFuzzer harnesses in Tests/fuzz (C, against the C ABI) linked with a library
# built with ASan and sanitizer coverage of the Swift code (build/fuzz/lib).
# Each harness runs SECONDS seconds (one process, one core) on a working copy of
# its seed corpus in build/fuzz/corpus/<name>; logs in build/fuzz/<name>.log,
# crashes as build/fuzz/crash-*. Tests/fuzz/replay.sh replays the committed seeds.
SECONDS    ?= 60
FUZZERS    := media api hls

.PHONY: lib-fuzz fuzz-build fuzz

lib-fuzz:
	$(SWIFT_RUN) build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=address \
		-Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table $(SAN_LINK) --product fastpixseek
	@mkdir -p $(OUT)/fuzz/lib
	cp -f .build-fuzz/release/libfastpixseek.so $(OUT)/fuzz/lib/libfastpixseek.so.$(SOVERSION)
	ln -sf libfastpixseek.so.$(SOVERSION) $(OUT)/fuzz/lib/libfastpixseek.so

fuzz-build: lib-fuzz
	@mkdir -p $(OUT)/fuzz/bin
	for f in $(FUZZERS); do \
		$(SAN_CLANG) -std=c99 -g -O1 -fsanitize=fuzzer,address -fuse-ld=lld -IInclude Tests/fuzz/fuzz_$$f.c \
			-o $(OUT)/fuzz/bin/fuzz_$$f -L$(OUT)/fuzz/lib -Wl,-rpath,$(CURDIR)/$(OUT)/fuzz/lib \
			-lfastpixseek -lpthread || exit 1; \
	done

fuzz: fuzz-build
	@for f in $(FUZZERS); do \
		mkdir -p $(OUT)/fuzz/corpus/$$f; cp -n Tests/fuzz/corpus/$$f/* $(OUT)/fuzz/corpus/$$f/ 2>/dev/null; \
		echo "fuzz_$$f: $(SECONDS) s"; \
		ASAN_OPTIONS=detect_leaks=1 FPX_FUZZ_MEDIA_DIR=$(CURDIR)/Tests/fuzz/files \
		$(OUT)/fuzz/bin/fuzz_$$f -max_total_time=$(SECONDS) -timeout=60 -rss_limit_mb=2048 \
			-artifact_prefix=$(OUT)/fuzz/crash-$$f- -print_final_stats=1 \
			$(OUT)/fuzz/corpus/$$f >$(OUT)/fuzz/$$f.log 2>&1; \
		rc=$$?; grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' $(OUT)/fuzz/$$f.log; \
		grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|fuzz invariant' $(OUT)/fuzz/$$f.log | head -n 5; \
		[ $$rc -eq 0 ] || { echo "fuzz_$$f: exit $$rc (see $(OUT)/fuzz/$$f.log)"; exit $$rc; }; \
	done
