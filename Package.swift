// swift-tools-version:6.0
//
// FastPixSeek: a precision seek core for Linux media hosts.
//
// The shipped artefact is libfastpixseek.so.1, built by the top-level Makefile,
// which adds the link flags that must not live here (static stdlib, version
// script, SONAME, -z nodelete; see docs/ARCHITECTURE.md).
import PackageDescription

let package = Package(
    name: "FastPixSeek",
    products: [
        .library(name: "fastpixseek", type: .dynamic, targets: ["FastPixSeek"]),
        .executable(name: "fpx-seek", targets: ["fpx-seek"]),
    ],
    targets: [
        // libavformat / libavutil, found through pkg-config, plus a shim for macros.
        .systemLibrary(
            name: "CFFmpeg",
            path: "Sources/CFFmpeg",
            pkgConfig: "libavformat libavutil",
            providers: [.apt(["libavformat-dev", "libavutil-dev"])]
        ),
        // libavcodec + libswscale for `fpx-seek frame` only (decode, scale, PNG); never
        // linked into the library.
        .systemLibrary(
            name: "CFFmpegCodec",
            path: "Sources/CFFmpegCodec",
            pkgConfig: "libavcodec libswscale libavutil",
            providers: [.apt(["libavcodec-dev", "libswscale-dev"])]
        ),
        // The public C header, imported so the @_cdecl exports use its exact types.
        .systemLibrary(name: "CFastPixSeekABI", path: "Sources/CFastPixSeekABI"),
        // The C library's allocator under the library's --wrap'd one (a header only).
        .systemLibrary(name: "CRealAllocator", path: "Sources/CRealAllocator"),
        // The landing policy, the core's innermost part: rational time, the frame grid, the
        // container index, the packet window and the whole landing algorithm over a narrow
        // demuxer seam. No I/O, no threads, no C, no Foundation.
        .target(name: "FastPixSeekPolicy"),
        // Pure Swift: precisions, outcomes, the seek manager, the player. No C. Re-exports the policy.
        .target(name: "FastPixSeekCore", dependencies: ["FastPixSeekPolicy"]),
        // The libavformat engine behind the core's MediaEngine protocol. Every FFmpeg call goes
        // through FFmpegCalls.swift; debug builds (`swift test`) add its fault injection
        // (FFmpegFaults.swift), which the shipped release library does not contain.
        .target(name: "FastPixSeekEngine", dependencies: ["FastPixSeekCore", "CFFmpeg"],
                swiftSettings: [.define("FPX_FAULTS", .when(configuration: .debug))]),
        // The C ABI alone.
        .target(name: "FastPixSeek",
                dependencies: ["FastPixSeekCore", "FastPixSeekEngine", "CFastPixSeekABI", "CRealAllocator"],
                exclude: ["fastpixseek.map"]),
        .executableTarget(name: "fpx-seek",
                          dependencies: ["FastPixSeekCore", "FastPixSeekEngine", "CFastPixSeekABI", "CFFmpegCodec"]),
        .testTarget(name: "FastPixSeekPolicyTests", dependencies: ["FastPixSeekPolicy"]),
        .testTarget(name: "FastPixSeekCoreTests", dependencies: ["FastPixSeekCore", "FastPixSeekPolicy"]),
        // The engine over real media with FFmpeg calls made to fail or stall (FFmpegFaults).
        .testTarget(name: "FastPixSeekEngineTests", dependencies: ["FastPixSeekEngine", "FastPixSeekCore", "CFFmpeg"]),
    ],
    swiftLanguageModes: [.v6]
)
