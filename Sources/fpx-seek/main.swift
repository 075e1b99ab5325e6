// fpx-seek: judge how an encode seeks, and seek it with a precision.
import CFastPixSeekABI
#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore
import FastPixSeekEngine

let usage = """
usage: fpx-seek <command> [options]

commands:
  probe FILE|URL          streams, duration, seekable range, keyframe count
  seek FILE|URL TIME      seek once with a precision and print the outcome
  step FILE|URL           step frames forward or backward from a position
  scrub FILE|URL SAMPLES  replay a scrub gesture; show the one coalesced seek
  report FILE|URL         a seekability report of the encode (table, --json, --svg)
  frame FILE|URL TIME...  write the frame at TIME (or a contact sheet of several) as PNG
  sprite FILE|URL -o DIR  seek preview thumbnails: sprite image(s), spritesheet.json, WebVTT
  live URL [ACTION]       HLS: the seekable window, seek to the live edge, or to a date

Run `fpx-seek <command> --help` for a command's options. Times are seconds on the
item timeline (0 = the item's start: the container's start), as decimals (92.5) or exact
rationals (1001/30000); with --timeline stream (seek, frame, step, scrub; files only) they
are the reference stream's own pts seconds instead (ffprobe's pts_time, PyAV's frame.time),
which differ by the container's start (an MKV whose audio starts 7 ms before the video, an
MPEG-TS stamped from 1.4 s). --reference-stream N (seek, frame, step, scrub, probe, report,
sprite): seek on video stream N, 0-based as ffprobe counts streams, instead of the best one;
a stream that does not exist or is not video is a usage error (exit code 2).

common options:
  --json         machine-readable output
  --timeout MS   I/O timeout in milliseconds (default 10000)
  --verbose      also show FFmpeg's own log lines
  --tls-ca-file PEM  https: trust the CA certificates in PEM (default: $SSL_CERT_FILE,
                 else the system's bundle); a server must present a certificate they
                 sign for the URL's host
  --tls-insecure https: check no certificate (test servers only)
  -h, --help     help
  --version      the version

Put `--` before a negative TIME if you like (`seek f -- -3`); `seek f -3` works too, and
options still parse after `--` (`seek f -- -3 --json`).
JSON output follows the JSON Schema in $PREFIX/share/fpx-seek/fpx-seek.schema.json
(docs/fpx-seek.schema.json in the source tree).

precisions (--precision): exact, at_or_after, nearest_keyframe[:TOL] (short: keyframe[:TOL]),
default. exact lands on the frame on screen at TIME (the one whose display interval holds
it, as AVFoundation and mpv do); at_or_after (seek, frame, step --from, scrub; files only)
on the first frame at or after TIME, as `ffmpeg -ss TIME -i FILE`, the PyAV decode-and-skip
recipe and frame-index APIs count: the next frame whenever TIME falls inside one.

  you come from                    their frame at t             fpx-seek
  AVFoundation, mpv, a player      on screen: largest pts <= t  --precision exact
  ffmpeg -ss t -i F -frames:v 1    smallest pts >= t, item t    --precision at_or_after
  PyAV: seek, decode, skip pts<t   smallest pts >= t, pts secs  --precision at_or_after --timeline stream
  frame index i (decord, ...)      i-th frame in pts order      --precision at_or_after --timeline stream
                                                                at frame i's pts_time (ffprobe)

exit codes: 0 success, 1 open/seek/I/O failure, 2 usage error (a --reference-stream that
            is not a video stream of the item included),
            3 refused with a typed reason (a frame step, a date outside the window)
"""

var argv = Array(CommandLine.arguments.dropFirst())
// FFmpeg's and the library's log lines would duplicate our one-line errors;
// --verbose shows them on stderr (through the library's log, as a host would).
FFmpegLog.installIfAllowed()
if let i = argv.firstIndex(of: "--verbose") {
    argv.remove(at: i)
    verboseLog = true
    Log.setSink(level: Log.info) { _, line in fputs(line + "\n", stderr) }
}
if let i = argv.firstIndex(of: "--tls-insecure") {
    argv.remove(at: i)
    tlsPolicy.verify = false
}
if let i = argv.firstIndex(of: "--tls-ca-file") {
    guard i + 1 < argv.count, !argv[i + 1].isEmpty else { fail("--tls-ca-file needs a PEM file", code: Exit.usage) }
    tlsPolicy.caFile = argv[i + 1]
    argv.removeSubrange(i...(i + 1))
}
guard let command = argv.first else { fputs(usage + "\n", stderr); exit(Exit.usage) }
argv.removeFirst()
switch command {
case "-h", "--help", "help": print(usage)
case "--version": print("fpx-seek \(FPX_VERSION_MAJOR).\(FPX_VERSION_MINOR).\(FPX_VERSION_PATCH)")
case "probe": runProbe(argv)
case "seek": runSeek(argv)
case "step": runStep(argv)
case "scrub": runScrub(argv)
case "report": runReport(argv)
case "frame": runFrame(argv)
case "sprite": runSprite(argv)
case "live": runLive(argv)
default: fail("unknown command '\(command)' (try --help)", code: Exit.usage)
}
exit(Exit.ok)
