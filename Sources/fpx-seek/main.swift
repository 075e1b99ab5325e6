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
item timeline (0 = the item's start), as decimals (92.5) or exact rationals (1001/30000).

common options:
  --json         machine-readable output
  --timeout MS   I/O timeout in milliseconds (default 10000)
  --verbose      also show FFmpeg's own log lines
  -h, --help     help
  --version      the version

Put `--` before a negative TIME if you like (`seek f -- -3`); `seek f -3` works too, and
options still parse after `--` (`seek f -- -3 --json`).
JSON output follows the JSON Schema in $PREFIX/share/fpx-seek/fpx-seek.schema.json
(docs/fpx-seek.schema.json in the source tree).

precisions (--precision): exact, nearest_keyframe[:TOL] (short: keyframe[:TOL]), default.
exact lands on the frame on screen at TIME (the one whose display interval holds it, as
AVFoundation and mpv do); `ffmpeg -ss TIME` starts at the first frame at or after TIME,
which is the next one whenever TIME falls inside a frame. For that frame, seek exact and,
when the landed frame starts before TIME, step one frame forward (`step FILE --from TIME`).

exit codes: 0 success, 1 open/seek/I/O failure, 2 usage error,
            3 refused with a typed reason (a frame step, a date outside the window)
"""

var argv = Array(CommandLine.arguments.dropFirst())
// FFmpeg's and the library's log lines would duplicate our one-line errors;
// --verbose shows them on stderr (through the library's log, as a host would).
FFmpegLog.installIfAllowed()
if let i = argv.firstIndex(of: "--verbose") {
    argv.remove(at: i)
    Log.setSink(level: Log.info) { _, line in fputs(line + "\n", stderr) }
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
