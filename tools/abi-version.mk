# Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit.
# The header's version, for the Makefile (which must not need Python to build).
FPX_VERSION_MAJOR := 0
FPX_VERSION_MINOR := 4
FPX_VERSION_PATCH := 0
