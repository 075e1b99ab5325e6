# FastPixSeek build. `make` builds build/lib/libfastpixseek.so.1 and build/bin/fpx-seek.
# `make install PREFIX=/usr/local DESTDIR=...` installs the library, header and pkg-config file.
# `make check` runs every test (see tools/test-all.sh for the full CI entry point).

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=
SWIFT      ?= swift
SOVERSION  := 1
VERSION    := $(shell sed -n 's/^\#define FPX_VERSION_MAJOR \([0-9]*\)/\1/p' Include/fastpix/seek.h).$(shell sed -n 's/^\#define FPX_VERSION_MINOR \([0-9]*\)/\1/p' Include/fastpix/seek.h).$(shell sed -n 's/^\#define FPX_VERSION_PATCH \([0-9]*\)/\1/p' Include/fastpix/seek.h)
OUT        := build
MAP        := $(CURDIR)/Sources/FastPixSeek/fastpixseek.map

# These flags must stay on the command line: in Package.swift's unsafeFlags
# they break `swift test`. See docs/ARCHITECTURE.md ("Shipping the .so").
# lld, unlike gold, keeps the Swift symbols made local by the version script out
# of .dynsym entirely.
SWIFT_RELEASE_FLAGS := -c release -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
	-Xlinker --version-script=$(MAP) \
	-Xlinker -soname=libfastpixseek.so.$(SOVERSION) \
	-Xlinker -z -Xlinker nodelete

.PHONY: all lib cli install uninstall check clean fixtures

all: lib cli

lib:
	$(SWIFT) build $(SWIFT_RELEASE_FLAGS) --product fastpixseek
	@mkdir -p $(OUT)/lib
	cp -f .build/release/libfastpixseek.so $(OUT)/lib/.libfastpixseek.so.tmp
	mv -f $(OUT)/lib/.libfastpixseek.so.tmp $(OUT)/lib/libfastpixseek.so.$(SOVERSION)
	ln -sf libfastpixseek.so.$(SOVERSION) $(OUT)/lib/libfastpixseek.so
	@sed -e 's|@PREFIX@|$(CURDIR)/$(OUT)|' -e 's|@LIBDIR@|$(CURDIR)/$(OUT)/lib|' \
	     -e 's|@INCLUDEDIR@|$(CURDIR)/Include|' -e 's|@VERSION@|$(VERSION)|' \
	     fastpixseek.pc.in > $(OUT)/lib/fastpixseek-uninstalled.pc

cli:
	$(SWIFT) build -c release -Xswiftc -static-stdlib --product fpx-seek
	@mkdir -p $(OUT)/bin
	cp -f .build/release/fpx-seek $(OUT)/bin/.fpx-seek.tmp
	mv -f $(OUT)/bin/.fpx-seek.tmp $(OUT)/bin/fpx-seek

install: lib
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/fastpix $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 $(OUT)/lib/libfastpixseek.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libfastpixseek.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libfastpixseek.so
	install -m 0644 Include/fastpix/seek.h $(DESTDIR)$(INCLUDEDIR)/fastpix/seek.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    fastpixseek.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/fastpixseek.pc
	@if [ -f $(OUT)/bin/fpx-seek ]; then install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/man/man1 && install -m 0755 $(OUT)/bin/fpx-seek $(DESTDIR)$(BINDIR)/ && install -m 0644 docs/fpx-seek.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libfastpixseek.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libfastpixseek.so \
	      $(DESTDIR)$(INCLUDEDIR)/fastpix/seek.h $(DESTDIR)$(PKGCONFIGDIR)/fastpixseek.pc \
	      $(DESTDIR)$(BINDIR)/fpx-seek

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
