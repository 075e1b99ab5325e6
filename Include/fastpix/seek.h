/*
 * fastpix/seek.h -- FastPixSeek, a precision seek core for media hosts.
 *
 * This header is the manual. Read the prose sections first; every function
 * below refers back to them.
 *
 * =========================================================================
 * 1. What it is
 * =========================================================================
 *
 * FastPixSeek opens a media item (a file path or an http(s) URL) with
 * FFmpeg's libavformat, seeks it with a requested precision, tells you
 * exactly where each seek landed and why, and hands you the demuxed packets
 * from the landing on, for your own decoder.
 *
 *   fpx_player_config cfg;
 *   fpx_player *p;
 *   fpx_player_config_init(&cfg);
 *   fpx_player_create(&cfg, &p);
 *   fpx_player_open(p, "movie.mp4");
 *   fpx_player_wait_item(p, 5000, NULL);
 *   fpx_player_setup_seek_manager(p);
 *   fpx_player_seek(p, fpx_time_make(925, 10), fpx_precision_exact(),
 *                   on_done, NULL, NULL);
 *   ...
 *   fpx_player_destroy(p);
 *
 * Recipe: a thumbnail at t. Open and wait as above, then
 *   fpx_seek_outcome o = {.struct_size = sizeof o};
 *   fpx_player_seek_wait(p, t, fpx_precision_exact(), 10000, &o);
 * read packets (fpx_player_read_packet; they start at the keyframe the
 * landing needs), feed those of the reference stream to your decoder, and
 * keep the decoded frame whose pts is o.landed_stream_pts; scale it (e.g.
 * libswscale). Examples/c/decode_landing.c is exactly that, with libavcodec
 * and libswscale, writing the frame as a PPM image. For a cheaper, coarser
 * thumbnail seek with fpx_precision_nearest_keyframe(tol): the landed frame
 * is then a keyframe, the first frame decoded.
 *
 * =========================================================================
 * 2. Time model
 * =========================================================================
 *
 * Media time is rational: fpx_time holds value/timescale seconds, exactly,
 * like CMTime. Flags say whether the time is valid, +infinity or -infinity.
 * A time with timescale <= 0, or without FPX_TIME_FLAG_VALID, is invalid.
 *
 * Every verdict the library gives (within tolerance, clamped, covers the
 * target) is computed by exact, overflow-safe rational comparison
 * (fpx_time_compare), never through doubles. 1001/30000 s is exact here;
 * as a double it is not, and a seconds-based comparison flips at exactly the
 * boundary that matters. The double members of the structs below
 * (requested_time, landed_time, delta, latency, ...) are derived for display
 * and logging only. Never feed them back as inputs or compare them.
 *
 * The item timeline. Times you pass in and get back are on the item's
 * timeline: 0 is the start of the item, which is the container's start time
 * (AVFormatContext.start_time, rounded to the nearest tick of the reference
 * stream's time base; the reference stream's own start time is used when it
 * is the same instant). An MPEG-TS file whose first packet is stamped 1.4667 s,
 * or a fragmented MP4 starting at 2002/30000 s, still starts at 0 here.
 * Each outcome also carries the landed presentation timestamp in the
 * reference stream's own time base (landed_stream_pts with
 * stream_time_base_num/den), for hosts that work in stream time.
 *
 * The reference stream is the stream seeks are resolved on: the best video
 * stream (as av_find_best_stream chooses), or the best audio stream when the
 * item has no video; or the video stream the host chose
 * (fpx_player_config.reference_stream). fpx_player_item_info() names it.
 * Landings, steps, the seekable range, the frame grid, item time 0 (start_pts)
 * and the time base of outcomes all follow it.
 *
 * The frame grid. A seek lands on a frame: the presentation timestamp (pts)
 * of a packet of the reference stream, in presentation order. Packets that
 * the container marks as discard (edit-list pre-roll, audio priming) are
 * delivered for decoding but are never a landing. Neither is encoder priming
 * that FFmpeg announces only as skip samples (MP3, Opus): an audio packet
 * that is all priming is never a landing, and one that starts with priming
 * presents (and is landed on) from its first real sample, where a decoder's
 * first frame starts: the seekable range of an MP3 or Opus file starts at 0,
 * and an exact seek to 0 lands there. The frame that "covers" a
 * time t is the frame with the largest pts <= t; its presentation interval is
 * [pts, next frame's pts).
 *
 * Raw PCM (WAV, AIFF, CAF, PCM in MP4/MOV: any interleaved PCM reference
 * stream timed in samples, time base 1/sample_rate) has no frames of its own:
 * libavformat cuts its packets wherever it starts reading. Every sample is a
 * frame there: a seek lands on the sample whose interval holds the target
 * (floor(t x sample_rate), exact for any precision), whatever was read before,
 * and the host's packets start at whichever packet holds it, flagged
 * DISCONTINUITY, and DECODE_ONLY with trim_samples (the samples before the
 * landing) when the landing is inside it (see "Landing on the packet
 * stream"). The seekable range ends at the last sample. Such a seek is
 * decided without I/O (packets_read 0); the first read positions.
 *
 * Conventions. Tools and APIs mean different frames by "the frame at t", and
 * different clocks by "t". Side by side (pts: a frame's presentation time;
 * t on the item timeline unless the row says otherwise):
 *
 *   what you come from           frame at t                 ask FastPixSeek for
 *   ---------------------------  -------------------------  -------------------------
 *   AVFoundation, mpv, a player  on screen at t:            fpx_precision_exact()
 *   showing t                    largest pts <= t           (the default convention)
 *   `ffmpeg -ss t -i F`          first frame at or after t: fpx_precision_at_or_after()
 *   (decodes, drops pts < t)     smallest pts >= t
 *   PyAV recipe: seek(backward), smallest pts >= t          fpx_precision_at_or_after()
 *   decode, skip pts < t         (t in the stream's own     (t converted as below)
 *                                pts seconds)
 *   frame-index APIs: frame i    the i-th frame in          at_or_after at frame i's
 *   (0-based)                    presentation (pts) order   pts (converted as below)
 *   a keyframe near t, cheap     nearest keyframe           fpx_precision_nearest_keyframe
 *
 * Whenever t falls inside a frame, the at-or-after frame is the one after the
 * exact landing; when a frame starts exactly at t, both are that frame.
 * (`ffmpeg -i F -ss t`, the output-side form, decodes from the start and
 * gives the same frame; on MPEG-TS the input-side form can start at a
 * keyframe after t instead, FFmpeg 5.1's TS seek resyncing past it, and so
 * can PyAV's seek: decode from the start there to cross-check.)
 * FPX_PRECISION_AT_OR_AFTER is decided by the landing policy like exact (the
 * packets start at the keyframe the landed frame needs, DECODE_ONLY before
 * it); past the last frame it lands on the last frame, clamped
 * (FPX_CLAMP_TO_SEEKABLE_END, within_requested_tolerance 0), where `ffmpeg
 * -ss` outputs nothing. On HLS items too: a target after a segment's last
 * frame lands on the first frame of the next readable segment (past any
 * hole, as "Gaps" says). Frames whose keyframe is in an earlier segment (an
 * open GOP's leading frames, segments cut mid-GOP) are landed too, the
 * packets starting in that segment: see "Segments and keyframes" under HLS.
 *
 * `ffmpeg -ss t` reads t on the item timeline, as this library does (0 is
 * the container's start). Tools that print a stream's own pts in seconds
 * (ffprobe's pts_time, PyAV's frame.time, frame-index APIs) count from the
 * stream's zero instead; the two differ by the container's start (a file
 * whose audio is stamped from -7 ms, an MPEG-TS stamped from 1.4 s).
 * With fpx_item_info info (time_base_num/den, start_pts), a time s in the
 * reference stream's pts seconds is item time
 *   fpx_time_subtract(s, fpx_time_make(info.start_pts * info.time_base_num,
 *                                      info.time_base_den))
 * and a stream pts p is item time fpx_time_make((p - info.start_pts) *
 * info.time_base_num, info.time_base_den) (exact; for files, and HLS before
 * its first discontinuity: see fpx_packet.item_origin_pts). Outcomes give
 * the landed frame in both clocks (landed_media_time, landed_stream_pts).
 *
 * The seekable range of a file is [first frame, last frame] on the item
 * timeline. Seeks outside it are clamped (see fpx_clamp_kind). On a file cut
 * short (an interrupted download, a partial copy) the last frame is the last
 * one read whole: see fpx_item_info.seekable_range_truncated.
 *
 * =========================================================================
 * 3. Threading
 * =========================================================================
 *
 * All functions are thread-safe unless marked otherwise: any thread may call
 * them on any player at any time. Players own no threads: the media I/O of
 * every player's opens, seeks and closes runs on a process-wide pool, each
 * player's in order, one at a time (a serial queue per player);
 * fpx_player_read_packet, fpx_player_step_frame and fpx_player_seek_wait
 * (when the player is idle: see there) do theirs on the calling thread, one
 * at a time with the queue's. Players whose
 * item is a local file and players whose item is read over a protocol (a
 * server) use separate pools, so any number of players blocked on servers
 * never holds up the seek of a player on a local file; a player blocked in
 * I/O holds up another on a server only when more players than the cap below
 * are blocked at once (see "Threads"). No API call blocks on
 * media I/O except those documented as blocking (fpx_player_wait_item,
 * fpx_player_seek_wait, fpx_player_read_packet, fpx_player_seekable_range, fpx_player_step_frame,
 * fpx_player_current_time). Every blocking call is bounded through the
 * player's I/O timeout and returns early when the player is destroyed
 * (section 8 gives every bound).
 *
 * Threads. The library starts threads only in four shared pools, each
 * growing while work waits and no thread of it is idle, up to a cap, and each
 * thread exiting after 2 s idle (so a process whose players are all idle has
 * none of them): "fpx-worker" (the media I/O of players on local files: a
 * path or file:, except a name ending .m3u8 or .m3u), "fpx-net" (the media
 * I/O of every other player: http, https and any other protocol, local HLS
 * playlists, whose segments may be remote, and the reloads of live HLS
 * playlists), "fpx-events" (FPX_DELIVERY_THREAD callbacks and
 * FPX_DELIVERY_HOST wakeups) and "fpx-index" (FPX_INDEX_FULL indexes, at nice
 * +10). The cap of each pool is 64 threads, or the value of the environment
 * variable FPX_MAX_THREADS (1..1024) when the process first uses the library,
 * so the library has at most 4 x cap + 1 threads. Work beyond a pool's cap
 * waits for a thread of that pool: players stalled on servers fill at most
 * "fpx-net", and a player on a local file is never held up by them, however
 * many they are (1,000 players on a server that never answers: a local
 * player's open and exact seeks each took under 10 ms, tested under 1 s).
 * More than cap players blocked on servers at once delay another network
 * player's work until theirs is done or interrupted (each within the time
 * bounds of section 8): a host with many players on slow servers raises
 * the cap; one that must bound its thread count lowers it. Besides the
 * pools: one shared "fpx-timer" thread while scrub gestures have a trailing
 * position due (it exits after 2 s with none), which also times the reloads
 * of live (and EVENT) HLS playlists (0.4: no thread per live item). A
 * FPX_DELIVERY_HOST player holds one file descriptor (its eventfd) besides
 * its media.
 *
 * Callback-safe functions are marked "Callback-safe: yes". Calling a function
 * not so marked from inside a callback returns FPX_ERROR_IN_CALLBACK.
 * "Inside a callback" means inside any host code the library runs, on that
 * thread: a seek completion or listener event (of any player, in either
 * delivery mode), the wakeup, or the log callback; and the refusal applies
 * whichever player the call names, not only the one whose callback runs.
 * Each such call could wait for something the calling thread itself holds
 * up (its own worker, a lock the library holds around the callback, the
 * delivery thread it is running on). A callback-safe function never waits
 * for any of those, so from every callback it works; none can deadlock.
 * fpx_player_destroy is the one exception, see its entry.
 *
 * =========================================================================
 * 4. Event delivery
 * =========================================================================
 *
 * Seek completions and listener events are queued per player and delivered
 * in order, one at a time, never concurrently with each other, and never
 * inside the API call that caused them. For one seek the order is:
 *
 *   1. on_seek_clamped   (only if the target was actually moved)
 *   2. on_seek_accuracy  (only if the seek finished, i.e. really landed)
 *   3. the seek's completion callback (always, exactly once)
 *
 * Item status changes reach on_item_status in the order they happen: LOADING
 * at fpx_player_open, then READY or FAILED; NONE (with the old item's id) when
 * an item is closed, or replaced by another open.
 *
 * Delivery modes (fpx_player_config.delivery):
 *
 *   FPX_DELIVERY_THREAD  Library threads (the shared "fpx-events" pool) run
 *                        the callbacks: a player's one at a time, in order,
 *                        on whichever pool thread drains its queue.
 *   FPX_DELIVERY_HOST    Nothing runs until the host calls
 *                        fpx_player_dispatch_events() on a thread of its
 *                        choice (its "main queue"). To learn when to call it,
 *                        use the config's wakeup callback (called from a
 *                        library thread; it must only schedule a dispatch),
 *                        or poll the file descriptor from
 *                        fpx_player_event_fd(), which is readable while
 *                        events are queued.
 *
 * The event fd and the wakeup, exactly (FPX_DELIVERY_HOST):
 *
 * - fpx_player_event_fd() is an eventfd (the player's one descriptor),
 *   non-blocking and close-on-exec. It is LEVEL-triggered: it polls readable for as long as
 *   events are queued and not yet taken by a dispatch, however many times
 *   you poll, and stops being readable once a dispatch has taken the last
 *   one. Never read from it or close it; watch it for POLLIN / EPOLLIN
 *   (level-triggered: do not use EPOLLET) and call
 *   fpx_player_dispatch_events() when it is readable.
 * - It is the same fd for the player's whole life: across fpx_player_open(),
 *   a replacing open and fpx_player_close_item(). Watch it once.
 * - fpx_player_destroy() closes it (when destroy is called from inside a
 *   dispatched callback: once that dispatch returns; when other threads are
 *   still inside calls on the player: once the last of them returns). Stop
 *   watching it before you destroy: after that its number may be reused by
 *   any open() in the process.
 * - The wakeup callback runs on a library thread once per change of the
 *   queue from empty to non-empty: events queued while earlier ones wait
 *   for a dispatch do not call it again. So schedule one dispatch per
 *   wakeup, and have that dispatch drain everything (it does).
 *
 * With epoll (Linux):
 *
 *   int fd, ep = epoll_create1(EPOLL_CLOEXEC);
 *   struct epoll_event ev = {.events = EPOLLIN, .data.ptr = player};
 *   fpx_player_event_fd(player, &fd);
 *   epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
 *   for (;;) {
 *       struct epoll_event out[8];
 *       int i, n = epoll_wait(ep, out, 8, -1);
 *       for (i = 0; i < n; i++)
 *           fpx_player_dispatch_events(out[i].data.ptr, NULL);
 *   }
 *   ... epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL); fpx_player_destroy(player);
 *
 * With GLib, watch the fd with a source whose callback dispatches and keeps
 * the source (the fd stays the same for the player's life):
 *
 *   static gboolean on_fpx(gint fd, GIOCondition c, gpointer player) {
 *       fpx_player_dispatch_events(player, NULL);
 *       return G_SOURCE_CONTINUE;
 *   }
 *   guint id = g_unix_fd_add(fd, G_IO_IN, on_fpx, player);
 *   ... g_source_remove(id); fpx_player_destroy(player);
 *
 * or, without the fd, have the wakeup callback only schedule a dispatch on
 * your context: GSource *s = g_idle_source_new(); g_source_set_callback(s,
 * dispatch_fn, player, NULL); g_source_attach(s, ctx); g_source_unref(s).
 * (Not g_main_context_invoke(): it may run the function right there, on the
 * library's thread, which must not call into the library.)
 *
 * Callbacks must return quickly. Inside a callback you may call the
 * callback-safe functions, among them fpx_player_seek(), so a seek may be
 * issued from a completion.
 *
 * =========================================================================
 * 5. Ownership and lifetimes
 * =========================================================================
 *
 * - Handles (fpx_player *) are opaque tokens, validated on every call. A
 *   handle used after fpx_player_destroy(), or destroyed twice, gives
 *   FPX_ERROR_INVALID_HANDLE and never crashes. Handle values are never
 *   reused within a process.
 * - Input pointers (paths, structs) are borrowed for the duration of the call.
 * - Event payloads, and every pointer inside them, are valid only during the
 *   callback. Copy what you keep. Explanation strings (const char *) are
 *   static and stay valid for the life of the process.
 * - userdata pointers are never owned, freed or dereferenced. A listener may
 *   name a destroy_notify function: it is called exactly once, on the delivery
 *   thread, after the library has dropped the pointer (listener removed, or
 *   player destroyed).
 * - Packet data returned by fpx_player_read_packet() (data and av_packet)
 *   belongs to the player, not to the item: it stays valid until the next
 *   fpx_player_read_packet() call on that player or fpx_player_destroy(),
 *   whichever comes first. Seeks, steps, fpx_player_close_item(),
 *   fpx_player_open() and the library's own housekeeping (an HLS segment
 *   dropped from memory) never free it. Two threads reading one player
 *   invalidate each other's packets: serialise the read with your copy.
 * - Item facts. fpx_item_info.format_name and fpx_stream_info.codec_name are
 *   static strings, valid for the life of the process. fpx_stream_info's
 *   extradata and codecpar are the player's copies: once handed out they stay
 *   valid until the player is destroyed, even when another thread closes or
 *   replaces the item meanwhile. (Cost: the player keeps the codec parameters
 *   and extradata of every item whose stream info was asked for, typically
 *   well under a kilobyte per stream, until fpx_player_destroy().)
 * - Every seek gets exactly one completion, ever. When fpx_player_seek()
 *   returns an error, its callback is never called.
 * - fpx_player_destroy(): pending and in-flight seeks complete with reason
 *   FPX_FINISH_CANCELLED, in-flight I/O is interrupted, and when destroy
 *   returns no callback of that player is running or will ever run again.
 *   In FPX_DELIVERY_THREAD mode the remaining events are delivered by the
 *   delivery pool before destroy returns. In FPX_DELIVERY_HOST mode destroy
 *   delivers them itself, on the calling thread: it is the one call that runs
 *   callbacks, so that no seek loses its completion.
 *   Destroy called from inside one of that player's own callbacks returns at
 *   once (the handle is invalid from then on); the remaining events, cancelled
 *   completions included, are delivered on the same thread right after the
 *   current callback returns, and then the player is freed. From the log
 *   callback, the wakeup or another player's callback, destroy returns
 *   FPX_ERROR_IN_CALLBACK and does nothing (see fpx_player_destroy).
 *
 * =========================================================================
 * 6. Errors
 * =========================================================================
 *
 * Functions return 0 (FPX_OK) on success and a negative fpx_error on
 * failure. Codes are never renumbered or reused. fpx_error_string() gives a
 * static, never-NULL string for every code, known or not. Output parameters
 * are left untouched on failure. FFmpeg errors are mapped to fpx codes; the
 * original AVERROR is kept in fpx_item_status_info.av_error.
 *
 * Bad input does not abort or trap the host process: NULL, destroyed
 * handles, NaN, infinite or invalid times, timescale <= 0, unknown enum
 * values, negative tolerances, corrupt media, missing files, unreachable or
 * stalled servers are reported as errors.
 *
 * Memory exhaustion. Sizes that come from media or playlists never reach an
 * allocation unchecked: each is capped (section 8, "Memory" and "HLS
 * playlists"), and the large ones -- HLS segments, init sections and
 * playlists as downloaded, the parsed segment table, packet copies,
 * FFmpeg's own buffers -- are allocated through paths that fail with
 * FPX_ERROR_NO_MEMORY (FPX_ERROR_TOO_LARGE past a cap) as the item's or the
 * call's error. The Swift runtime the library is written in has no failure
 * path for its own allocations (a player, an event, a string, a small array,
 * type metadata; the frame grid and the keyframe index, which grow by an
 * entry of 16 to 24 bytes per frame learned). So the library holds 8 MiB of
 * address space in reserve (mapped at the first fpx_player_create, never
 * touched: no resident memory) and allocates the runtime's memory through
 * its own allocator: when the process has no memory left at all (malloc
 * returns NULL: a low RLIMIT_AS / ulimit -v, a cgroup memory limit without
 * overcommit, vm.overcommit_memory=2), the allocation that failed releases
 * the reserve and is tried again, so the work under way goes on; from then
 * on fpx_player_create, every open (the item FAILED) and every seek the
 * player's worker runs (outcome FPX_FINISH_FAILED) fail with
 * FPX_ERROR_NO_MEMORY until the reserve can be taken again, once memory is
 * freed (players destroyed). An open, a seek or a fpx_player_read_packet
 * during which the reserve was released, or that ends while it cannot be
 * taken again, and that fails with FPX_ERROR_INVALID_DATA,
 * FPX_ERROR_IO, FPX_ERROR_NO_STREAM, FPX_ERROR_UNSUPPORTED or
 * FPX_ERROR_INTERNAL reports FPX_ERROR_NO_MEMORY instead (libavformat
 * reports some of its allocation failures as a missing protocol or invalid
 * data). An allocation of the runtime that fails again with the reserve
 * gone -- several threads running out at once -- still ends the process:
 * the library writes "Fatal error: failed to allocate N bytes of memory
 * with alignment A" on stderr (without allocating) and aborts it (SIGABRT). What the library cannot
 * vouch for is FFmpeg's own code: libavformat, and the libavcodec decoders
 * that avformat_find_stream_info runs during an open, turn most of their
 * allocation failures into AVERROR(ENOMEM), not every one (with FFmpeg 5.1,
 * a SIGSEGV inside libavformat's opening of a local file was seen about once
 * in 70 runs of 1,000 players at 512 MiB to 1 GiB, and one in its AAC
 * decoder, which calls its MDCT through a null pointer when the MDCT's setup
 * failed, about once in 20 runs at 512 MiB; see RELIABILITY.md).
 * Under Linux's default overcommit, exhaustion ends in the OOM killer
 * instead. The threads the library starts have 1 MiB stacks, whatever
 * RLIMIT_STACK says. A host that must outlive memory exhaustion runs the
 * library in a process it can restart.
 *
 * Running out of file descriptors is reported as such, never as
 * FPX_ERROR_NO_MEMORY or FPX_ERROR_IO: when the process (EMFILE, its
 * RLIMIT_NOFILE, `ulimit -n`) or the system (ENFILE) has none left,
 * fpx_player_create returns FPX_ERROR_NO_FILE_DESCRIPTORS (a
 * FPX_DELIVERY_HOST player needs two for its event fd), an open fails with
 * it (the item FAILED, its error and fpx_player_wait_item's result
 * FPX_ERROR_NO_FILE_DESCRIPTORS, av_error AVERROR(EMFILE) or
 * AVERROR(ENFILE)), and so does every later call that has to open a file
 * or a connection (a seek's completion error, fpx_player_read_packet, a
 * step: e.g. an HLS segment fetched on demand). Nothing is left half made:
 * close descriptors (or raise the limit) and retry.
 *
 * =========================================================================
 * 7. Compatibility
 * =========================================================================
 *
 * The library's SONAME is libfastpixseek.so.1, and it stays so through the 0.x
 * releases and 1.x. Within that ABI:
 * functions are only added, never removed or changed; enum values are only
 * added; structs that the host passes in start with a size field (set it with
 * sizeof, or use the *_init function) so fields can be appended; structs the
 * library fills (outcomes, events) only grow at the end, and carry
 * struct_size so you can tell which fields exist. Compare the header's
 * FPX_VERSION with fpx_version() at run time: the library must be at least
 * as new as the header you compiled against. Every export carries the
 * symbol version FASTPIXSEEK_1, or FPX_0.4 for functions added in 0.4.0.
 *
 * Structs the library fills in your memory (the output-struct rule).
 * fpx_item_status_info, fpx_item_info, fpx_stream_info, fpx_packet,
 * fpx_player_stats, fpx_frame_step_result, fpx_live_seek_window,
 * fpx_ffmpeg_version_info and the fpx_seek_outcome that
 * fpx_player_seek_wait fills (and any output struct added later) start
 * with size_t struct_size, and YOU set it:
 *
 *   fpx_packet pkt = {.struct_size = sizeof(fpx_packet)};
 *   fpx_player_read_packet(p, &pkt);
 *
 * - The library writes at most min(struct_size, its own sizeof) bytes, a
 *   prefix of the struct, and never a byte past your struct_size. On success
 *   it sets struct_size to the number of bytes it filled: a host built
 *   against an older, shorter struct gets the fields it knows; a host built
 *   against a newer header than the library sees struct_size shrink and
 *   knows the fields past it were not filled (they keep your values).
 * - struct_size 1 ... sizeof(size_t) - 1 (smaller than the size field
 *   itself) gives FPX_ERROR_INVALID_ARGUMENT and writes nothing; so does a
 *   NULL struct pointer. The size is checked before the call does anything:
 *   a read_packet or step_frame refused for it consumes no packet and moves
 *   no playhead.
 * - struct_size 0 is read as a host that predates this rule (0.2.0 and
 *   older did not read struct_size): it gets the struct as the oldest header
 *   of this SONAME declared it: each struct as 0.2.0 laid it out (fields
 *   appended since are not filled), except fpx_frame_step_result, whose
 *   first 48 bytes (through explanation) are filled and whose
 *   landed_stream_pts and packets_read, added in 0.2.0, are not; and the
 *   fpx_seek_outcome of fpx_player_seek_wait, filled as it was when that
 *   function appeared (through packets_read). Zeroed structs therefore stay
 *   safe for old hosts; set struct_size to get every field.
 * - struct_size is read, so it must be initialised: an uninitialised
 *   (garbage) size larger than the struct is taken as a newer host and the
 *   whole struct is filled, which overruns your memory if your struct is
 *   older than the library's. Always set it (or zero the struct).
 * - On failure the struct, struct_size included, is left untouched.
 * Structs the library hands you (outcomes and other callback payloads) are
 * library memory, always complete; their struct_size is the library's sizeof.
 *
 * FFmpeg ABI. A build of this library is built against one FFmpeg: 5.1
 * (Debian 12: libavformat 59, libavcodec 59, libavutil 57) or 7.1 (Debian
 * 13: libavformat 61, libavcodec 61, libavutil 59); the source also supports
 * 6.1 (60, 60, 58). Two members of the API point into FFmpeg's own structs,
 * whose layout is fixed only within a major version:
 *
 *   fpx_stream_info.codecpar   a const AVCodecParameters * (that libavcodec)
 *   fpx_packet.av_packet       a const AVPacket *          (that libavcodec)
 *
 * A host that dereferences them must be compiled against the same majors
 * (pkg-config: fastpixseek.pc requires exactly those majors of libavformat,
 * libavcodec and libavutil in Requires.private; the Debian package
 * libfastpixseek1 depends on them, e.g. libavformat59 on Debian 12,
 * libavformat61 on Debian 13). A host that does not want
 * that coupling uses the plain members instead (codec_id, codec_name,
 * extradata; data, size, pts, dts, flags). The SONAME libfastpixseek.so.1 does
 * not change with FFmpeg: a new FFmpeg major means rebuilding this library.
 * fpx_ffmpeg_versions() reports the versions built against and loaded, and
 * fpx_player_open() refuses with FPX_ERROR_FFMPEG_MISMATCH, before touching
 * FFmpeg, when a loaded library's major differs from the build's (an FFmpeg
 * built with the wrong SONAME, or another FFmpeg linked statically into the
 * host, whose symbols then take the place of the shared ones).
 *
 * =========================================================================
 * 8. Untrusted media and URLs
 * =========================================================================
 *
 * A player may be handed URLs and media it does not control. What the
 * library promises, whatever the input:
 *
 * Protocols. A player opens only the protocols in its allow-list
 * (fpx_player_config.protocol_whitelist; default "file,http,https"; plain
 * paths are "file"). The list is checked against FFmpeg's own name for the
 * URL's protocol before anything is opened, passed to libavformat as its
 * protocol_whitelist (plus tcp and tls, which http and https run on, and
 * httpproxy for https through a proxy) so nested opens inside FFmpeg are
 * bounded too, and applied to every URL a demuxer opens on its own (the
 * library replaces AVFormatContext.io_open). Content reached from the network
 * may name only http and https, whatever the list: an http(s) playlist's
 * segments, EXT-X-MAP init sections and variant playlists (keys are not
 * supported), an http(s) file's references. A local playlist may name local
 * segments. Media demuxed from memory (HLS segments) may open nothing.
 * Refusals are FPX_ERROR_PROTOCOL_NOT_ALLOWED (the item's error) and a
 * warning in the log. Preview sources and the image URLs they name are
 * checked the same way (see "Seek previews"; images are never fetched). Names inside a "concatf:" list file are checked by
 * FFmpeg's whitelist only (concatf is not in the default list).
 *
 * Files. A local target that is not a regular file (a FIFO, a character or
 * block device, a socket, a directory) is refused with FPX_ERROR_UNSUPPORTED
 * before open(2), whatever the URL form: a path, file:, and the targets of
 * cache:, async:, subfile:, crypto:, concat: and pipe:N (fstat of the
 * descriptor) when the host allows those. open(2) and read(2) on such files
 * block in the kernel beyond any timeout; refusing them is what keeps the
 * bounds below true. (A path replaced by a FIFO between the check and the
 * open is not covered.)
 *
 * Time bounds (io_timeout_ms = T > 0; 0 means no bound; values up to
 * INT64_MAX are accepted and saturate). T bounds silence: the deadline is
 * re-armed whenever bytes arrive, whatever the size of the transfer, so a
 * slow but steady server succeeds however long it takes, within the overall
 * bounds below (tested: an HLS segment at 6 KB/s and at 20 KB/s, an AES-128
 * key at 1 byte/s and an MP4 over http at 20 KB/s, each taking many times T).
 * Bytes count when they reach the body of the resource; a server dripping
 * its response headers fails within T of the request.
 * - An open (fpx_player_open to READY or FAILED) ends within T plus about
 *   100 ms of the last byte any of its transfers received, and within 16 T
 *   plus about 100 ms in all: one pair of deadlines covers libavformat's
 *   open, stream probing and the seekable-range measurement (HLS: the
 *   playlist and the segments the open reads), so a stall in any of them
 *   ends the whole open (FPX_ERROR_TIMEOUT, or READY with what was found
 *   when only the range measurement stalled). DNS resolution cannot be
 *   interrupted by FFmpeg and is not covered. A stall while reading a
 *   header is FPX_ERROR_TIMEOUT, whatever the demuxer reports.
 * - Every later blocking step (one packet read, one positioning of a seek or
 *   a step, one download of an HLS playlist, key, init section or segment)
 *   fails with FPX_ERROR_TIMEOUT within T of silence, and a transfer that
 *   drips forever fails the same way at its overall bound: 16 T from the
 *   step's start, and for a download T more for every 64 KiB it has received
 *   (so one averaging at least 64 KiB per T, 6.5 KB/s at the default 10 s,
 *   never meets it; a download is at most max_buffer_bytes). A key that
 *   times out fails like any key that cannot be fetched, with
 *   FPX_ERROR_ENCRYPTION (its av_error keeps FFmpeg's code). A seek is a
 *   sequence of such steps, bounded by its packet budgets. The host's own
 *   fpx_player_cancel_pending_seeks, fpx_player_close_item and
 *   fpx_player_destroy end any of them sooner (below).
 * - A packet read blocked in I/O is interrupted within about 100 ms (FFmpeg
 *   checks the library's interrupt callback every 100 ms while it waits on a
 *   socket) by fpx_player_seek and fpx_player_cancel_pending_seeks
 *   (FPX_ERROR_INTERRUPTED), and by fpx_player_close_item, fpx_player_open
 *   and fpx_player_destroy (FPX_ERROR_CANCELLED). A read never returns a
 *   packet truncated by a stall or an interruption: it returns
 *   FPX_ERROR_TIMEOUT, FPX_ERROR_INTERRUPTED or FPX_ERROR_CANCELLED. The
 *   packet being read is not skipped silently: the next read starts again at
 *   the keyframe the playhead frame (the last landing or step) needs, flagged
 *   FPX_PACKET_FLAG_DISCONTINUITY, as after a seek to the playhead. Seek to
 *   resume anywhere else.
 * - fpx_player_wait_item(-1) returns FPX_ERROR_CANCELLED when the player is
 *   destroyed meanwhile. fpx_player_destroy interrupts whatever its worker is
 *   doing and returns within about 100 ms of that (the tests allow 1 s).
 *
 * Memory. Each player buffers at most max_buffer_bytes (default 64 MiB) of
 * media of each kind: one HLS segment with its init section (larger is
 * FPX_ERROR_TOO_LARGE, decided from Content-Length when the server sends
 * one, else when the bytes reach the cap), the HLS segments held together
 * (older ones are dropped first), and the packet window (past the cap the
 * window drops what the host has read; a seek whose scan would grow it
 * further fails with FPX_ERROR_TOO_LARGE). Packets demuxed from a held
 * segment are copies, so an HLS player holds up to about twice the cap.
 *
 * HLS playlists (and DASH MPDs: see "DASH"). A playlist (master or media,
 * at open and at every live reload) may have at most 16 MiB of text, or
 * max_buffer_bytes when that is smaller, and a media playlist at most
 * 1,000,000 segments. Its segments are held in a compact form (about 56
 * bytes a segment plus its URI as written);
 * the text and the parsed segments together count against max_buffer_bytes,
 * as a kind of their own. Past any of these bounds the open (or the reload)
 * fails with FPX_ERROR_TOO_LARGE, decided from Content-Length and from a
 * count of the segments before they are parsed. A live player holds the
 * previous version of its playlist while it parses a reload, so up to twice
 * that. With the default cap, a VOD playlist of 550,000 segments (12.5 MB)
 * opens and adds about 40 MB to the process's peak RSS.
 * Live HLS state is bounded by the window: what the item keeps per segment,
 * key or discontinuity domain (holes met, AES-128 keys with their bytes,
 * domain anchors) is forgotten once no segment of the playlist's current
 * window needs it, so a live item's memory does not grow with the stream's
 * length (key rotation, gaps and discontinuities included).
 * What libavformat reads and allocates to find the streams is bounded by
 * probesize 5 MB, max_probe_packets 2500 and formatprobesize 1 MiB (set on
 * every open; FFmpeg 5.1's defaults). Allocations a demuxer sizes from the
 * file itself remain FFmpeg's business: the library does not
 * call av_max_alloc(), which is process-wide: a host that wants a hard bound
 * on any single FFmpeg allocation can set it (e.g. av_max_alloc(256 << 20)),
 * knowing it applies to all FFmpeg use in the process.
 *
 * Logging. The library prints nothing; see "Logging" (fpx_set_log_callback).
 */
#ifndef FASTPIX_SEEK_H
#define FASTPIX_SEEK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FPX_API __attribute__((visibility("default")))
#else
#define FPX_API
#endif

/* ======================================================================= */
/* Versions                                                                */
/* ======================================================================= */

#define FPX_VERSION_MAJOR 0
#define FPX_VERSION_MINOR 4
#define FPX_VERSION_PATCH 0

/** Packs a version as 0x00MMmmpp. */
#define FPX_MAKE_VERSION(major, minor, patch) \
    ((((unsigned)(major)) << 16) | (((unsigned)(minor)) << 8) | ((unsigned)(patch)))
#define FPX_VERSION FPX_MAKE_VERSION(FPX_VERSION_MAJOR, FPX_VERSION_MINOR, FPX_VERSION_PATCH)
/** True at compile time when this header is at least the given version. */
#define FPX_VERSION_AT_LEAST(major, minor, patch) \
    (FPX_VERSION >= FPX_MAKE_VERSION(major, minor, patch))

/**
 * The library's version, packed like FPX_VERSION.
 * Thread-safe. Callback-safe: yes.
 */
FPX_API unsigned fpx_version(void);

/**
 * The library's version as a static string, "MAJOR.MINOR.PATCH".
 * Never NULL. Callback-safe: yes.
 */
FPX_API const char *fpx_version_string(void);

/** The major, minor and micro parts of an FFmpeg AV_VERSION_INT value. */
#define FPX_AV_VERSION_MAJOR(v) (((unsigned)(v)) >> 16)
#define FPX_AV_VERSION_MINOR(v) ((((unsigned)(v)) >> 8) & 0xffu)
#define FPX_AV_VERSION_MICRO(v) (((unsigned)(v)) & 0xffu)

/**
 * FFmpeg library versions, packed as FFmpeg's AV_VERSION_INT
 * (major << 16 | minor << 8 | micro). See "FFmpeg ABI".
 */
typedef struct fpx_ffmpeg_version_info {
    size_t struct_size;         /**< set to sizeof before the call; see fpx_ffmpeg_versions */
    unsigned avformat_build;    /**< LIBAVFORMAT_VERSION_INT this library was compiled against */
    unsigned avformat_runtime;  /**< avformat_version() of the libavformat loaded */
    unsigned avcodec_build;     /**< LIBAVCODEC_VERSION_INT compiled against */
    unsigned avcodec_runtime;   /**< avcodec_version() of the libavcodec loaded */
    unsigned avutil_build;      /**< LIBAVUTIL_VERSION_INT compiled against */
    unsigned avutil_runtime;    /**< avutil_version() of the libavutil loaded */
    /** 1 when every loaded major equals the build's: fpx_player_open() works.
     *  0: fpx_player_open() returns FPX_ERROR_FFMPEG_MISMATCH. */
    int compatible;
} fpx_ffmpeg_version_info;

/**
 * Fills *out with the FFmpeg versions this library was built against and the
 * ones loaded in the process. Set out->struct_size = sizeof *out first: the
 * output-struct rule (see "Compatibility") applies; struct_size 0 gets the
 * whole struct, which is new in this version.
 * Returns FPX_ERROR_INVALID_ARGUMENT (nothing written) for NULL or a
 * struct_size of 1 ... sizeof(size_t) - 1.
 * Thread-safe. Callback-safe: yes.
 */
FPX_API int fpx_ffmpeg_versions(fpx_ffmpeg_version_info *out);

/* ======================================================================= */
/* Errors                                                                  */
/* ======================================================================= */

typedef enum fpx_error {
    FPX_OK = 0,                      /**< success */
    FPX_ERROR_INVALID_HANDLE = -1,   /**< invalid handle: NULL, destroyed or foreign */
    FPX_ERROR_INVALID_ARGUMENT = -2, /**< invalid argument: a NULL pointer or an out-of-range value */
    FPX_ERROR_INVALID_TIME = -3,     /**< invalid time: NaN, infinite, invalid, timescale <= 0 */
    FPX_ERROR_UNKNOWN_ENUM = -4,     /**< an enum value this library does not know */
    FPX_ERROR_NO_MEMORY = -5,        /**< out of memory */
    FPX_ERROR_NO_ITEM = -6,          /**< nothing is attached to the player */
    FPX_ERROR_ITEM_NOT_READY = -7,   /**< the item is still loading */
    FPX_ERROR_ITEM_FAILED = -8,      /**< the item failed to load; see its status */
    FPX_ERROR_NOT_FOUND = -9,        /**< missing file, HTTP 404, unknown listener id */
    FPX_ERROR_IO = -10,              /**< I/O error: read error, connection reset */
    FPX_ERROR_TIMEOUT = -11,         /**< timed out: the player's I/O timeout, or the call's own time limit (timeout_ms), expired */
    FPX_ERROR_INVALID_DATA = -12,    /**< corrupt, truncated or unrecognised media */
    FPX_ERROR_UNSUPPORTED = -13,     /**< a protocol or feature this build cannot do, or a local path that is no regular file (a directory, FIFO, device, socket) */
    FPX_ERROR_NO_STREAM = -14,       /**< no audio or video stream to seek on */
    FPX_ERROR_EOF = -15,             /**< end of the item's packets */
    FPX_ERROR_CANCELLED = -16,       /**< cancelled: the item was closed or replaced, or the player destroyed */
    FPX_ERROR_IN_CALLBACK = -17,     /**< not callable from inside a callback */
    FPX_ERROR_WRONG_MODE = -18,      /**< not available in this delivery mode (e.g. dispatch on a FPX_DELIVERY_THREAD player) */
    FPX_ERROR_NETWORK = -19,         /**< connection refused, unreachable host */
    FPX_ERROR_NO_SEEK_MANAGER = -20, /**< the operation needs fpx_player_setup_seek_manager */
    FPX_ERROR_INTERNAL = -21,        /**< internal error: a bug, please report it */
    FPX_ERROR_INVALID_STATE = -22,   /**< invalid state (e.g. fpx_scrub_update without fpx_scrub_begin) */
    FPX_ERROR_EXPIRED = -23,         /**< the live segment being read left the playlist window */
    FPX_ERROR_STALLED = -24,         /**< a live playlist stopped updating */
    FPX_ERROR_PROTOCOL_NOT_ALLOWED = -25, /**< refused by the protocol policy (see "Untrusted media") */
    FPX_ERROR_INTERRUPTED = -26,     /**< a blocked read stopped by a seek, cancel, close or destroy */
    FPX_ERROR_TOO_LARGE = -27,       /**< media exceeds the player's buffer cap (max_buffer_bytes) */
    FPX_ERROR_FFMPEG_MISMATCH = -28, /**< loaded FFmpeg majors differ from the build's; see "FFmpeg ABI" */
    FPX_ERROR_REFERENCE_STREAM = -29, /**< the reference stream cannot be disabled */
    FPX_ERROR_NO_FILE_DESCRIPTORS = -30, /**< the process (EMFILE) or system (ENFILE) is out of file descriptors */
    FPX_ERROR_ENCRYPTION = -31, /**< HLS encryption that cannot be applied: an EXT-X-KEY METHOD other than NONE or AES-128 (SAMPLE-AES...), a KEYFORMAT other than identity, a key that cannot be fetched or is not 16 bytes, or a segment that does not decrypt; a DASH MPD with ContentProtection (added in 0.4.0) */
    FPX_ERROR_NO_PREVIEW = -32,      /**< the player has no preview source: show a timestamp-only preview (added in 0.4.0) */
    FPX_ERROR_PREVIEW_MALFORMED = -33 /**< a preview source (spritesheet.json, WebVTT track) with a field that does not parse; fpx_player_set_preview_source names the field (added in 0.4.0) */
} fpx_error;

/**
 * A static English description of an error code. Never NULL: unknown codes
 * give "unknown error". Callback-safe: yes.
 */
FPX_API const char *fpx_error_string(int code);

/**
 * The symbolic name of an error code ("FPX_ERROR_TIMEOUT"), or "FPX_UNKNOWN"
 * for codes this library does not define. Never NULL. Callback-safe: yes.
 */
FPX_API const char *fpx_error_name(int code);

/* ======================================================================= */
/* Logging                                                                 */
/* ======================================================================= */

/*
 * By default the library prints nothing: not its own messages, not FFmpeg's.
 * FFmpeg's logger is process-wide (av_log_set_callback), so the library takes
 * it over: the first fpx_player_create or fpx_set_log_callback installs the
 * library's av_log callback for the whole process, which drops every message
 * unless a log callback is set. A host that routes FFmpeg's log itself (its
 * own av_log callback, or FFmpeg's default printing to stderr) must say so
 * before creating the first player: fpx_set_log_callback with
 * FPX_LOG_KEEP_FFMPEG_CALLBACK in level. The library then never touches
 * FFmpeg's logger (if it already had, it puts back av_log_default_callback:
 * FFmpeg has no way to read the callback it replaced), and only the
 * library's own messages reach the callback.
 *
 * Levels are FFmpeg's (AV_LOG_*), so both kinds of message share one scale.
 */
#define FPX_LOG_QUIET   (-8)
#define FPX_LOG_ERROR   16
#define FPX_LOG_WARNING 24
#define FPX_LOG_INFO    32
#define FPX_LOG_VERBOSE 40
#define FPX_LOG_DEBUG   48
#define FPX_LOG_TRACE   56
/** OR into fpx_set_log_callback's level: leave FFmpeg's logger alone. */
#define FPX_LOG_KEEP_FFMPEG_CALLBACK 0x10000

/**
 * One log line: level (FPX_LOG_*), the message without its trailing newline
 * (FFmpeg's carry their "[mov,mp4,... @ 0x...]" prefix), valid during the
 * call only. Runs on whichever thread logged (a player's worker, its index
 * or an HLS reload job, a host thread inside a blocking call such as
 * fpx_player_read_packet or fpx_player_seek_wait), possibly concurrently with other calls, and
 * often while the library holds that player's engine lock (FFmpeg logs from
 * inside packet reads, seeks and opens). It must return quickly. It is a
 * callback (section 3): from it, every function marked "Callback-safe: yes"
 * works on any player (fpx_player_stats_get included: it never waits for
 * the engine lock, and while a read or seek is in progress its packet and
 * byte counters are those as of the last finished one); every function
 * marked "Callback-safe: no" returns FPX_ERROR_IN_CALLBACK; and
 * fpx_player_destroy returns FPX_ERROR_IN_CALLBACK (the handle stays valid).
 */
typedef void (*fpx_log_callback)(int level, const char *message, void *userdata);

/**
 * Routes FFmpeg's log and the library's own messages with a level at or
 * below level (e.g. FPX_LOG_WARNING: errors and warnings) to callback, for
 * the whole process. callback NULL silences everything (the default).
 * Returns FPX_OK, or FPX_ERROR_INVALID_ARGUMENT for a level outside
 * FPX_LOG_QUIET..FPX_LOG_TRACE. Thread-safe; callable from a log callback.
 * Callback-safe: yes.
 */
FPX_API int fpx_set_log_callback(int level, fpx_log_callback callback, void *userdata);

/* ======================================================================= */
/* Rational time                                                           */
/* ======================================================================= */

#define FPX_TIME_FLAG_VALID 1u
#define FPX_TIME_FLAG_POSITIVE_INFINITY 2u
#define FPX_TIME_FLAG_NEGATIVE_INFINITY 4u

/** value/timescale seconds, exactly. See "Time model". */
typedef struct fpx_time {
    int64_t value;
    int32_t timescale;
    uint32_t flags;
} fpx_time;

/** Marks an unknown timestamp in fpx_packet and fpx_seek_outcome. */
#define FPX_NOPTS ((int64_t)UINT64_C(0x8000000000000000))

/**
 * value/timescale. Returns an invalid time (flags 0) when timescale <= 0.
 * Callback-safe: yes.
 */
FPX_API fpx_time fpx_time_make(int64_t value, int32_t timescale);

/** The invalid time (flags 0). Callback-safe: yes. */
FPX_API fpx_time fpx_time_invalid(void);

/** +infinity (negative != 0 gives -infinity). Callback-safe: yes. */
FPX_API fpx_time fpx_time_infinity(int negative);

/**
 * Seconds rounded to the nearest tick of timescale, for input from a UI.
 * NaN or timescale <= 0 give an invalid time; +/-inf give the infinities;
 * magnitudes that do not fit give an invalid time. Callback-safe: yes.
 */
FPX_API fpx_time fpx_time_from_seconds(double seconds, int32_t timescale);

/**
 * Seconds as a double, for display only. NaN for an invalid time, +/-inf
 * for the infinities. Callback-safe: yes.
 */
FPX_API double fpx_time_to_seconds(fpx_time t);

/** 1 when t is valid (numeric or infinite), else 0. Callback-safe: yes. */
FPX_API int fpx_time_is_valid(fpx_time t);

/** 1 when t is valid and finite, else 0. Callback-safe: yes. */
FPX_API int fpx_time_is_numeric(fpx_time t);

/**
 * Exact, overflow-safe comparison: -1, 0 or 1 as a <, ==, > b.
 * Follows CMTimeCompare: -inf < every numeric time < +inf; invalid times are
 * equal to each other and greater than everything else. Times with different
 * timescales compare by their exact rational value (1/2 == 15000/30000).
 * Callback-safe: yes.
 */
FPX_API int fpx_time_compare(fpx_time a, fpx_time b);

/**
 * Exact a - b in the timescale lcm(a, b) when it fits in 32 bits and the
 * value in 64, otherwise the nearest representable time in the larger of
 * the two timescales. Invalid when either is invalid or both are the same
 * infinity. Callback-safe: yes.
 */
FPX_API fpx_time fpx_time_subtract(fpx_time a, fpx_time b);

/* ======================================================================= */
/* Precision                                                               */
/* ======================================================================= */

typedef enum fpx_precision_kind {
    /** Zero tolerance. Lands on the frame whose presentation interval holds
     *  the target, and reports whether it does (frame_covers_target). */
    FPX_PRECISION_EXACT = 0,
    /** The keyframe nearest the target inside [target - tol, target + tol]
     *  (exact rationals: the tolerance is never rounded to stream ticks; ties
     *  go to the earlier keyframe). Found from the container's own keyframe
     *  index when it has a complete one (MP4 sample table, libavformat-written
     *  Matroska cues: a few packets, not a GOP), else from a keyframe scan.
     *  When no keyframe is inside the window, the seek falls back to the exact
     *  landing and says so (FPX_LANDING_FALLBACK_COVERING_FRAME). */
    FPX_PRECISION_NEAREST_KEYFRAME = 1,
    /** Exactly FPX_PRECISION_NEAREST_KEYFRAME with tolerance 1/10 s. Outcomes
     *  report it in that normalized form. */
    FPX_PRECISION_DEFAULT = 2,
    /** The first frame at or after the target (smallest pts >= target), what
     *  `ffmpeg -ss t` and decode-and-skip return ("Conventions" in section 2).
     *  Outcomes report this kind; resolution FPX_LANDING_COVERING_FRAME (a
     *  landing on the frame grid, as exact); frame_covers_target 1 when the
     *  frame starts exactly at the (clamped) target; tolerance_before 0 and
     *  tolerance_after +infinity, so within_requested_tolerance is landed >=
     *  requested. The tolerance member is ignored. Files and HLS items.
     *  Added in 0.4.0. */
    FPX_PRECISION_AT_OR_AFTER = 3
} fpx_precision_kind;

typedef struct fpx_precision {
    fpx_precision_kind kind;
    fpx_time tolerance; /**< NEAREST_KEYFRAME only: >= 0, numeric, <= 2^31 s, flags VALID only */
} fpx_precision;

/** {FPX_PRECISION_EXACT, 0}. Callback-safe: yes. */
FPX_API fpx_precision fpx_precision_exact(void);
/** {FPX_PRECISION_NEAREST_KEYFRAME, tolerance}. Validated when used. Callback-safe: yes. */
FPX_API fpx_precision fpx_precision_nearest_keyframe(fpx_time tolerance);
/** {FPX_PRECISION_NEAREST_KEYFRAME, 1/10 s}, what FPX_PRECISION_DEFAULT means. Callback-safe: yes. */
FPX_API fpx_precision fpx_precision_default(void);
/** {FPX_PRECISION_AT_OR_AFTER, 0}: the first frame at or after the target.
 *  Added in 0.4.0. Callback-safe: yes. */
FPX_API fpx_precision fpx_precision_at_or_after(void);

/* ======================================================================= */
/* Seek outcome                                                            */
/* ======================================================================= */

typedef enum fpx_finish_reason {
    FPX_FINISH_COMPLETED = 0,       /**< landed; finished = 1 */
    FPX_FINISH_CANCELLED = 1,       /**< fpx_player_cancel_pending_seeks, close, replace or destroy */
    FPX_FINISH_SUPERSEDED = 2,      /**< a newer seek on the same player overtook it */
    FPX_FINISH_NO_SEEK_MANAGER = 3, /**< fpx_player_setup_seek_manager was not called */
    FPX_FINISH_FAILED = 4           /**< I/O or media error: see fpx_seek_outcome.error */
} fpx_finish_reason;

typedef enum fpx_clamp_kind {
    FPX_CLAMP_NONE = 0,                   /**< the target was inside the range */
    FPX_CLAMP_TO_SEEKABLE_START = 1,      /**< before the start: moved to the first frame */
    FPX_CLAMP_TO_SEEKABLE_END = 2,        /**< past the end: moved to the last frame */
    FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN = 3  /**< no range known; the target was not moved */
} fpx_clamp_kind;

typedef enum fpx_landing_resolution {
    FPX_LANDING_NONE = 0,                   /**< the seek did not land */
    FPX_LANDING_COVERING_FRAME = 1,         /**< exact: the frame covering the target */
    FPX_LANDING_KEYFRAME = 2,               /**< keyframe inside the tolerance window */
    FPX_LANDING_FALLBACK_COVERING_FRAME = 3 /**< no keyframe in the window: exact landing */
} fpx_landing_resolution;

typedef struct fpx_clamp {
    fpx_clamp_kind kind;
    int did_clamp;          /**< 1 for TO_SEEKABLE_START/END; 0 for NONE and RANGE_UNKNOWN */
    fpx_time requested;     /**< what the host asked for */
    fpx_time clamped_to;    /**< where it was moved; invalid unless did_clamp */
    fpx_time clamped_target;/**< the target actually used: clamped_to, else requested */
    const char *explanation;/**< static English sentence; never NULL */
} fpx_clamp;

typedef struct fpx_accuracy {
    fpx_time requested_media_time; /**< what the host asked for, not the clamped target */
    fpx_time landed_media_time;    /**< the landed frame's pts; invalid when not landed */
    /** The tolerances applied, exactly as requested (never rounded to the
     *  stream's ticks): zero for EXACT, the precision's tolerance else;
     *  AT_OR_AFTER: 0 before, +infinity (FPX_TIME_FLAG_POSITIVE_INFINITY)
     *  after. */
    fpx_time tolerance_before;
    fpx_time tolerance_after;
    /** requested - tolerance_before <= landed <= requested + tolerance_after,
     *  by exact rational comparison (AT_OR_AFTER: landed >= requested). 0 when
     *  not landed. */
    int within_requested_tolerance;
    /** landed - requested, exact: in the lcm of both timescales, else in its
     *  own reduced denominator; rounded only when that exceeds 32 bits.
     *  Invalid when not landed. */
    fpx_time delta;
    double delta_seconds;          /**< display only; positive = landed after the request */
    double absolute_delta_seconds; /**< display only */
} fpx_accuracy;

/**
 * HLS holes: segments that are never read. A hole is an EXT-X-GAP segment
 * (never fetched) or a segment whose download failed twice in a row (HTTP
 * 404 or 5xx, or a missing file; it is retried once at once). See "Gaps" in
 * "Live and DVR HLS". Added in 0.4.0.
 */
typedef enum fpx_hole_reason {
    FPX_HOLE_NONE = 0,   /**< no hole */
    FPX_HOLE_GAP = 1,    /**< EXT-X-GAP: the segment has no media and is not fetched */
    FPX_HOLE_FAILED = 2  /**< the segment failed twice (404, 5xx, missing file) */
} fpx_hole_reason;

typedef struct fpx_seek_outcome {
    size_t struct_size;            /**< sizeof the struct as the library filled it */
    uint64_t seek_id;              /**< as returned by fpx_player_seek */
    fpx_precision precision;       /**< normalized: DEFAULT reads NEAREST_KEYFRAME 1/10 */
    int finished;                  /**< 1 only when reason == FPX_FINISH_COMPLETED */
    fpx_finish_reason reason;
    int error;                     /**< fpx_error when reason == FPX_FINISH_FAILED, else 0 */
    double requested_time;         /**< seconds, display only */
    double landed_time;            /**< seconds, display only; NaN when not landed */
    double latency;                /**< seconds, monotonic, request to completion; display only */
    uint64_t latency_ns;           /**< the same, in nanoseconds */
    fpx_accuracy accuracy;
    fpx_clamp clamp;
    fpx_landing_resolution resolution;
    /** 1 when the landed frame's presentation interval [pts, next pts) holds
     *  the clamped target, by exact comparison. */
    int frame_covers_target;
    int landed_is_keyframe;        /**< 1 when the landed frame is a keyframe */
    int stream_index;              /**< the reference stream; -1 when not landed */
    int64_t landed_stream_pts;     /**< stream time base; FPX_NOPTS when not landed */
    int32_t stream_time_base_num;
    int32_t stream_time_base_den;
    /** Packets demuxed to resolve this landing. 0 when the seek was decided
     *  from memory (see fpx_player_seek): the demuxer is then positioned by the
     *  next fpx_player_read_packet, whose packets count in packets_demuxed. */
    uint64_t packets_read;
    /** Added in 0.4.0. HLS: the target (after clamping) fell in a hole (a
     *  GAP or failed segment) and the seek landed on the first frame after
     *  it (or, with nothing after it, the last frame before it): why.
     *  frame_covers_target is then 0. FPX_HOLE_NONE otherwise. */
    fpx_hole_reason landed_past_hole;
} fpx_seek_outcome;

/** Called once per seek. See "Event delivery". */
typedef void (*fpx_seek_callback)(const fpx_seek_outcome *outcome, void *userdata);

/* ======================================================================= */
/* Scrub and frame-step event payloads                                     */
/* ======================================================================= */

typedef enum fpx_scrub_state {
    FPX_SCRUB_IDLE = 0,      /**< no gesture in progress */
    FPX_SCRUB_SCRUBBING = 1, /**< receiving samples; no seek issued */
    FPX_SCRUB_SETTLING = 2   /**< the one coalesced seek is in flight */
} fpx_scrub_state;

typedef struct fpx_scrub_position {
    fpx_time time;
    uint64_t sample_count;
} fpx_scrub_position;

typedef enum fpx_frame_step_direction {
    FPX_STEP_FORWARD = 0,
    FPX_STEP_BACKWARD = 1
} fpx_frame_step_direction;

typedef enum fpx_frame_step_unavailable_reason {
    FPX_STEP_OK = 0,                       /**< the step happened */
    FPX_STEP_NO_CURRENT_ITEM = 1,
    FPX_STEP_ITEM_NOT_READY = 2,
    FPX_STEP_NO_VIDEO_TRACK = 3,           /**< permanent for this item */
    FPX_STEP_AT_LIVE_EDGE = 4,
    FPX_STEP_CANNOT_STEP_IN_DIRECTION = 5
} fpx_frame_step_unavailable_reason;

typedef struct fpx_frame_step_result {
    size_t struct_size;
    int did_step;
    fpx_frame_step_direction direction;
    fpx_time landed_media_time;               /**< valid when did_step */
    fpx_frame_step_unavailable_reason reason; /**< FPX_STEP_OK when did_step */
    const char *explanation;                  /**< static; never NULL */
    int64_t landed_stream_pts;                /**< FPX_NOPTS unless did_step */
    uint64_t packets_read;                    /**< demuxed by this step, refused ones included */
} fpx_frame_step_result;

/* ======================================================================= */
/* Items                                                                   */
/* ======================================================================= */

typedef enum fpx_item_status {
    FPX_ITEM_NONE = 0,    /**< nothing attached */
    FPX_ITEM_LOADING = 1,
    FPX_ITEM_READY = 2,
    FPX_ITEM_FAILED = 3
} fpx_item_status;

typedef struct fpx_item_status_info {
    size_t struct_size;
    uint64_t item_id;        /**< increments with every fpx_player_open */
    fpx_item_status status;
    int error;               /**< fpx_error when FAILED, else 0 */
    int av_error;            /**< the original AVERROR when FAILED, else 0 */
    /* Added in 0.4.0: HLS holes met so far by this item (see "Gaps" in
     * "Live and DVR HLS"); 0, -1 and FPX_HOLE_NONE when none, and for files. */
    uint64_t segments_skipped;      /**< holes skipped or landed past, each segment once */
    int64_t last_skipped_sequence;  /**< media sequence number of the latest one */
    fpx_hole_reason last_skip_reason;
} fpx_item_status_info;

typedef struct fpx_item_info {
    size_t struct_size;
    int stream_count;
    int reference_stream;    /**< index of the stream seeks resolve on (automatic or fpx_player_config.reference_stream) */
    int has_video;
    fpx_time duration;       /**< invalid when unknown */
    /** The container's start on the stream timeline of the reference stream,
     *  in its time base: item time 0 == stream pts start_pts. HLS: the pts of
     *  item time 0 in the first discontinuity domain ("Timeline" in "Live and
     *  DVR HLS"; FPX_NOPTS when that domain's anchor could not be read); after
     *  an EXT-X-DISCONTINUITY use fpx_packet.item_origin_pts, which holds
     *  everywhere. */
    int64_t start_pts;
    int32_t time_base_num;   /**< reference stream's time base */
    int32_t time_base_den;
    int seekable;            /**< the container can seek */
    const char *format_name; /**< static; valid for the life of the process */
    /** 1 when the file is truncated or damaged: its header still announces
     *  frames its data does not hold, the frames past the range are missing,
     *  and seeks there (exact ones included) are clamped to the range's end.
     *  Either rule sets it:
     *  - the data ends inside a packet (libavformat read it short and flagged
     *    it AV_PKT_FLAG_CORRUPT, or its bytes lie past the end of the file):
     *    the seekable range then ends at the last frame whose packet was read
     *    whole, before that packet in decode order (not on the frame whose
     *    data is cut). Found while the range is measured, with no extra I/O.
     *    libavformat's MP4/MOV demuxer reports such a packet; its Matroska
     *    demuxer drops a cut block without a trace (the range still ends at
     *    the last whole frame, and only the rule below flags the file), and
     *    its MPEG-TS demuxer returns a cut last PES unflagged;
     *  - the seekable range ends well before the container's duration (more
     *    than 1 s and more than 10 % of the duration short).
     *  0 otherwise, and when neither can be told (HLS, live). Added in 0.4.0. */
    int seekable_range_truncated;
} fpx_item_info;

typedef enum fpx_media_type {
    FPX_MEDIA_UNKNOWN = 0,
    FPX_MEDIA_VIDEO = 1,
    FPX_MEDIA_AUDIO = 2,
    FPX_MEDIA_SUBTITLE = 3,
    FPX_MEDIA_DATA = 4
} fpx_media_type;

typedef struct fpx_stream_info {
    size_t struct_size;
    int index;
    fpx_media_type type;
    int codec_id;              /**< FFmpeg's AVCodecID */
    const char *codec_name;    /**< static, e.g. "h264" */
    int32_t time_base_num;
    int32_t time_base_den;
    int width, height;         /**< video */
    int sample_rate, channels; /**< audio */
    int video_delay;           /**< reorder depth in frames (B-frames) */
    const uint8_t *extradata;  /**< the player's copy; valid until fpx_player_destroy */
    size_t extradata_size;
    /** const AVCodecParameters * (the player's copy; of the libavcodec the
     *  library was built against, see "FFmpeg ABI"), for FFmpeg-based
     *  hosts; same lifetime as extradata. */
    const void *codecpar;

    /* Added in 0.3: the stream facts a decoder that is not libavcodec, or a
     * renderer, needs. Read from the container (AVCodecParameters, AVStream,
     * its side data) as `ffprobe -show_streams` reads them. Integer enums are
     * FFmpeg's own values (AVColorRange, AVColorPrimaries, ...); the names
     * next to them are FFmpeg's static names. Strings are static unless
     * noted; NULL means unknown or not applicable. */
    int profile;                  /**< codec profile (FFmpeg's value); -99 unknown */
    int level;                    /**< codec level (H.264: 31 = 3.1); -99 unknown */
    const char *profile_name;     /**< e.g. "High", "LC"; NULL unknown */
    const char *pixel_format;     /**< video: e.g. "yuv420p10le" */
    /** Bits per component of pixel_format (video); bits per sample (audio:
     *  bits_per_raw_sample, else the sample format's size). 0 unknown. */
    int bit_depth;
    int32_t sample_aspect_num;    /**< sample (pixel) aspect ratio; 0/1 unknown */
    int32_t sample_aspect_den;
    int32_t frame_rate_num;       /**< average frame rate (avg_frame_rate); 0/0 unknown */
    int32_t frame_rate_den;
    int32_t real_frame_rate_num;  /**< r_frame_rate: the lowest rate all timestamps fit */
    int32_t real_frame_rate_den;
    int color_range;              /**< AVColorRange: 0 unspecified, 1 tv, 2 pc */
    int color_primaries;          /**< AVColorPrimaries: 2 unspecified */
    int color_transfer;           /**< AVColorTransferCharacteristic: 2 unspecified */
    int color_space;              /**< AVColorSpace (the matrix): 2 unspecified */
    const char *color_range_name; /**< "tv", "pc", "unknown" */
    const char *color_primaries_name;  /**< e.g. "bt709", "bt2020" */
    const char *color_transfer_name;   /**< e.g. "bt709", "smpte2084" */
    const char *color_space_name;      /**< e.g. "bt709", "bt2020nc" */
    int chroma_location;          /**< AVChromaLocation: 0 unspecified, 1 left */
    const char *chroma_location_name;
    int field_order;              /**< AVFieldOrder: 0 unknown, 1 progressive */
    /** 1 when the stream has a display matrix (side data); then
     *  rotation_degrees is av_display_rotation_get() of it: the angle, in
     *  degrees counterclockwise, by which the decoded picture must be rotated
     *  to display it upright (ffprobe's "rotation", e.g. -90 for a phone
     *  held upright). 0 without a display matrix. */
    int has_display_matrix;
    double rotation_degrees;
    const char *sample_format;    /**< audio: e.g. "fltp", "s16" */
    /** audio: e.g. "mono", "stereo", "5.1(side)"; the player's copy, valid
     *  until fpx_player_destroy (like extradata). */
    const char *channel_layout;
    uint64_t channel_mask;        /**< AV_CH_* bits of a native-order layout; 0 otherwise */
    int frame_size;               /**< audio samples per packet; 0 variable or unknown */
    int initial_padding;          /**< audio: priming samples the decoder must skip */
    int trailing_padding;
    uint32_t codec_tag;           /**< container fourcc, little-endian ('avc1' = 0x31637661); 0 none */
    int64_t bit_rate;             /**< bits per second; 0 unknown */
    int bits_per_coded_sample;
    int bits_per_raw_sample;
    int64_t start_pts;            /**< the stream's start_time, stream time base; FPX_NOPTS unknown */
    int64_t duration_ts;          /**< the stream's duration, stream time base; FPX_NOPTS unknown */
    int64_t frame_count;          /**< nb_frames from the container; 0 unknown */
    int disposition;              /**< FFmpeg's AV_DISPOSITION_* bits (1 = default) */
    /** the "language" tag (ISO 639-2, e.g. "eng"); the player's copy, valid
     *  until fpx_player_destroy; NULL when absent. */
    const char *language;
} fpx_stream_info;

/* ======================================================================= */
/* Packets                                                                 */
/* ======================================================================= */

#define FPX_PACKET_FLAG_KEY 0x1u         /**< FFmpeg's AV_PKT_FLAG_KEY */
#define FPX_PACKET_FLAG_CORRUPT 0x2u     /**< FFmpeg's AV_PKT_FLAG_CORRUPT */
#define FPX_PACKET_FLAG_DISCARD 0x4u     /**< FFmpeg's AV_PKT_FLAG_DISCARD */
/** Decode it, but do not present it: its pts is before the landed frame. */
#define FPX_PACKET_FLAG_DECODE_ONLY 0x100u
/** The first packet after a seek or step that restarts the packets: flush your
 *  decoder (and only then: with continuation on, a landing may continue the
 *  packets without it; see "Continuation"). */
#define FPX_PACKET_FLAG_DISCONTINUITY 0x200u
/** A DECODE_ONLY packet that no later frame references: a host may drop it
 *  before its decoder (see "Disposable packets"). */
#define FPX_PACKET_FLAG_DISPOSABLE 0x400u

/*
 * Landing on the packet stream. After a seek, packets start at the keyframe
 * the landing needs; the first one is flagged DISCONTINUITY, and from it on
 * every packet carries the landing (landed_pts, landed_stream_index, and
 * landed_pts_in_stream in its own time base), so a host can decide what to
 * present from the packets alone, without waiting for the completion.
 *
 * - Video with B-frames: DECODE_ONLY marks packets whose pts precede the
 *   landing, but a reordering decoder returns frames in presentation order,
 *   not packet order, so do not map flags to decoded frames. Instead, flush
 *   at DISCONTINUITY, decode every packet, and present the decoded frames
 *   whose pts (libavcodec: frame->pts, or best_effort_timestamp) is
 *   >= landed_pts_in_stream (== landed_pts on the reference stream). The
 *   first such frame is the landed frame.
 * - Audio: a packet whose samples straddle the landing is flagged
 *   DECODE_ONLY (its pts is earlier) and carries trim_samples > 0. Decode
 *   it and present its decoded samples after dropping the first
 *   trim_samples, then the packets after it whole. Example: AAC at 48 kHz,
 *   a landing at 25.5 s (1224000/48000) inside the packet with pts 1223680
 *   ([25.4933, 25.5147) s, 1024 samples): trim_samples = 320, and the 704
 *   samples after them (14.7 ms) are presented instead of being lost. Packets wholly before the landing are decode-only (prime the
 *   decoder), with trim_samples 0.
 */

/*
 * Disposable packets. A DECODE_ONLY packet that no later frame references
 * carries FPX_PACKET_FLAG_DISPOSABLE: a host may drop it before its decoder
 * (never send it), and the landed frame and every frame after it decode to
 * the same pixels, with fewer frames decoded. The rule:
 *
 * - Only a packet of a video stream flagged DECODE_ONLY carries it; never
 *   one flagged DISCONTINUITY (flush and decode that one) or CORRUPT, nor
 *   one without a pts (its DECODE_ONLY comes from its dts, and its frame may
 *   present after the landing), never an audio packet (trim_samples or
 *   not), never a presented packet.
 * - H.264 and HEVC: the first bytes of each NAL unit of the packet decide.
 *   H.264: every VCL NAL unit (types 1-4) has nal_ref_idc 0, and the others
 *   are only SEI, access unit delimiters or filler. HEVC: every VCL NAL unit
 *   is a sub-layer non-reference type (TRAIL_N, TSA_N, STSA_N, RADL_N,
 *   RASL_N, RSV_VCL_N10/12/14) of the stream's highest temporal sub-layer
 *   (TemporalId == sps_max_sub_layers_minus1, from the codec extradata and
 *   any SPS seen in keyframe or DECODE_ONLY packets: a sub-layer
 *   non-reference picture of a lower sub-layer may be referenced by a higher
 *   one), nuh_layer_id 0, and the others are only AUD, filler or SEI. A
 *   packet carrying a parameter set, an IDR/IRAP or a reference slice is
 *   never disposable, whatever the container says. Framing: length-prefixed
 *   (avcC/hvcC, the length size from the extradata) or Annex B (MPEG-TS; an
 *   extradata that is empty or starts with a start code). When the bytes
 *   cannot tell (an unknown NAL type, a forbidden bit, lengths that do not
 *   tile the packet exactly, a truncated NAL unit, an unknown length size or
 *   sub-layer count, no VCL NAL unit), the container decides, below.
 * - Any codec: the container's word, FFmpeg's AV_PKT_FLAG_DISPOSABLE (MP4 and
 *   MOV: the sdtp box's sample_is_depended_on == 2, which libavformat 59
 *   turns into that flag; FFmpeg's movenc writes sdtp for libx265 output).
 *   Other codecs are never flagged without it.
 * - Bounded: at most 64 NAL units of a packet are looked at (a packet with
 *   more is not flagged); a length-prefixed packet is walked by its length
 *   fields only, an Annex B packet is scanned for start codes only up to
 *   256 KiB (a longer one is not flagged); 1-3 bytes of each NAL unit's
 *   header are read. Nothing is allocated.
 * - HLS: the streams' extradata is the first segment's (as fpx_stream_info).
 *
 * Recipe: if (p.flags & FPX_PACKET_FLAG_DISPOSABLE) skip it; else decode it
 * and present as in "Landing on the packet stream". On the tests' H.264 with
 * B-pyramids (x264 -bf 3) about half the DECODE_ONLY packets are disposable,
 * on HEVC with x265's b-pyramid about 60%.
 *
 * The decoder-side alternative, with libavcodec: set
 * AVCodecContext.skip_frame = AVDISCARD_NONREF while the packets you send are
 * DECODE_ONLY and back to AVDISCARD_DEFAULT at the first one that is not (as
 * mpv's --hr-seek-framedrop does). It works for any codec whose decoder
 * honours skip_frame, but the packets still cross into the decoder and are
 * parsed (only the reconstruction is saved), the setting must change at
 * exactly the first packet that is not DECODE_ONLY, a decoder that ignores
 * skip_frame saves nothing, and it is the decoder's notion of
 * "non-reference": FFmpeg 5.1's HEVC decoder skips every sub-layer
 * non-reference type whatever its TemporalId, which is wrong for a stream
 * whose higher temporal sub-layer references such a picture of a lower one
 * (the frames decoded from it are then wrong; x265's temporal-layers output
 * is not such a stream). DISPOSABLE follows the bitstream's own reference
 * marking for H.264 and HEVC, and for other codecs it is as right as the
 * container's sdtp. Both can be combined.
 */

typedef struct fpx_packet {
    size_t struct_size;
    const uint8_t *data;    /**< see "Ownership" for how long it lives */
    size_t size;
    int stream_index;
    int64_t pts;            /**< stream time base; FPX_NOPTS if unknown */
    int64_t dts;            /**< stream time base; FPX_NOPTS if unknown */
    int64_t duration;       /**< stream time base; 0 if unknown */
    int64_t pos;            /**< byte position, -1 if unknown */
    uint32_t flags;         /**< FPX_PACKET_FLAG_* */
    uint64_t seek_id;       /**< the latest seek this packet follows, 0 if none; a frame
                                 step is no seek: packets after one keep that seek's id */
    const void *av_packet;  /**< the const AVPacket * (the build's libavcodec; see "FFmpeg ABI"); same lifetime as data */
    /* Added in 0.3 (see "Landing on the packet stream" above). */
    /** The landed frame of the seek this packet follows: its pts in the time
     *  base of landed_stream_index (the reference stream), the value the
     *  outcome reports as landed_stream_pts. FPX_NOPTS before any landed seek.
     *  Set on every packet from the DISCONTINUITY one on. */
    int64_t landed_pts;
    /** The same landing in THIS packet's stream time base, rounded up, so a
     *  decoded frame of this stream presents at or after the landing exactly
     *  when its pts >= landed_pts_in_stream. FPX_NOPTS when unknown, and for
     *  HLS packets from the segments read after an EXT-X-DISCONTINUITY (or a
     *  hole) that follows the landing's segment (every frame of those
     *  presents after the landing; their pts may restart there). Segments
     *  read after the landing's on its timeline carry it as the landing's own
     *  does: their first muxed audio packets may present before the landing
     *  (a TS muxer puts the audio presenting before a segment's first
     *  keyframe in that segment), and are then DECODE_ONLY, with
     *  trim_samples when they straddle it. */
    int64_t landed_pts_in_stream;
    /** Audio packets that straddle the landing (pts < landing < pts +
     *  duration): how many samples at the start of this packet's decoded frame
     *  present before the landing, ceil((landing - pts) x sample_rate), exact.
     *  On the reference stream only raw PCM lands inside a packet (see "The
     *  frame grid"). 0 for every other packet. */
    int64_t trim_samples;
    int landed_stream_index; /**< the stream of landed_pts; -1 before any landed seek */
    /** Added in 0.4.0: item time 0 on this packet's timestamp timeline, as a
     *  pts of the reference stream (in its time base, like
     *  fpx_item_info.start_pts). This packet presents at item time
     *      pts x (this stream's time base) - item_origin_pts x (the reference
     *      stream's time base),
     *  exactly: the one conversion from packet pts to item time, for every
     *  stream. For files it is start_pts on every packet. For HLS it is the
     *  placement of the packet's discontinuity domain ("Timeline" in "Live and
     *  DVR HLS"): start_pts in the first domain, another value after each
     *  EXT-X-DISCONTINUITY, where the timestamps restart. FPX_NOPTS when
     *  unknown (a library older than 0.4 leaves it out: use start_pts). */
    int64_t item_origin_pts;
} fpx_packet;

/* ======================================================================= */
/* Listeners                                                               */
/* ======================================================================= */

/**
 * A set of optional event functions. Start with size = sizeof(fpx_listener)
 * (or fpx_listener_init); a NULL member is a no-op. The struct is copied at
 * fpx_player_add_listener; userdata is never owned. Members that do not lie
 * wholly within size are treated as NULL (a size that ends inside a member
 * leaves that member out); the same holds for fpx_player_config, whose
 * members past size keep their defaults.
 */
typedef struct fpx_listener {
    size_t size;
    void *userdata;
    void (*on_seek_accuracy)(const fpx_accuracy *accuracy, const fpx_seek_outcome *outcome,
                             void *userdata);
    /** Fired only when a target was actually moved (did_clamp). */
    void (*on_seek_clamped)(const fpx_clamp *clamp, uint64_t seek_id, void *userdata);
    void (*on_scrub_state_changed)(fpx_scrub_state state, void *userdata);
    /** Throttled positions during a drag. No seek is associated with it. */
    void (*on_scrub_position_changed)(const fpx_scrub_position *position, void *userdata);
    void (*on_frame_step)(const fpx_frame_step_result *result, void *userdata);
    void (*on_item_status)(const fpx_item_status_info *status, void *userdata);
    /** Called once when the library drops userdata. */
    void (*destroy_notify)(void *userdata);
    /** FPX_INDEX_FULL: the current item's background index reached the end
     *  of the item; frames is the reference-stream frames it indexed (the
     *  stats' index_frames). At most once per item; never for an item closed
     *  (or a player destroyed) before then, nor when the index stopped on an
     *  error (see fpx_index_mode). A listener whose size ends
     *  before it leaves it NULL. */
    void (*on_index_complete)(uint64_t frames, void *userdata);
} fpx_listener;

/** Zeroes *listener and sets its size. Callback-safe: yes. */
FPX_API void fpx_listener_init(fpx_listener *listener);

/* ======================================================================= */
/* Players                                                                 */
/* ======================================================================= */

typedef struct fpx_player fpx_player;

typedef enum fpx_delivery_mode {
    FPX_DELIVERY_THREAD = 0, /**< a library thread per player runs callbacks */
    FPX_DELIVERY_HOST = 1    /**< the host runs them with fpx_player_dispatch_events */
} fpx_delivery_mode;

/**
 * How much of an item's frame grid the player learns besides what seeks read
 * (fpx_player_config.index_mode). Landings are the same in every mode; only
 * their cost differs.
 *
 *   FPX_INDEX_OFF        The container's keyframe index is never used: every
 *                        landing the frame grid does not know yet is found by
 *                        reading the packets around it (the scan), for
 *                        nearest-keyframe seeks too. No extra I/O.
 *   FPX_INDEX_KEYFRAMES  The default: nearest-keyframe seeks use the
 *                        container's keyframe index when it is known to be
 *                        complete (MP4 sample tables, libavformat-written
 *                        Matroska cues). No extra I/O.
 *   FPX_INDEX_FULL       As KEYFRAMES, and once the item is READY a second
 *                        demux context of the same URL (same protocol policy
 *                        and io_timeout_ms) on its own thread (named
 *                        "fpx-index", at nice +10 so that it yields the CPU
 *                        to the host and the player's worker) reads the
 *                        reference stream's packets from start to end (other
 *                        streams discarded in the demuxer) and adds them to the
 *                        frame grid, so later seeks anywhere in the item
 *                        resolve from memory instead of scanning (decided
 *                        inside fpx_player_seek, packets_read 0; the demuxer
 *                        is positioned at the landing's keyframe by the next
 *                        read). It reads the whole
 *                        file once: its packets count in packets_demuxed and
 *                        bytes_read. Progress: fpx_player_stats.index_frames and
 *                        index_complete; on_index_complete says when it is
 *                        done. A seek never waits for it (the grid is updated
 *                        in batches of whole GOPs, at least 64 frames, each
 *                        under the player's engine lock only for the time of
 *                        an insert, never during I/O); close_item,
 *                        open and destroy stop it within 100 ms. Memory: 8
 *                        bytes per frame plus 32 per keyframe in the grid,
 *                        capped at 4194304 frames (32 MiB; past the cap the
 *                        grid is cleared and seeks scan again). HLS items and
 *                        an index that fails (an I/O error, a timeout) fall
 *                        back to KEYFRAMES behaviour silently: seeks still
 *                        land, by the scan where the grid has no answer, and
 *                        index_complete stays 0.
 */
typedef enum fpx_index_mode {
    FPX_INDEX_OFF = 0,
    FPX_INDEX_KEYFRAMES = 1,
    FPX_INDEX_FULL = 2
} fpx_index_mode;

typedef struct fpx_player_config {
    size_t size;                  /**< sizeof(fpx_player_config) */
    fpx_delivery_mode delivery;   /**< default FPX_DELIVERY_THREAD */
    /** Bound on any one blocking I/O operation (read, network connect), and
     *  on a whole open, in milliseconds (section 8). Default 10000. 0 means
     *  no bound; any value up to INT64_MAX is accepted. */
    int64_t io_timeout_ms;
    /** FPX_DELIVERY_HOST: called from a library thread once per change of
     *  the event queue from empty to non-empty (see "Event delivery"). It
     *  must not call into the library; schedule a dispatch. */
    void (*wakeup)(void *userdata);
    void *wakeup_userdata;
    /** The protocols the player may open, as FFmpeg names them, comma
     *  separated ("file,http,https"). NULL (the default) means
     *  "file,http,https". The list replaces the default: it can narrow it
     *  ("https" alone) or widen it ("file,http,https,pipe"). Whatever it
     *  says, content reached over the network (a remote playlist's
     *  segments, keys, init sections and variants; a remote file's nested
     *  references) may name only http and https. An empty list or a name
     *  with characters other than [a-z0-9_] is FPX_ERROR_INVALID_ARGUMENT.
     *  Copied at create. See "Untrusted media". */
    const char *protocol_whitelist;
    /** Cap on the media a player buffers, in bytes: one HLS segment (with
     *  its init section), the HLS segments held together, the packet
     *  window, an HLS playlist's text with its parsed segments (section 8);
     *  for an HLS item with a separate audio rendition, per playlist.
     *  Default (and 0): 67108864 (64 MiB). Exceeding it is
     *  FPX_ERROR_TOO_LARGE. Negative is FPX_ERROR_INVALID_ARGUMENT. */
    int64_t max_buffer_bytes;
    /** See fpx_index_mode. Default FPX_INDEX_KEYFRAMES (also when size ends
     *  before this member). */
    fpx_index_mode index_mode;
    /* Added in 0.4.0: which variant an HLS master playlist plays (see
     * fpx_player_hls_variant); read at each fpx_player_open. By default (all
     * 0), the highest BANDWIDTH that is not an I-frame variant. Negative
     * values are FPX_ERROR_INVALID_ARGUMENT at create. */
    /** 0: no cap. Else the highest BANDWIDTH at or below it among the
     *  variants the height cap leaves; when none is, the lowest BANDWIDTH. */
    int64_t hls_max_bandwidth;
    /** 0: choose by the caps. N > 0: the Nth variant (1-based, playlist
     *  order as fpx_player_hls_variant lists them, I-frame ones counted);
     *  an I-frame variant or an N past the list fails the open with
     *  FPX_ERROR_INVALID_ARGUMENT. */
    int32_t hls_variant;
    /** 0: no cap. Else variants whose RESOLUTION is taller are left out
     *  (those without RESOLUTION stay); when that leaves none, all stay. */
    int32_t hls_max_height;
    /** Which audio rendition plays (see "HLS variants and
     *  renditions"). 0: automatic (the variant's AUDIO group: its
     *  DEFAULT=YES rendition, else its first AUTOSELECT=YES one, else its
     *  first). N > 0: the Nth rendition (1-based, playlist order as
     *  fpx_player_hls_rendition lists them), which must be TYPE=AUDIO (any
     *  group), else the open fails with FPX_ERROR_INVALID_ARGUMENT. -1: no
     *  separate audio (the variant's own streams only). A chosen rendition
     *  without a URI is the variant's muxed audio: nothing more is read.
     *  Below -1 is FPX_ERROR_INVALID_ARGUMENT at create. */
    int32_t hls_audio;
    /** Added in 0.4.0: the reference stream (section 2), read at each
     *  fpx_player_open. 0 (the default, also when size ends before this
     *  member): automatic, the best video stream, else the best audio
     *  stream. N > 0: the stream whose fpx_stream_info.index is N - 1, which
     *  must be a video stream (not an attached picture); a stream that does
     *  not exist or is not video fails the open with
     *  FPX_ERROR_INVALID_ARGUMENT, and the log callback (FPX_LOG_ERROR) says
     *  why, naming the index and the item's streams. An HLS item keeps its
     *  automatic choice: another one fails its open with
     *  FPX_ERROR_UNSUPPORTED. Negative is FPX_ERROR_INVALID_ARGUMENT at
     *  create. */
    int32_t reference_stream;
    /* Added in 0.4.0: how servers reached over TLS (https, and the tls
     * transport of a DASH http-head time source) are checked; both read at
     * create. By default (NULL and 0, also when size ends before them) a
     * server's certificate must chain to a trusted CA and name the host
     * the URL names, else the open (or the fetch) fails with FPX_ERROR_IO
     * and the log callback (FPX_LOG_ERROR) says why. The trusted CAs: the
     * file tls_ca_file names; when NULL, the file the environment variable
     * SSL_CERT_FILE names (read at each open); else the first that exists of
     * /etc/ssl/certs/ca-certificates.crt, /etc/pki/tls/certs/ca-bundle.crt,
     * /etc/ssl/ca-bundle.pem, /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem
     * and /etc/ssl/cert.pem; with none of them, the TLS library's own
     * default (FFmpeg built with GnuTLS: the system's trust store; the
     * Python wheel's mbedTLS: none, so every https open fails). FFmpeg's tls
     * protocol checks nothing unless asked; the library always asks. One gap
     * is FFmpeg's: built with mbedTLS (the Python wheel), it checks the chain
     * but not the name when the URL's host is a numeric address; GnuTLS
     * (Debian's FFmpeg) checks the certificate's IP address names too. */
    /** A PEM file of the CA certificates to trust (replaces the default
     *  ones). Copied at create; the file is read at each open. An empty
     *  string is FPX_ERROR_INVALID_ARGUMENT. */
    const char *tls_ca_file;
    /** 1: no certificate or host check at all (test servers with
     *  self-signed certificates; anyone on the path can then read and
     *  change what is fetched, AES-128 keys included). 0: checked (the
     *  default). Any other value is FPX_ERROR_INVALID_ARGUMENT. */
    int32_t tls_insecure;
} fpx_player_config;

/**
 * Fills *config with the defaults and sets its size: the struct as the
 * caller's header defines it, never a byte more. Use it through the macro
 * below (which passes sizeof *config); the function of this name writes the
 * 0.3 layout only (64 bytes, through index_mode), because binaries built
 * against the 0.3 and older headers call it with structs of that size.
 * Callback-safe: yes.
 */
FPX_API void fpx_player_config_init(fpx_player_config *config);

/**
 * Fills the first `size` bytes of *config with the defaults (whole members
 * only: a member that `size` ends inside is left out) and sets config->size to
 * the bytes filled: min(size, sizeof(fpx_player_config)) rounded down to a
 * member's end. It never writes past `size`; a host built against a newer
 * header than the library sees config->size smaller than its sizeof, and
 * fpx_player_create keeps the defaults for the members past it. Returns FPX_OK,
 * or FPX_ERROR_INVALID_ARGUMENT (config NULL, or `size` smaller than the
 * members fpx_player_create requires: through io_timeout_ms), writing nothing.
 * Added in 0.4.0. Callback-safe: yes.
 */
FPX_API int fpx_player_config_init_size(fpx_player_config *config, size_t size);

/* Hosts built against this header get the sized call; (fpx_player_config_init)(c),
 * in parentheses, still names the 0.3 function. */
#define fpx_player_config_init(config) fpx_player_config_init_size((config), sizeof *(config))

/**
 * Creates a player. config may be NULL for the defaults.
 * Returns FPX_OK and sets *out, or FPX_ERROR_INVALID_ARGUMENT (out NULL,
 * config->size too small, negative io_timeout_ms, an invalid
 * protocol_whitelist, negative max_buffer_bytes, hls_* out of range), FPX_ERROR_UNKNOWN_ENUM
 * (delivery, index_mode), FPX_ERROR_NO_MEMORY, FPX_ERROR_NO_FILE_DESCRIPTORS
 * (section 6). The first create installs the library's
 * av_log callback (see "Logging"). Callback-safe: yes.
 */
FPX_API int fpx_player_create(const fpx_player_config *config, fpx_player **out);

/**
 * Destroys a player. See "Ownership and lifetimes" for what happens to
 * pending seeks and events. NULL is a no-op returning FPX_OK; a destroyed
 * handle gives FPX_ERROR_INVALID_HANDLE. Callback-safe: yes from the
 * player's own completions and listener events (see above). From the log
 * callback, the wakeup, or a callback of another player it returns
 * FPX_ERROR_IN_CALLBACK and the handle stays valid: there the calling thread
 * may be the player's own worker or hold its locks, and two callbacks
 * destroying each other's players would wait for each other for ever.
 */
FPX_API int fpx_player_destroy(fpx_player *player);

/**
 * Attaches a new item from a path or URL (file, http, https: the player's
 * protocol_whitelist, section 8), replacing any
 * current one (whose pending seeks complete as cancelled). Returns at once;
 * the open runs on the player's worker. Status events (LOADING, then READY or
 * FAILED) reach on_item_status. The url is copied.
 * Returns FPX_ERROR_INVALID_ARGUMENT for NULL or empty url, and
 * FPX_ERROR_FFMPEG_MISMATCH (nothing attached, no status event) when the
 * loaded FFmpeg libraries have other majors than the library was built
 * against (see "FFmpeg ABI" and fpx_ffmpeg_versions()).
 * Callback-safe: yes.
 */
FPX_API int fpx_player_open(fpx_player *player, const char *url);

/**
 * Detaches the current item. Pending seeks complete as cancelled; in-flight
 * I/O is interrupted. FPX_OK even when nothing was attached.
 * Callback-safe: yes.
 */
FPX_API int fpx_player_close_item(fpx_player *player);

/**
 * The current item's status. Set info->struct_size first (see "Compatibility").
 * Callback-safe: yes.
 */
FPX_API int fpx_player_item_status(fpx_player *player, fpx_item_status_info *info);

/**
 * Blocks until the current item is READY or FAILED, or timeout_ms passes
 * (negative: no limit). Returns FPX_OK when READY, the item's error when
 * FAILED, FPX_ERROR_TIMEOUT, FPX_ERROR_CANCELLED (the player was destroyed
 * during the wait), or FPX_ERROR_NO_ITEM. info may be NULL. Items refused by
 * the protocol policy fail with FPX_ERROR_PROTOCOL_NOT_ALLOWED; local
 * targets that are not regular files with FPX_ERROR_UNSUPPORTED.
 * Callback-safe: no.
 */
FPX_API int fpx_player_wait_item(fpx_player *player, int64_t timeout_ms,
                                 fpx_item_status_info *info);

/** Facts of the READY item. FPX_ERROR_ITEM_NOT_READY before. Callback-safe: yes. */
FPX_API int fpx_player_item_info(fpx_player *player, fpx_item_info *info);

/** Facts of one stream of the READY item. Callback-safe: yes. */
FPX_API int fpx_player_stream_info(fpx_player *player, int stream_index,
                                   fpx_stream_info *info);

/**
 * The seekable range on the item timeline: [first frame, last frame]. The
 * player measures it while opening (it demuxes the first packets and the
 * last GOP), so this does no I/O for a READY file item. On a file cut short
 * the last frame is the last one read whole (see
 * fpx_item_info.seekable_range_truncated). Blocking only for
 * items whose range must be read from the network. Callback-safe: no.
 */
FPX_API int fpx_player_seekable_range(fpx_player *player, fpx_time *start, fpx_time *end);

/**
 * Sets up the seek manager. Without it, every seek still completes, with
 * finished 0, reason FPX_FINISH_NO_SEEK_MANAGER and clamp
 * FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN, rather than silently doing nothing.
 * Idempotent. Callback-safe: yes.
 */
FPX_API int fpx_player_setup_seek_manager(fpx_player *player);

/**
 * Requests a seek of the current item to target (item timeline) with a
 * precision. Returns at once and never blocks on I/O. The seek supersedes
 * every seek of this player still queued or in flight. callback may be NULL
 * (listeners still hear of it). On success *seek_id (optional) receives the
 * id echoed in the outcome; on error nothing is queued and the callback is
 * never called.
 * Errors: FPX_ERROR_INVALID_HANDLE; FPX_ERROR_INVALID_TIME (NaN, infinite,
 * invalid, timescale <= 0); FPX_ERROR_UNKNOWN_ENUM (precision kind);
 * FPX_ERROR_INVALID_ARGUMENT (tolerance negative, non-numeric, over
 * 2^31 seconds, or with flag bits other than FPX_TIME_FLAG_VALID: checked
 * here, so an accepted seek never fails for its tolerance);
 * FPX_ERROR_NO_ITEM. A seek issued while the item is still loading is queued
 * behind the open.
 *
 * Seeks decided from memory. When what the player already knows decides the
 * landing (the frame grid of frames read by earlier seeks, steps and reads;
 * a complete FPX_INDEX_FULL index; the container's keyframe index once the
 * presentation times it needs are known, e.g. Matroska cues), the seek is
 * completed inside this call, on the calling thread, with no I/O and no trip
 * through the worker: its events are queued before the call returns (in
 * FPX_DELIVERY_HOST mode the next dispatch delivers them; in
 * FPX_DELIVERY_THREAD mode the completion may run on the delivery thread
 * before this call has returned, so take the id from the outcome),
 * packets_read is 0, and the demuxer is positioned at the landing's keyframe
 * by the next fpx_player_read_packet (see there for its errors). A run of
 * such seeks positions the demuxer once, at the last landing. The outcome,
 * the packets and their flags are those the worker would give. The call
 * never waits for the engine: while another thread reads, steps or the
 * worker resolves, or when a seek is still in flight (completions keep the
 * order of issue), the seek goes to the worker as any other.
 * Callback-safe: yes.
 */
FPX_API int fpx_player_seek(fpx_player *player, fpx_time target, fpx_precision precision,
                            fpx_seek_callback callback, void *userdata, uint64_t *seek_id);

/**
 * The synchronous seek, for simple hosts and scripts: issues a seek exactly as
 * fpx_player_seek() does (it supersedes older seeks, and is superseded by
 * newer ones), then BLOCKS the calling thread until that seek is decided
 * (landed, failed, superseded or cancelled) or timeout_ms passes (negative:
 * no limit; the worker's own I/O timeout still bounds the seek).
 *
 * Returns FPX_OK and fills *out with the outcome, the same outcome the
 * completion callback of fpx_player_seek() would get; read out->finished and
 * out->reason, as a superseded or cancelled seek also returns FPX_OK.
 * out->struct_size is read first: the library writes at most that many bytes
 * (0 is read as sizeof(fpx_seek_outcome)) and sets it to the bytes filled;
 * 1 ... sizeof(size_t) - 1 or a NULL out is FPX_ERROR_INVALID_ARGUMENT and
 * issues no seek. Pointers in *out are static strings.
 *
 * It returns as soon as the outcome is decided and does not wait for event
 * delivery: listeners (on_seek_clamped, on_seek_accuracy) still hear of the
 * seek through the event queue as usual, possibly after this call returns.
 * The seek's events are queued before it returns, so in FPX_DELIVERY_HOST
 * mode your next fpx_player_dispatch_events() delivers them. So it never
 * deadlocks on a host-pumped queue.
 *
 * Landing on the calling thread. A seek that memory decides completes
 * inside the call, as for fpx_player_seek(). Any other is landed by the
 * calling thread itself, with no trip through the worker, when the player is
 * idle: no seek of it queued or in flight, no job of its queue waiting, and
 * no other thread using its engine (reading, stepping, resolving). The media
 * I/O then runs on your thread (bounded as on the worker, section 8), and so
 * may the log callback (see "Logging"). Nothing else changes: a newer seek,
 * fpx_player_cancel_pending_seeks, fpx_player_close_item, fpx_player_open or
 * fpx_player_destroy from another thread stops that landing as it stops a
 * worker's, the call then returning FPX_OK with the seek superseded or
 * cancelled; the completion order of issue is kept; its events are queued
 * before the call returns and delivered as for any seek (on the delivery
 * pool or by your dispatch, never inside this call); the outcome is the one
 * the worker would give. When timeout_ms passes before it has landed, the
 * landing stops, the seek is handed to the worker, which lands it from the
 * start, and the call returns FPX_ERROR_TIMEOUT as below (a timeout_ms of 0
 * sends it to the worker at once). Otherwise the seek goes to the worker and
 * the call waits.
 *
 * Errors: those of fpx_player_seek(); FPX_ERROR_TIMEOUT when timeout_ms
 * passed first (*out untouched; the seek stays issued and completes later
 * through the listeners); FPX_ERROR_IN_CALLBACK from inside any callback of
 * the library, since blocking there would stall the delivery of the very
 * outcome it waits for. Destroying the player from another thread makes it
 * return with the seek cancelled.
 * Callback-safe: no. Blocking.
 */
FPX_API int fpx_player_seek_wait(fpx_player *player, fpx_time target, fpx_precision precision,
                                 int64_t timeout_ms, fpx_seek_outcome *out);

/**
 * Cancels every queued or in-flight seek: each completes with reason
 * FPX_FINISH_CANCELLED. *count (optional) receives how many. It also
 * interrupts a fpx_player_read_packet blocked in I/O on another thread
 * (FPX_ERROR_INTERRUPTED; the next read restarts at the playhead, see
 * section 8). Callback-safe: yes.
 */
FPX_API int fpx_player_cancel_pending_seeks(fpx_player *player, uint64_t *count);

/** Registers a listener (copied); *listener_id (optional) identifies it. Callback-safe: yes. */
FPX_API int fpx_player_add_listener(fpx_player *player, const fpx_listener *listener,
                                    uint64_t *listener_id);

/**
 * Unregisters a listener. No event reaches it after the next event boundary;
 * its destroy_notify is then called on the delivery thread.
 * FPX_ERROR_NOT_FOUND for unknown ids. Callback-safe: yes.
 */
FPX_API int fpx_player_remove_listener(fpx_player *player, uint64_t listener_id);

/**
 * FPX_DELIVERY_HOST only: runs every queued callback on the calling thread,
 * in order, and returns. *dispatched (optional) receives the count.
 * FPX_ERROR_WRONG_MODE on a FPX_DELIVERY_THREAD player; FPX_ERROR_IN_CALLBACK
 * from inside a callback. Not reentrant: another thread dispatching at the
 * same time waits for the first to finish. Callback-safe: no.
 */
FPX_API int fpx_player_dispatch_events(fpx_player *player, int *dispatched);

/**
 * FPX_DELIVERY_HOST only: a file descriptor that polls readable while events
 * are queued (level-triggered), the same for the player's whole life, closed
 * by fpx_player_destroy(). Owned by the player; do not read or close it. See
 * "Event delivery" for the exact rules and an epoll and a GLib example.
 * Callback-safe: yes.
 */
FPX_API int fpx_player_event_fd(fpx_player *player, int *fd);

/**
 * Reads the next packet of the current item, of any stream, in demux order.
 * After a seek, the packets start at the keyframe the landed frame needs
 * (unless the landing continues the packets: see "Continuation");
 * packets whose pts is before the landed frame carry
 * FPX_PACKET_FLAG_DECODE_ONLY (and, when no later frame references them,
 * FPX_PACKET_FLAG_DISPOSABLE: see "Disposable packets"), and the first carries
 * FPX_PACKET_FLAG_DISCONTINUITY. A read issued while seeks are pending waits
 * for them to settle first. Packets without DISCONTINUITY always follow the
 * previous one in demux order: when a seek or step that did not land
 * (cancelled, superseded, failed, or refused after reading media) moved the
 * demuxer, the next read starts again at the keyframe the playhead frame
 * needs, flagged DISCONTINUITY. Blocking (bounded by the I/O timeout).
 * After a seek decided from memory (see fpx_player_seek) the read first
 * positions the demuxer at the landing's keyframe. An error of that
 * positioning is this read's: an I/O error (FPX_ERROR_NETWORK, FPX_ERROR_IO,
 * FPX_ERROR_TIMEOUT...; FPX_ERROR_INTERRUPTED or FPX_ERROR_CANCELLED as
 * below), no packet is returned, the landing and the seek's outcome stand,
 * and the next read tries the positioning again (its first packet is then
 * the landing's keyframe, flagged DISCONTINUITY, with the seek's id).
 * Returns FPX_OK, FPX_ERROR_EOF at the end, or an I/O error. A read blocked
 * in I/O returns FPX_ERROR_INTERRUPTED within about 100 ms when a seek is
 * issued or fpx_player_cancel_pending_seeks is called, FPX_ERROR_CANCELLED
 * when the item is closed or replaced or the player destroyed, and
 * FPX_ERROR_TIMEOUT when the data stops for the I/O timeout; never a
 * truncated packet (section 8).
 * Callback-safe: no.
 */
FPX_API int fpx_player_read_packet(fpx_player *player, fpx_packet *packet);

/** Per-player counters, for observability. */
typedef struct fpx_player_stats {
    size_t struct_size;
    uint64_t seeks_issued;
    uint64_t seeks_completed;  /**< finished == 1 */
    uint64_t seeks_superseded;
    uint64_t seeks_cancelled;
    uint64_t seeks_failed;     /**< FAILED and NO_SEEK_MANAGER */
    uint64_t packets_demuxed;  /**< av_read_frame successes, all purposes */
    uint64_t bytes_read;       /**< payload bytes of those packets */
    uint64_t events_delivered;
    /** FPX_INDEX_FULL: reference-stream frames the current item's background
     *  index has read so far (each once; priming and discard-flagged frames
     *  are not counted); 0 in the other modes and with no item. */
    uint64_t index_frames;
    /** 1 once the current item's background index reached its end (then
     *  index_frames is the item's count), else 0. */
    int index_complete;
    /** Added in 0.4.0: the current item's HLS holes (GAP or failed segments)
     *  so far, each segment once; as fpx_item_status_info.segments_skipped. */
    uint64_t segments_skipped;
} fpx_player_stats;

/** Copies the counters. Callback-safe: yes. */
FPX_API int fpx_player_stats_get(fpx_player *player, fpx_player_stats *stats);

/**
 * Switches a stream of the READY item off (enabled 0) or back on (enabled
 * != 0). A disabled stream is discarded in the demuxer (AVStream.discard =
 * AVDISCARD_ALL): its packets are not read from the container where the
 * format allows skipping them, are not counted in packets_demuxed and
 * bytes_read, and are never returned by fpx_player_read_packet(), including
 * packets already buffered when it was disabled. Seeks are unaffected: they
 * resolve on the reference stream. Enabling a stream again takes effect for
 * the packets demuxed from then on: packets already buffered stay without
 * it, and the next seek reads the container again, with it.
 * The setting belongs to the current item; a newly opened item has every
 * stream enabled. Idempotent.
 * Errors: FPX_ERROR_REFERENCE_STREAM when asked to disable the reference
 * stream (fpx_item_info.reference_stream; enabling it is a no-op);
 * FPX_ERROR_INVALID_ARGUMENT for an index outside [0, stream_count);
 * FPX_ERROR_NO_ITEM, FPX_ERROR_ITEM_NOT_READY, FPX_ERROR_ITEM_FAILED.
 * It waits for a seek or read in progress on another thread to finish.
 * Callback-safe: no.
 */
FPX_API int fpx_player_set_stream_enabled(fpx_player *player, int stream_index, int enabled);

/*
 * Continuation (0.4). Off by default: every landed seek, step or scrub end
 * then restarts the packets at the keyframe the landing needs, flagged
 * DISCONTINUITY, and a host flushes its decoder and decodes that keyframe's
 * GOP prefix again. With continuation on (fpx_player_set_continuation), a
 * landing ahead of what the host's decoder already has continues the packets
 * from the host's read position instead: the next packet read is the one
 * after the last one read, with no DISCONTINUITY; packets whose pts is before
 * the NEW landing are flagged DECODE_ONLY, and every packet from it on carries
 * the new seek's id (a frame step keeps the latest seek's id, as always) and
 * the new landing fields (landed_pts, landed_pts_in_stream, trim_samples).
 * The outcome is the same either way; only the packets differ.
 *
 * The library continues only when all of these hold, so that it is right for
 * a paused host and for a playing one alike:
 * - the item is a file or an http(s) URL (HLS items always restart);
 * - the host read every packet since the last DISCONTINUITY in order, with
 *   nothing lost (no failed read, no stream switched off or enabled again,
 *   no read-ahead dropped: see fpx_player_unread_packets), and its last read
 *   did not return the end of the item (FPX_ERROR_EOF from
 *   fpx_player_read_packet): a host drains its decoder there to get the last
 *   frames, so the landing after the end restarts (unless the host gave
 *   packets back with fpx_player_unread_packets after it: its decoder did not
 *   see the end);
 * - the host's decoder cannot have returned a frame at or after the new
 *   landing: the landed frame's packet has not been read yet since that
 *   DISCONTINUITY (a decoder returns frames in presentation order, so it
 *   returns none at or after a frame it was not given), or the host told the
 *   library (fpx_player_report_decoded) that the largest pts its decoder
 *   returned since then is before the landing;
 * - continuing decodes no more reference-stream packets than restarting at
 *   the landing's keyframe would (always when that keyframe was read since
 *   the DISCONTINUITY; never when it lies ahead).
 *
 * What a host must do (the rule of "Landing on the packet stream", which
 * already holds without continuation): flush its decoder at DISCONTINUITY and
 * only there; keep it otherwise (draining it at FPX_ERROR_EOF is allowed: the
 * next landing then starts with a DISCONTINUITY). Decode every packet, and present only the
 * decoded frames whose pts is >= the landed_pts_in_stream of the latest
 * packet it fed that decoder: after a continued landing this drops the frames
 * before the new landing, including frames decoded before it and not yet
 * presented; the first frame at or after it is the landed frame. A host that
 * flushes at each seek's completion instead of at DISCONTINUITY must leave
 * continuation off. A forward step of one frame then costs about one decoded
 * frame instead of the GOP prefix.
 *
 * How far ahead a seek finds out whether it may continue: the library reads on
 * from the host's read position (at most 2048 packets and half of
 * max_buffer_bytes) to a target about one keyframe interval past what it has
 * read (1 s until it has read two keyframes), and farther, for exact seeks,
 * when the container's own keyframe index (MP4's sample table, Matroska cues
 * written by libavformat) lists no keyframe between the last keyframe read and
 * the target: in a 10 s GOP, exact seeks 2 s apart then continue. Farther
 * targets, a keyframe the index lists in between, or no such index (MPEG-TS,
 * fragmented MP4) restart at the landing's keyframe.
 */

/**
 * Turns continuation on (enabled != 0) or off (0) for this player: for the
 * current item at once and for every item opened later. Default off. Takes
 * effect at the next landing. It waits for a seek or read in progress on
 * another thread to finish. Errors: FPX_ERROR_INVALID_HANDLE.
 * Callback-safe: no.
 */
FPX_API int fpx_player_set_continuation(fpx_player *player, int enabled);

/**
 * Optional, for continuation: tells the library the largest pts (reference
 * stream time base, as landed_pts) of a frame that the host's decoder of the
 * reference stream returned since the last DISCONTINUITY packet it was fed
 * (frames the host dropped count). With it, a landing whose packet was read
 * already but whose frame the decoder has not returned yet continues too (in
 * B-frame pyramids the next frame's packet is often read before the landed
 * one's). Reports only grow the value; a report made while the next packet
 * to read is a DISCONTINUITY is ignored (it is of the run that ended).
 * Reporting less than the decoder returned makes continuation wrong. No-op
 * for HLS items. Errors: FPX_ERROR_NO_ITEM, FPX_ERROR_ITEM_NOT_READY,
 * FPX_ERROR_ITEM_FAILED. It waits for a seek or read in progress on another
 * thread to finish.
 * Callback-safe: no.
 */
FPX_API int fpx_player_report_decoded(fpx_player *player, int64_t pts);

/**
 * The host did not use the last `count` packets it read (a binding that
 * reads ahead and drops what it read before a seek): the next reads return
 * them again, in order, each stamped for the landing current when it is
 * read again (flags, seek_id, landed fields; the DISCONTINUITY one flagged
 * again). Call it before the seek, step or scrub end that follows, so that a
 * continued landing continues from the packets the host really has. When
 * they cannot be returned again (no longer buffered), the next read starts
 * again at the keyframe the playhead frame needs, flagged DISCONTINUITY.
 * count 0 does nothing. Errors: FPX_ERROR_UNSUPPORTED for HLS items (they
 * never continue, so dropping the packets is right); FPX_ERROR_NO_ITEM,
 * FPX_ERROR_ITEM_NOT_READY, FPX_ERROR_ITEM_FAILED. It waits for a seek or read
 * in progress on another thread to finish.
 * Callback-safe: no.
 */
FPX_API int fpx_player_unread_packets(fpx_player *player, uint32_t count);

/* ======================================================================= */
/* Scrub sessions                                                          */
/* ======================================================================= */

/*
 * A scrub session coalesces a drag gesture into one seek:
 *
 *   fpx_scrub_begin(s, now);          gesture began
 *   fpx_scrub_update(s, t);           at touch rate: issues NO seek
 *   fpx_scrub_end(s, t, prec, cb, ud, &id);   exactly one seek
 *   fpx_scrub_cancel(s);              gesture cancelled: nothing to undo
 *
 * States: IDLE -> SCRUBBING (begin) -> SETTLING (end; the one seek is in
 * flight) -> IDLE (that seek completed). Each change reaches
 * on_scrub_state_changed. The change to IDLE is delivered just before the
 * end callback, in the same event.
 *
 * Positions: on_scrub_position_changed gets {time, sample_count} at most once
 * per position throttle (default FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS). The
 * trailing edge is kept: the last position of a burst is delivered one
 * throttle interval after the previous delivery, or at end/cancel, whichever
 * comes first, so the final position is never lost. No seek is associated
 * with a position event.
 *
 * fpx_scrub_update allocates nothing, takes no lock other threads hold for
 * long, and touches no I/O: it is safe at any rate.
 *
 * Edge cases:
 * - begin while SCRUBBING restarts the gesture: sample count back to 0, no
 *   state event.
 * - begin while SETTLING moves to SCRUBBING; the settling seek keeps going and
 *   is superseded by the next end, like any newer seek. Its end callback still
 *   runs exactly once.
 * - update or end while not SCRUBBING: FPX_ERROR_INVALID_STATE; no seek, and
 *   the end callback is never called.
 * - NaN, infinite or invalid times: FPX_ERROR_INVALID_TIME.
 * - cancel while SCRUBBING: back to IDLE, no seek. While SETTLING: cancels
 *   the pending seeks; the end callback reports was_cancelled. While IDLE: no-op.
 * - destroying the player cancels a settling seek the same way.
 * sample_count counts accepted updates only (begin and end do not count).
 */

#define FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS 100

typedef struct fpx_scrub_session fpx_scrub_session;

typedef struct fpx_scrub_result {
    size_t struct_size;
    const fpx_seek_outcome *outcome; /**< NULL when the settling seek was cancelled */
    uint64_t sample_count;           /**< updates in the gesture */
    int was_cancelled;               /**< outcome == NULL */
} fpx_scrub_result;

typedef void (*fpx_scrub_callback)(const fpx_scrub_result *result, void *userdata);

/**
 * The player's scrub session, a handle valid as long as the player (it is
 * never freed separately). FPX_ERROR_NO_SEEK_MANAGER before
 * fpx_player_setup_seek_manager; *out is then untouched. Callback-safe: yes.
 */
FPX_API int fpx_player_scrub_session(fpx_player *player, fpx_scrub_session **out);

/** Begins (or restarts) a gesture at `at`. Callback-safe: yes. */
FPX_API int fpx_scrub_begin(fpx_scrub_session *session, fpx_time at);

/** Records a sample. Issues no seek. Callback-safe: yes. */
FPX_API int fpx_scrub_update(fpx_scrub_session *session, fpx_time to);

/**
 * Ends the gesture with exactly one seek to `at`. On success *seek_id
 * (optional) is that seek's id and callback (optional) runs once when it
 * completes. On error no seek is issued and callback is never called.
 * Callback-safe: yes.
 */
FPX_API int fpx_scrub_end(fpx_scrub_session *session, fpx_time at, fpx_precision precision,
                          fpx_scrub_callback callback, void *userdata, uint64_t *seek_id);

/** Abandons the gesture (see the rules above). Callback-safe: yes. */
FPX_API int fpx_scrub_cancel(fpx_scrub_session *session);

/** The state, and is_active (state != IDLE); either pointer may be NULL. Callback-safe: yes. */
FPX_API int fpx_scrub_get_state(fpx_scrub_session *session, fpx_scrub_state *state, int *is_active);

/** Sets the position throttle (numeric, >= 0; 0 delivers every update). Callback-safe: yes. */
FPX_API int fpx_scrub_set_position_throttle(fpx_scrub_session *session, fpx_time throttle);

/** Reads the position throttle, in nanoseconds (timescale 1e9). Callback-safe: yes. */
FPX_API int fpx_scrub_get_position_throttle(fpx_scrub_session *session, fpx_time *throttle);

/* ======================================================================= */
/* Frame stepping                                                          */
/* ======================================================================= */

/**
 * Steps `count` (>= 1) frames forward or backward from the playhead along the
 * reference stream's presentation-order frame grid (the frames ffprobe
 * -show_frames lists). The playhead is the frame of the last landed seek or
 * step, or the first frame before any.
 *
 * Fills *result: did_step with the landed media time, or a typed reason:
 * NO_CURRENT_ITEM, ITEM_NOT_READY, NO_VIDEO_TRACK (permanent for that item:
 * audio-only content is never steppable), AT_LIVE_EDGE (forward, on a live
 * playlist: the next frame is not published yet, or is published but lies
 * past the hold-back edge, where the seekable range ends; result->explanation
 * says which), or
 * CANNOT_STEP_IN_DIRECTION when there are fewer than `count` frames that way
 * (the playhead does not move). Every call that returns FPX_OK, refusals
 * included, also reaches on_frame_step.
 *
 * Afterwards, fpx_player_read_packet starts at the keyframe the new frame
 * needs, with DECODE_ONLY flags up to it (with continuation on, it may
 * continue from the read position instead: see "Continuation"). Pending
 * seeks settle first.
 *
 * Cost: the engine caches the frame grid (8 bytes per frame, 32 per
 * keyframe, at most 4,194,304 frames) and a window of up to 4096 packets
 * from the current keyframe. Stepping forward demuxes about one packet per
 * step; stepping backward into a GOP demuxes that GOP once (about one GOP of
 * packets, MPEG-TS included: it is entered by the byte offset of the next
 * keyframe), after which steps inside it demux nothing. A step of more frames
 * than there can be that way (more than the stream ticks between the
 * playhead and that end of the seekable range, or than an MP4 track's sample
 * count) is refused without demuxing; any other refusal may demux up to that
 * end, and packets_read says how many packets it did.
 *
 * Returns FPX_OK (see *result), FPX_ERROR_INVALID_ARGUMENT (count < 1 or
 * result NULL), FPX_ERROR_UNKNOWN_ENUM (direction), or an I/O error.
 * Blocking. Callback-safe: no.
 */
FPX_API int fpx_player_step_frame(fpx_player *player, fpx_frame_step_direction direction, int count,
                                  fpx_frame_step_result *result);

/** A static explanation of a frame-step reason code; never NULL. Callback-safe: yes. */
FPX_API const char *fpx_frame_step_reason_explanation(int reason);

/**
 * The playhead on the item timeline: the frame of the last landed seek or
 * step, or the first frame. Blocking the first time (it may need the
 * seekable range). Callback-safe: no.
 */
FPX_API int fpx_player_current_time(fpx_player *player, fpx_time *playhead);

/* ======================================================================= */
/* Live and DVR HLS                                                        */
/* ======================================================================= */

/*
 * HLS items (URLs whose playlist is an .m3u8, master or media) go through the
 * library's own playlist handling (RFC 8216): the library fetches and parses
 * the playlist, reloads a live one about once per target duration (half that
 * after an unchanged reload), tracks segments by media sequence number, and
 * demuxes segments with libavformat. VOD, EVENT and live playlists all use it.
 *
 * Timeline. The item timeline of an HLS item: 0 is the start of the first
 * segment the player saw (the oldest one in the playlist at open); later
 * segments are listed at the sum of the EXTINF durations before them, so a
 * time keeps its meaning as the window slides. Frames are placed by one
 * fixed rule, a function of the playlist and the media only (never of what
 * was read, sought or stepped before, nor of EXT-X-START):
 * - each discontinuity domain (the segments that share an
 *   EXT-X-DISCONTINUITY-SEQUENCE) has one anchor segment: its first segment
 *   in the playlist that is not a hole (see "Gaps");
 * - the anchor's first frame (its lowest pts on the reference stream) is at
 *   the anchor's listed start, floored to the reference stream's ticks;
 * - every frame of the domain, of every stream, is at that start plus its
 *   pts distance from the anchor's first frame, exactly. So inside a domain
 *   frames keep their exact pts spacing, and EXTINF values that disagree
 *   with the media (integer EXTINF, say) move no frame of the domain: the
 *   listed starts of the other segments only decide which segment a target
 *   is looked for in (the frames decide where it lands, as for files).
 * The anchor is read (downloaded) when its domain is first needed: at open
 * for the first domain and the start segment's, later ones at their first
 * seek, step or read; it is then kept while segments of the domain are in
 * the playlist (for the item's life in VOD and EVENT playlists; a live playlist
 * anchors a domain by its first segment listed at that time). Packet pts
 * convert to item time by fpx_packet.item_origin_pts; start_pts is that
 * value in the first domain.
 *
 * Timestamp wrap (0.4.0). MPEG-2 TS timestamps (and packed audio's ID3
 * timestamps) are 33 bits of a 90 kHz clock and wrap every 2^33 ticks
 * (about 26.5 h): a live stream running past the wrap, or a VOD whose
 * timestamps start near it, has segments inside one domain (no
 * EXT-X-DISCONTINUITY) whose pts restart near 0. Each segment is demuxed
 * on its own, so the library unwraps them across segments: a segment's pts
 * are moved by the whole number of 2^33 periods that puts its first frame
 * nearest its listed place on the domain's timeline (the anchor's first
 * frame plus the EXTINF durations between them); a segment more than half
 * a period (13.25 h) below it is unwrapped by +2^33, one nearer is left as
 * it is. Item times, seeks and steps therefore run on across the wrap.
 * What the host sees is unwrapped too: within a domain, fpx_packet pts and
 * dts, landed_pts, landed_pts_in_stream and the outcome's
 * landed_stream_pts continue past 2^33 (the first domain's start_pts and
 * every packet's item_origin_pts keep the domain's value), as FFmpeg's
 * mpegts demuxer does within one file (and its hls demuxer across a
 * playlist's segments); a host that feeds them to a decoder sees one
 * increasing timeline. Streams whose time base holds no
 * whole number of ticks per 2^33 / 90000 s (not 90 kHz multiples) are
 * not moved. FFmpeg's own per-file rule may give a segment that starts
 * within 60 s before the wrap negative pts; the same rule places it.
 *
 * Start. Reading with no seek starts at the segment EXT-X-START names (else
 * the live edge's segment of a live playlist, else the first), from its
 * first packet (PRECISE=YES is not applied: the segment's start); when that
 * segment is a hole (see "Gaps"), at the next one that can be read, and when
 * only holes follow it (a live playlist whose newest segments are EXT-X-GAP,
 * an EXT-X-START in trailing holes), at the last one before it that can be
 * read. An item fails to open for holes only when no segment of its playlist
 * can be read (FPX_ERROR_NOT_FOUND). fpx_player_current_time() and a first
 * frame step start where reading does. The
 * timeline is the same with or without EXT-X-START.
 *
 * The seekable window of a live playlist is [start of the oldest segment,
 * live edge], where the live edge is the end of the newest segment minus
 * HOLD-BACK (EXT-X-SERVER-CONTROL), or minus 3 x TARGETDURATION when there is
 * none (RFC 8216, 6.3.3). Targets past the edge are clamped to it
 * (FPX_CLAMP_TO_SEEKABLE_END, the common live case), targets before the
 * window to its start. The outcome reports the edge as read for that seek.
 * A VOD playlist (one with ENDLIST) has no edge: its seekable range ends at
 * its last frame, as a file's does (targets past it clamp to it), and its
 * hold_back is 0. The last segment is downloaded at open to find that frame;
 * when the download fails (an I/O error, a stalled server), the range ends at
 * the segment's listed end (its EXTINF) until a seek or a read into that
 * segment has demuxed it. The download is not repeated by later seeks, so a
 * stalled last segment costs seeks elsewhere nothing.
 *
 * Gaps. A segment marked EXT-X-GAP is never fetched; a segment whose
 * download fails with HTTP 404 or 5xx (or a missing local file) is tried once
 * more at once, and when that fails too it is a hole as well. Holes are
 * skipped, in VOD and live alike, and never fail an item that has a segment
 * that can be read (the start: see "Start" above):
 * - reading (fpx_player_read_packet) goes on at the next segment that can be
 *   read; its first packet is flagged FPX_PACKET_FLAG_DISCONTINUITY (flush:
 *   the frames before and after the hole do not continue each other);
 * - a seek whose target lies in a hole lands on the first frame after it
 *   (the first frame of the next segment that can be read; with none, the
 *   last frame before the hole), and its outcome says so:
 *   landed_past_hole (FPX_HOLE_GAP or FPX_HOLE_FAILED), frame_covers_target
 *   0; a frame step skips holes the same way;
 * - each hole is counted once (fpx_player_stats.segments_skipped) and
 *   reported in fpx_player_item_status (segments_skipped,
 *   last_skipped_sequence, last_skip_reason) and in the log (a warning
 *   naming the media sequence number and the reason). The status listener
 *   is not called for it: the item stays READY.
 * A hole is known once met: a GAP from the playlist, a failed segment from
 * its second failed download. It stays a hole while it is in the playlist
 * (a live hole that left the window is forgotten, its count kept).
 *
 * Segments and keyframes. Packagers cut segments at keyframes in decode
 * order, but not all of them: an open GOP's leading frames (x264 open-gop,
 * x265's CRA) present before their segment's first keyframe and reference
 * the previous segment's last GOP, and a segment cut on time (ffmpeg's
 * -hls_flags split_by_time) starts mid-GOP, its frames before its first
 * keyframe (all of them when it has none) needing a keyframe one or more
 * segments back. Exact, at-or-after and nearest-keyframe seeks and frame
 * steps (both directions, one frame at a time across segment ends) land on
 * such frames like on any other: the packets start at the keyframe the frame
 * needs, in the nearest earlier segment that has a keyframe, read on through
 * the segments between, and every reference packet presenting before the
 * landed frame is DECODE_ONLY (no DISCONTINUITY between those segments). A
 * nearest-keyframe seek lands only on keyframes (the one before, possibly
 * segments back, or the next, possibly in a later segment), else on the
 * frame covering the target with its pre-roll. That earlier segment is looked
 * for at most 8 segments back, on the frame's timeline: a frame read before
 * any keyframe of its segment with no keyframe within those segments (the
 * window's start, an EXT-X-DISCONTINUITY or a hole between, a longer GOP)
 * cannot be produced and its seek or step fails with FPX_ERROR_INVALID_DATA;
 * an open GOP's leading frame there is landed from its own segment (its
 * picture may show decoding errors). A segment's frames before its first
 * keyframe are learned from its first 512 video packets. MPEG-TS and fMP4
 * segments alike: an fMP4 fragment without a keyframe is read from its first
 * sample in decode order, its frames at the times its boxes state (ffmpeg's
 * fMP4 muxer with split_by_time, FFmpeg 5.1, stamps such a fragment's first
 * sample with an earlier frame's time: two frames at that time, none at its
 * own); an fMP4 segment whose fragment lists no sample fails the seek or step
 * landing in it with FPX_ERROR_INVALID_DATA.
 *
 * Encryption. Segments under EXT-X-KEY METHOD=AES-128 (KEYFORMAT absent or
 * "identity") are decrypted (AES-128-CBC with libavutil, PKCS#7 padding
 * checked). The key is fetched once per key URI (kept while a segment of
 * the playlist uses it) under the same protocol
 * policy as the segments (the key of a remote playlist only over http or
 * https) and must be exactly 16 bytes; the IV is the tag's IV attribute (a
 * 128-bit number), else the segment's media sequence number (RFC 8216
 * 5.2). Key bytes and key URIs never reach the log, at any level: the
 * library's lines never name them, and FFmpeg's own lines written while a
 * key is fetched (its http request line "GET /key?token=...", the request
 * headers, a redirect's Location, at FPX_LOG_DEBUG and FPX_LOG_TRACE) are
 * dropped, whatever the level (a host that keeps FFmpeg's logger,
 * FPX_LOG_KEEP_FFMPEG_CALLBACK, gets FFmpeg's lines itself: see "Logging").
 * Init sections
 * (EXT-X-MAP) are taken as clear, and a byte range of an encrypted resource
 * is decrypted as if it were the whole resource. FPX_ERROR_ENCRYPTION,
 * in the item status (the open fails) or the seek or read that needed the
 * segment, with a log line (FPX_LOG_ERROR) naming the tag and the method:
 * any other METHOD (SAMPLE-AES, SAMPLE-AES-CTR, ...), another KEYFORMAT, a
 * key that cannot be fetched (av_error keeps FFmpeg's code) or is not 16
 * bytes, a segment that does not decrypt. A key failure is never a hole.
 *
 * Byte ranges. A segment with EXT-X-BYTERANGE, and an init section with
 * EXT-X-MAP BYTERANGE, is fetched over http(s) with one closed request for
 * exactly its range (Range: bytes=first-last), never the whole resource nor
 * an open-ended range. A server that ignores Range (200 with the whole
 * resource) is still read right: the request is made once more from byte 0
 * (Range: bytes=0-last) and the bytes before the range are read and dropped
 * (a warning in the log), at most max_buffer_bytes of them: a range that
 * starts farther into such a server's resource is FPX_ERROR_TOO_LARGE, in the
 * seek or read that needed it (never a hole). A local file's range is read
 * from its offset.
 *
 * I-frame playlists. A media playlist with EXT-X-I-FRAMES-ONLY, opened by its
 * own URL (a master's I-frame variants are listed, never played), plays its
 * I-frames, TS or fMP4: seeks land on them, steps walk them. A segment's
 * bytes are demuxed as far as they go: an fMP4 I-frame entry is a moof and
 * the fragment's first sample only (as Shaka Packager writes them), and the
 * samples its moof names past the range are not read. A segment whose bytes
 * end before its container's header does (a byte range too short) is
 * FPX_ERROR_INVALID_DATA, with an FPX_LOG_ERROR line naming its media
 * sequence number.
 */

typedef struct fpx_live_seek_window {
    size_t struct_size;
    int is_available;         /**< 0 when there is no ready item */
    int is_live;              /**< live or DVR: no ENDLIST */
    int is_date_addressable;  /**< the playlist publishes EXT-X-PROGRAM-DATE-TIME */
    fpx_time start;           /**< item timeline */
    fpx_time end;             /**< the live edge (live), or the last frame itself (VOD and files, as fpx_player_seekable_range) */
    fpx_time duration;        /**< end - start */
    double duration_seconds;  /**< display only */
    int64_t start_date_us;    /**< Unix microseconds of start; 0 unless date addressable */
    int64_t end_date_us;      /**< Unix microseconds of end; 0 unless date addressable */
    int64_t first_sequence;   /**< media sequence number of the oldest segment */
    int64_t last_sequence;    /**< of the newest */
    fpx_time target_duration;
    fpx_time hold_back;       /**< the distance from the newest segment's end to the edge (0 for VOD) */
} fpx_live_seek_window;

/**
 * The seekable window, computed at the instant of the call from the newest
 * playlist the player has. For a file item: is_live 0, the seekable range.
 * With no item, FPX_OK and is_available 0. Callback-safe: yes.
 */
FPX_API int fpx_player_live_seek_window(fpx_player *player, fpx_live_seek_window *window);

/**
 * Called once for fpx_player_seek_to_live_edge: outcome NULL and error
 * FPX_ERROR_NO_ITEM when nothing was attached, else the seek's outcome.
 */
typedef void (*fpx_live_edge_callback)(const fpx_seek_outcome *outcome, int error, void *userdata);

/**
 * Seeks to the live edge (exact precision), with one completion. For a file
 * item, to its last frame. Callback-safe: yes.
 */
FPX_API int fpx_player_seek_to_live_edge(fpx_player *player, fpx_live_edge_callback callback,
                                         void *userdata, uint64_t *seek_id);

typedef enum fpx_date_seek_unavailable_reason {
    FPX_DATE_SEEK_OK = 0,
    FPX_DATE_SEEK_NO_CURRENT_ITEM = 1,
    /** No EXT-X-PROGRAM-DATE-TIME: the library never invents dates; seek by time instead. */
    FPX_DATE_SEEK_NOT_DATE_ADDRESSABLE = 2,
    /** Reported, not clamped: the requested date and the window's dates are in the result. */
    FPX_DATE_SEEK_OUTSIDE_WINDOW = 3
} fpx_date_seek_unavailable_reason;

typedef struct fpx_date_seek_result {
    size_t struct_size;
    int seeked;                              /**< 1: outcome is set */
    const fpx_seek_outcome *outcome;         /**< NULL unless seeked */
    fpx_date_seek_unavailable_reason reason;
    int64_t requested_date_us;
    int64_t window_start_date_us;            /**< set for OUTSIDE_WINDOW */
    int64_t window_end_date_us;
    const char *explanation;                 /**< static; never NULL */
} fpx_date_seek_result;

typedef void (*fpx_date_seek_callback)(const fpx_date_seek_result *result, void *userdata);

/**
 * Seeks to a wall-clock date (Unix time in microseconds) with a precision.
 * The date maps to media time through the PROGRAM-DATE-TIME of the segment
 * holding it plus the offset into that segment, per discontinuity. One
 * completion: seeked with an outcome, or unavailable with a typed reason.
 * Errors returned at once (callback never called): FPX_ERROR_INVALID_HANDLE,
 * FPX_ERROR_UNKNOWN_ENUM, FPX_ERROR_INVALID_ARGUMENT (precision).
 * Callback-safe: yes.
 */
FPX_API int fpx_player_seek_to_date(fpx_player *player, int64_t unix_time_us, fpx_precision precision,
                                    fpx_date_seek_callback callback, void *userdata, uint64_t *seek_id);

/** A static explanation of a date-seek reason; never NULL. Callback-safe: yes. */
FPX_API const char *fpx_date_seek_reason_explanation(int reason);

/*
 * HLS variants and renditions (added in 0.4.0). An HLS item opened through a
 * master playlist lists every variant of it (EXT-X-STREAM-INF, and
 * EXT-X-I-FRAME-STREAM-INF ones flagged is_iframe, which are never played)
 * and every EXT-X-MEDIA rendition, in playlist order. The item plays one
 * variant (selected 1): the one fpx_player_config.hls_variant names, else
 * the highest BANDWIDTH within hls_max_bandwidth and hls_max_height, never
 * an I-frame variant; the choice is made at open, and an open item switches
 * with fpx_player_hls_select_variant (at its next seek). Subtitle and closed-caption renditions are listed only,
 * never demuxed; so are VIDEO renditions and the audio renditions not
 * chosen. An item opened from a media playlist, and a file, have none:
 * count 0.
 *
 * Separate audio. When the audio the item plays is a rendition with its own
 * URI (fpx_player_config.hls_audio; by default the variant's AUDIO group's
 * DEFAULT=YES rendition, else its first AUTOSELECT=YES one, else its first),
 * that rendition is a second feed of the item, read like the variant (the
 * same protocol policy, AES-128, gaps, live reloads, buffer cap per feed):
 * - its streams follow the variant's in the item (fpx_item_info.stream_count
 *   counts them, fpx_player_stream_info describes them); the rendition says
 *   which (selected 1, stream_index). A rendition without a URI is muxed in
 *   the variant's segments: its audio is one of the variant's streams;
 * - its frames are on the item timeline by the variant's placement of the
 *   same discontinuity domain ("Timeline" in "Live and DVR HLS"; RFC 8216
 *   6.2.4: matching content has matching timestamps), so its packets'
 *   item_origin_pts is the variant's and their item times line up;
 * - fpx_player_read_packet returns the packets of both feeds in one sequence,
 *   in decode order on the item timeline (dts, else pts, as item time; ties
 *   to the variant's packet);
 * - a seek or a frame step lands the reference (video) stream as for any
 *   item; the rendition then lands on its own frame grid at the same item
 *   time (exactly, on the audio frame that covers it); its packets start one
 *   frame before that one (the pre-roll a decoder needs), and they carry
 *   landed_pts (the video's), landed_pts_in_stream, trim_samples and
 *   DECODE_ONLY exactly as muxed audio does ("Landing on the packet
 *   stream"); only the first packet after the landing is flagged
 *   DISCONTINUITY. A landing past the rendition's end gives at most its last
 *   two frames (decode-only), then no audio packet until the next landing;
 * - before any seek: from the playlists' first segments each feed reads from
 *   its start; when the variant starts later (EXT-X-START, a live edge) the
 *   rendition starts at the audio frame that covers the variant's first
 *   frame there, one frame earlier, with no landing fields and no
 *   DISCONTINUITY;
 * - live: the seekable window is the intersection of the two playlists'
 *   windows; dates are the variant's;
 * - disabling the rendition's stream (fpx_player_set_stream_enabled) stops
 *   reading its playlist's segments; enabled again, it is read from the next
 *   landing;
 * - a different rendition is chosen at open (hls_audio), or later with
 *   fpx_player_hls_select_audio, which takes effect at the next landing;
 * - a rendition whose playlist (or first segment) cannot be opened fails
 *   the open with its error, as the variant's does;
 * - holes of the rendition ("Gaps") are the item's: skipped by its reads (a
 *   DISCONTINUITY on its next packet), counted in segments_skipped (once per
 *   segment of each playlist; last_skipped_sequence is then the rendition
 *   playlist's media sequence number); a landing in one lands the audio on
 *   its first frame after it;
 * - packed audio (RFC 8216 section 3.4: segments that are raw ADTS AAC,
 *   AC-3, E-AC-3 or MP3, in a rendition or a media playlist of their own):
 *   each segment is placed by the ID3 PRIV frame
 *   com.apple.streaming.transportStreamTimestamp at its start (the 33-bit
 *   90 kHz MPEG-2 TS timestamp of its first sample, on the clock of the
 *   variant's TS or fMP4 timestamps, taken as its 33 bits say, as a TS
 *   segment's first pts is, and unwrapped as one past a 33-bit wrap inside
 *   its domain: see "Timestamp wrap" under "Timeline"): its packets' pts
 *   and dts are that time (in the
 *   stream's own time base, rounded to the nearest tick) plus their distance
 *   from the segment's first sample, so they run on across segment ends,
 *   land exactly (trim_samples, DECODE_ONLY) and merge in decode order with
 *   the video like any rendition's. A packed segment without that frame
 *   (the RFC requires it), or whose ID3 tag is malformed or cut short
 *   (logged at WARNING with the media sequence number), is placed by the
 *   playlist: its first sample at its listed start (the sum of the EXTINF
 *   durations before it) on its domain's timeline; in a media playlist of
 *   packed audio alone, the domain's anchor segment (see "Timeline") places
 *   the domain. A tag is read only within the segment's bytes and its own
 *   size, and never fails the item.
 * Strings are the player's copies (NULL when the attribute is absent),
 * valid until the item is closed or replaced or the player destroyed.
 */
typedef struct fpx_hls_variant {
    size_t struct_size;
    int is_iframe;              /**< EXT-X-I-FRAME-STREAM-INF: listed, never played */
    int selected;               /**< the variant the item plays */
    int64_t bandwidth;          /**< BANDWIDTH, bits per second */
    int64_t average_bandwidth;  /**< AVERAGE-BANDWIDTH; 0 absent */
    int width, height;          /**< RESOLUTION; 0 absent */
    int32_t frame_rate_num;     /**< FRAME-RATE, exactly; 0/0 absent */
    int32_t frame_rate_den;
    const char *codecs;         /**< CODECS as written */
    const char *hdcp_level;     /**< HDCP-LEVEL (TYPE-0, TYPE-1, NONE) */
    const char *audio_group;    /**< AUDIO group id */
} fpx_hls_variant;

typedef struct fpx_hls_rendition {
    size_t struct_size;
    fpx_media_type type;        /**< AUDIO, VIDEO, SUBTITLE; DATA for CLOSED-CAPTIONS */
    const char *group_id;
    const char *name;
    const char *language;       /**< LANGUAGE */
    const char *channels;       /**< CHANNELS as written, e.g. "2" */
    int is_default;             /**< DEFAULT=YES */
    int autoselect;             /**< AUTOSELECT=YES */
    int has_uri;                /**< a playlist of its own */
    int in_selected_group;      /**< named by the selected variant's AUDIO/VIDEO/SUBTITLES/CLOSED-CAPTIONS */
    int selected;               /**< the audio rendition the item plays as a second feed */
    int stream_index;           /**< its stream in the item when selected, else -1 */
} fpx_hls_rendition;

/** How many variants the READY item lists (0: none). Callback-safe: yes. */
FPX_API int fpx_player_hls_variant_count(fpx_player *player, int *count);
/** Variant `index` (0-based, playlist order); FPX_ERROR_INVALID_ARGUMENT
 *  outside [0, count). Callback-safe: yes. */
FPX_API int fpx_player_hls_variant(fpx_player *player, int index, fpx_hls_variant *variant);
/** How many renditions the READY item lists (0: none). Callback-safe: yes. */
FPX_API int fpx_player_hls_rendition_count(fpx_player *player, int *count);
/** Rendition `index` (0-based, playlist order); FPX_ERROR_INVALID_ARGUMENT
 *  outside [0, count). Callback-safe: yes. */
FPX_API int fpx_player_hls_rendition(fpx_player *player, int index, fpx_hls_rendition *rendition);
/**
 * Switches the READY item's separate audio to rendition `index` (0-based,
 * as fpx_player_hls_rendition lists them; TYPE=AUDIO with a URI, any group).
 * Never blocks: the switch takes effect at the next landing (the next seek
 * or frame step; to switch in place, seek to fpx_player_current_time). That
 * landing opens the rendition's playlist and lands it as described above,
 * and only then closes the old one's (as a variant switch does); from it
 * on, stream_index's packets and fpx_player_stream_info are the new
 * rendition's (read the stream facts again: codec, sample rate and
 * extradata may differ; pointers handed out for the old rendition stay
 * valid until the player is destroyed), and fpx_player_hls_rendition
 * reports it selected. A rendition that cannot be opened or landed fails
 * that landing with its error (typed, e.g. FPX_ERROR_NOT_FOUND for a
 * playlist that cannot be fetched; FPX_ERROR_UNSUPPORTED for one whose
 * stream count differs from the old one's): the switch is dropped (the old
 * rendition stays selected; ask again to retry; a landing cancelled or
 * superseded leaves it asked for) and the old rendition plays on, landed
 * where the variant landed. Asking for the rendition playing cancels a
 * switch not yet made. Returns FPX_OK, FPX_ERROR_INVALID_ARGUMENT (index names no
 * audio rendition with a URI), FPX_ERROR_UNSUPPORTED (the item plays no
 * separate audio: a file, a media playlist, muxed audio, hls_audio -1),
 * FPX_ERROR_NO_ITEM, FPX_ERROR_ITEM_NOT_READY. Callback-safe: yes.
 */
FPX_API int fpx_player_hls_select_audio(fpx_player *player, int index);
/**
 * Switches the READY item to variant `index` (0-based, as
 * fpx_player_hls_variant lists them). Never blocks: the choice is recorded,
 * and the variant playing goes on playing (reads, frame steps) until the
 * next seek, which makes the switch: to switch in place, seek to
 * fpx_player_current_time (FPX_PRECISION_EXACT lands on the new variant's
 * frame at that item time). That seek opens the new variant's playlist (and, for
 * an item with separate audio, the audio rendition playing or asked for,
 * again) and lands there with an ordinary outcome; the packets after it
 * are the new variant's, and fpx_hls_variant.selected names it.
 * No automatic bitrate adaptation is made.
 * Timeline: item time is the same on every variant. The variant the item
 * opened with places the item timeline ("Timeline" in "Live and DVR HLS");
 * every other variant's frames sit on it by that variant's placement of
 * the same discontinuity domain (each frame at its pts distance from the
 * domain's origin; RFC 8216 6.2.4: matching content has matching
 * timestamps), its segments aligned by media sequence number (by date when
 * both playlists carry one), as an audio rendition's are. So a seek to T
 * lands on the new variant's frame at item time T, fpx_item_info.start_pts
 * and item_origin_pts keep their values, and a seek to T after switching
 * back gives the frame it gave before.
 * Stream facts: the item keeps its stream list; from the switch on,
 * fpx_player_stream_info describes the new variant's streams (width,
 * height, codec parameters, extradata may differ: read them again;
 * pointers handed out for the old variant stay valid until the player is
 * destroyed). Streams disabled with fpx_player_set_stream_enabled stay
 * disabled. The audio rendition playing stays (also when the new variant
 * names another AUDIO group); in_selected_group keeps describing the
 * variant the item opened with. Holes of every variant's playlist are
 * counted in the item's segments_skipped.
 * A switch that fails fails that seek with its error (typed, e.g.
 * FPX_ERROR_NOT_FOUND or FPX_ERROR_NETWORK for a playlist that cannot be
 * fetched; FPX_ERROR_UNSUPPORTED for a variant whose stream count,
 * reference stream or time base differ from the item's), the old variant
 * plays on and the switch is dropped (selected still names the old one;
 * ask again to retry); a seek cancelled or superseded leaves it asked for.
 * Asking for the variant playing cancels a switch not yet made.
 * Returns FPX_OK, FPX_ERROR_INVALID_ARGUMENT (index outside [0, count) or
 * an I-frame variant), FPX_ERROR_UNSUPPORTED (the item was not opened
 * through a master playlist: a file, a media playlist), FPX_ERROR_NO_ITEM,
 * FPX_ERROR_ITEM_NOT_READY. Callback-safe: yes.
 */
FPX_API int fpx_player_hls_select_variant(fpx_player *player, int index);

/* ======================================================================= */
/* DASH (added in 0.4.0)                                                   */
/* ======================================================================= */

/*
 * A DASH MPD (a URL ending in .mpd, or any URL or file whose body is an MPD)
 * is read by the library's own DASH layer and played on the HLS segment
 * path; libavformat's dash demuxer is never used (no open lets it run). What
 * "Live and DVR HLS" and "HLS variants and renditions" say of an item opened
 * through a master playlist holds for it, as follows.
 * - Static and dynamic (live) MPDs, of one Period or several. A
 *   Representation's segments come from a SegmentTemplate ($Number$, $Time$,
 *   $RepresentationID$, $Bandwidth$, $$, format tags %0<w>d), with or
 *   without a SegmentTimeline (S@t, @d, @r; r=-1 repeats up to the next
 *   S@t, else to the Period's end); a SegmentList (SegmentURL@media and
 *   @mediaRange, Initialization@sourceURL and @range); a SegmentBase with
 *   @indexRange (its sidx is fetched, one closed range request, and each
 *   reference is a byte-range segment; Initialization@range, else the bytes
 *   before the index, initialises); or a BaseURL alone (the whole resource
 *   is one segment). Segment information is inherited from the Period and
 *   AdaptationSet. BaseURL is resolved at MPD, Period, AdaptationSet and
 *   Representation level (RFC 3986, against the MPD's URL; the first BaseURL
 *   of a level, alternatives are not tried), under the protocol policy of a
 *   playlist's URIs (an MPD from the network names http and https only).
 *   Byte ranges are fetched as "Byte ranges" says.
 * - Timeline: an HLS item's ("Timeline"), each Period a discontinuity
 *   domain (its first packets flagged as after EXT-X-DISCONTINUITY): item
 *   time 0 is the first segment's first frame, segments are listed back to
 *   back by their MPD durations (exact, on one timescale), a Period ending
 *   where the next starts (@start, else its @duration), and frames are
 *   placed by their pts from their Period's first segment. A later Period's
 *   representation is the one at the same place as the first Period's (the
 *   same audio and video adaptation sets in order, as many representations
 *   in each).
 * - Variants and renditions: the Representations of the video
 *   AdaptationSets, in document order, are the variants (fpx_hls_variant:
 *   bandwidth, width and height, codecs, frame rate from the MPD), chosen at
 *   open by hls_variant, hls_max_bandwidth and hls_max_height and switched
 *   by fpx_player_hls_select_variant like HLS variants. Each audio
 *   AdaptationSet is one AUDIO rendition of group "audio" (named by its
 *   Label, else lang, else id; the first is DEFAULT), chosen by hls_audio
 *   and switched by fpx_player_hls_select_audio, played as "Separate
 *   audio". The rendition plays the set's highest-bandwidth Representation
 *   (the first of equal ones in document order): an HLS rendition is one
 *   playlist, so no HLS rule chooses among an audio set's qualities; its
 *   other Representations are neither listed nor fetched, and
 *   hls_max_bandwidth, hls_max_height and the variant choice do not apply
 *   to them. An MPD without
 *   video has its first audio AdaptationSet's Representations as variants.
 *   Text and image AdaptationSets, and AdaptationSets or Representations
 *   with an EssentialProperty (ISO/IEC 23009-1 5.8.4.8), are left out. Only
 *   the chosen Representations' initialization and segments are fetched;
 *   an audio rendition's feed, and a variant switched to, fetch the MPD
 *   again.
 * - Live: a dynamic MPD is a live item ("Live and DVR HLS"). The MPD's
 *   clock: a segment at time t of a Period starting at S is at
 *   availabilityStartTime + S + (t - presentationTimeOffset) / timescale,
 *   for date seeks and the window's dates. Its wall clock ("now") is read
 *   at every load of the MPD from its first UTCTiming element of a scheme
 *   the layer reads: urn:mpeg:dash:utc:direct:2014 (the @value itself),
 *   urn:mpeg:dash:utc:http-xsdate:2014 and http-iso:2014 (the body, at most
 *   256 bytes, of the first URL of @value, resolved against the MPD's,
 *   fetched under the protocol policy of the MPD's URIs: an xs:dateTime
 *   with a zone); urn:mpeg:dash:utc:http-head:2014 (the Date field, an
 *   IMF-fixdate such as "Sun, 06 Nov 1994 08:49:37 GMT", of the answer to
 *   one HEAD request to that URL, under the same policy, sent over FFmpeg's
 *   tcp or tls with Connection: close and without the URL's user
 *   information: a 2xx answer whose head ends within 8,192 bytes; no
 *   redirect is followed); unknown schemes are skipped; without one, the
 *   host's clock. A time source that fails, or answers otherwise, fails the
 *   load: FPX_ERROR_INVALID_DATA (FPX_ERROR_TIMEOUT, FPX_ERROR_TOO_LARGE,
 *   FPX_ERROR_PROTOCOL_NOT_ALLOWED and the I/O errors as for any fetch).
 *   The window is the segments available at that clock: a segment is
 *   listed once its end is at or before now, and until
 *   its end falls timeShiftBufferDepth or more behind now (without
 *   timeShiftBufferDepth, while the MPD lists it). A SegmentTimeline or
 *   SegmentList gives the candidates; a SegmentTemplate with @duration and
 *   no SegmentTimeline ("number-based") makes segment k (from 0, number
 *   startNumber + k, $Time$ presentationTimeOffset + k x @duration) span
 *   [k, k + 1) x @duration / timescale of its Period, none past the
 *   Period's end, at most the newest 1,000,000 (the segment cap) when
 *   there is no timeShiftBufferDepth. The MPD is fetched again (and the
 *   window recomputed) every target duration (the longest segment, rounded
 *   up to whole seconds; half of it after a reload that changed nothing),
 *   or every minimumUpdatePeriod when that is shorter and positive (a
 *   longer one, as ffmpeg's number-based MPDs give, does not slow the
 *   window: it moves with the clock). The live edge is
 *   suggestedPresentationDelay before the newest listed segment's end (3
 *   target durations without it). publishTime is read (it must be an
 *   xs:dateTime) but not used. A dynamic MPD that turns static ends the
 *   item.
 * - fpx_item_info.format_name is "dash (fastpixseek)".
 * - Bounds: a playlist's ("HLS playlists" in section 8: the MPD's size,
 *   1,000,000 segments a Representation, the byte budget), and at most
 *   max_buffer_bytes / 256 XML elements (from 1,000 to 1,000,000; 262,144
 *   with the default cap), nested at most 32 deep, 256 attributes each.
 *   Past them, FPX_ERROR_TOO_LARGE.
 * Refusals (the open fails; the log names what was refused):
 * - FPX_ERROR_ENCRYPTION: ContentProtection anywhere in the MPD, naming
 *   each scheme (cenc with its value; Widevine, PlayReady, FairPlay,
 *   ClearKey, W3C common PSSH by system id; else the schemeIdUri).
 * - FPX_ERROR_UNSUPPORTED: a dynamic MPD whose Representation has neither a
 *   SegmentTemplate nor a SegmentList (a SegmentBase or a lone BaseURL),
 *   Periods whose adaptation sets or representations
 *   differ in place or count, xlink, Representation@dependencyId, $SubNumber$, a SegmentBase
 *   without indexRange, a hierarchical sidx, a SegmentTimeline with a gap or
 *   overlap between S elements, S@r=-1 with nothing to end it, an
 *   AdaptationSet of both audio and video, a DOCTYPE with an internal
 *   subset (no DTD is read, no entity expanded).
 * - FPX_ERROR_INVALID_DATA: XML that is not well-formed or not UTF-8, a root
 *   that is not MPD, a dynamic MPD without availabilityStartTime, a dynamic
 *   MPD with no segment available at its clock, a timeShiftBufferDepth,
 *   minimumUpdatePeriod or suggestedPresentationDelay that is not an
 *   xs:duration, an availabilityStartTime or publishTime that is not an
 *   xs:dateTime with a zone, a UTCTiming without schemeIdUri, a known one
 *   without value, a direct one whose value is not such an xs:dateTime, a
 *   time source whose body is not one (a time source that cannot be
 *   fetched fails with the fetch's error: FPX_ERROR_IO, FPX_ERROR_TIMEOUT,
 *   FPX_ERROR_TOO_LARGE past 256 bytes, FPX_ERROR_PROTOCOL_NOT_ALLOWED outside
 *   the protocol policy), a missing or malformed element or attribute (an unknown
 *   template identifier, a format tag other than %0<w>d, a byte range that
 *   is not first-last, an xs:duration with years or months, a
 *   Representation without @id or @bandwidth, ...), no audio or video
 *   Representation.
 */

/* ======================================================================= */
/* Seek previews (added in 0.4.0)                                          */
/* ======================================================================= */

/*
 * The picture a scrub bar shows under the finger. A player is given one
 * preview source (fpx_player_set_preview_source) and asked for the preview
 * of any time (fpx_player_preview), in rational time, with the clamp rule of
 * seeks (a time before the source's range is moved to its start, one past
 * its end to its end; fpx_clamp_kind says which):
 * - a spritesheet.json ({"url", "tile_width", "tile_height", "duration",
 *   "tiles": [{"start", "x", "y"}, ...]}, each tile optionally with its own
 *   "url"; what `fpx-seek sprite` writes) or a WebVTT thumbnail track (cues
 *   whose payload is IMAGE#xywh=x,y,w,h): the preview of t is the tile of
 *   the last tile (cue) whose start is at or before t, as the image's URL
 *   and the tile's rectangle in it. The range is [first start, the later of
 *   "duration" (the last cue's end) and the last start]. A JSON start is the
 *   number of seconds it writes rounded down to the microsecond (so a time
 *   exactly at a landed frame's time gets that frame's tile, whatever the
 *   decimal rounding of the JSON number); a cue's start is its millisecond
 *   timestamp, exactly. Tiles with equal starts: the last one written.
 * - the item's keyframe index (FPX_PREVIEW_KEYFRAME_INDEX): the preview of t
 *   is the keyframe at or before t on the reference stream, as that
 *   keyframe's packet, for the host's own decoder (the stream's codec
 *   parameters are fpx_player_stream_info's of the item). It is read by the
 *   preview's own demuxer (the item's URL opened a second time, with the
 *   player's protocol policy, timeouts and buffer cap), never the player's:
 *   the packets fpx_player_read_packet returns, the seeks and their landings
 *   are not disturbed. The range is that demuxer's seekable range.
 * - an HLS I-frame playlist (FPX_PREVIEW_HLS_IFRAMES; EXT-X-I-FRAMES-ONLY,
 *   each I-frame fetched by its exact byte range): the same, from the
 *   I-frames it lists, read by the preview's own demuxer. Its item time 0 is
 *   its first I-frame (the variant's first frame when both start together).
 * - nothing: FPX_ERROR_NO_PREVIEW, which the host turns into a
 *   timestamp-only preview.
 *
 * Threads. Both calls run on the calling thread, never on the player's
 * worker or the event thread, and take no lock that a seek, a read or an
 * event delivery holds while it waits on I/O: a preview never waits for a
 * seek in flight (on a stalled server, say), and a seek, a read or an event
 * never waits for a preview. Preview calls on one player are serialised
 * with each other (one waits while another loads a source or reads a
 * keyframe). Sheet and track previews do no I/O at all: a scrub at touch
 * rate costs a binary search per call.
 */

/** Where a player's previews come from. */
typedef enum fpx_preview_kind {
    FPX_PREVIEW_NONE = 0,           /**< no preview source */
    FPX_PREVIEW_SPRITESHEET = 1,    /**< a spritesheet.json (file or URL) */
    FPX_PREVIEW_WEBVTT = 2,         /**< a WebVTT thumbnail track (file or URL) */
    FPX_PREVIEW_KEYFRAME_INDEX = 3, /**< the item's keyframes, read by the preview's own demuxer */
    FPX_PREVIEW_HLS_IFRAMES = 4     /**< an HLS I-frame playlist (EXT-X-I-FRAMES-ONLY), read by the preview's own demuxer */
} fpx_preview_kind;

/** The field of a preview source that is malformed (FPX_ERROR_PREVIEW_MALFORMED), or whose URL the protocol policy refused. */
typedef enum fpx_preview_field {
    FPX_PREVIEW_FIELD_NONE = 0,         /**< no field: the source is fine, or the error is not about one */
    FPX_PREVIEW_FIELD_SYNTAX = 1,       /**< not UTF-8 JSON whose top is an object (nested at most 32 deep); a WebVTT track without its WEBVTT line */
    FPX_PREVIEW_FIELD_URL = 2,          /**< "url" missing, not a non-empty string, or refused by the protocol policy */
    FPX_PREVIEW_FIELD_TILE_WIDTH = 3,   /**< "tile_width" missing or not an integer in 1..16384 */
    FPX_PREVIEW_FIELD_TILE_HEIGHT = 4,  /**< "tile_height" missing or not an integer in 1..16384 */
    FPX_PREVIEW_FIELD_DURATION = 5,     /**< "duration" missing or not a number in 0..1e9 seconds */
    FPX_PREVIEW_FIELD_TILES = 6,        /**< "tiles" missing, not an array of objects, empty, or more than FPX_PREVIEW_MAX_TILES (a track: no cue, or more than that many) */
    FPX_PREVIEW_FIELD_TILE_START = 7,   /**< a tile's "start" missing or not a number in 0..1e9 seconds */
    FPX_PREVIEW_FIELD_TILE_X = 8,       /**< a tile's "x" missing, not an integer, negative, or x + tile_width past FPX_PREVIEW_MAX_IMAGE_SIDE */
    FPX_PREVIEW_FIELD_TILE_Y = 9,       /**< a tile's "y" missing, not an integer, negative, or y + tile_height past FPX_PREVIEW_MAX_IMAGE_SIDE */
    FPX_PREVIEW_FIELD_TILE_URL = 10,    /**< a tile's "url" not a non-empty string, or refused by the protocol policy */
    FPX_PREVIEW_FIELD_CUE_TIMING = 11,  /**< a cue's timing line that does not parse ([hh:]mm:ss.ttt --> [hh:]mm:ss.ttt), or ends before it starts */
    FPX_PREVIEW_FIELD_CUE_XYWH = 12     /**< a cue's payload not IMAGE#xywh=[pixel:]x,y,w,h with integers (w, h 1..16384, the rectangle within FPX_PREVIEW_MAX_IMAGE_SIDE), or its image refused by the protocol policy */
} fpx_preview_field;

/** The most bytes a spritesheet.json or WebVTT track may have (1 MiB, or max_buffer_bytes when smaller): FPX_ERROR_TOO_LARGE past it. */
#define FPX_PREVIEW_MAX_SOURCE_BYTES (1 << 20)
/** The most tiles (cues) a preview source may have. */
#define FPX_PREVIEW_MAX_TILES 100000
/** The image cap: every tile's rectangle lies within a FPX_PREVIEW_MAX_IMAGE_SIDE-pixel square (what `fpx-seek sprite` writes at most). */
#define FPX_PREVIEW_MAX_IMAGE_SIDE 16384

/**
 * A preview, filled by fpx_player_preview (the output-struct rule: set
 * struct_size to sizeof(fpx_preview) first; the library never writes past
 * it). Sheet and track previews fill image_url and the rectangle
 * (stream_index -1, data NULL); keyframe previews fill the packet fields
 * (image_url NULL, rectangle 0).
 */
typedef struct fpx_preview {
    size_t struct_size;
    fpx_preview_kind kind;
    fpx_clamp_kind clamp;     /**< FPX_CLAMP_NONE, or how `time` was moved into the source's range */
    fpx_time requested_time;  /**< t as asked */
    fpx_time time;            /**< t after the clamp: the time looked up */
    fpx_time start;           /**< the tile's start (a cue's start), or the keyframe's item time */
    fpx_time end;             /**< sheets and tracks: the next tile's start, or the range's end for the last tile (the preview holds for [start, end)); keyframes: invalid */
    /** The tile's image: the source's URL resolved against the source's own
     *  URL (relative names are relative to it). Valid until the next
     *  fpx_player_set_preview_source on this player or fpx_player_destroy. */
    const char *image_url;
    int32_t x, y, width, height; /**< the tile's rectangle in the image, pixels */
    int32_t stream_index;     /**< keyframes: the reference stream; else -1 */
    uint32_t flags;           /**< keyframes: the packet's FPX_PACKET_FLAG_* (KEY set) */
    /** Keyframes: the keyframe's packet (data, size, and FFmpeg's AVPacket).
     *  Valid until the next fpx_player_preview or fpx_player_set_preview_source
     *  on this player, or fpx_player_destroy, whichever comes first. */
    const uint8_t *data;
    size_t size;
    int64_t pts;              /**< keyframes: the packet's pts and dts, stream ticks; else FPX_NOPTS */
    int64_t dts;
    const void *av_packet;
} fpx_preview;

/**
 * Gives the player a preview source, replacing the one it had (the images
 * and packets handed out for the old one are then invalid).
 * FPX_PREVIEW_SPRITESHEET, FPX_PREVIEW_WEBVTT: url (a path or URL) is
 * checked against the player's protocol policy as an item's URL is
 * (FPX_ERROR_PROTOCOL_NOT_ALLOWED; a local target that is no regular file:
 * FPX_ERROR_UNSUPPORTED), read whole and parsed here, on the calling thread
 * (blocking: bounded as one download is, by io_timeout_ms, see "Time
 * bounds"). More than FPX_PREVIEW_MAX_SOURCE_BYTES: FPX_ERROR_TOO_LARGE. A
 * field that does not parse: FPX_ERROR_PREVIEW_MALFORMED with *bad_field
 * naming it. Each image URL is resolved against url and checked against the
 * policy too, as content from the network when url is remote (http and
 * https only): FPX_ERROR_PROTOCOL_NOT_ALLOWED (FPX_ERROR_UNSUPPORTED for a
 * URL of no protocol FFmpeg knows, or a local image that is no regular file)
 * with *bad_field FPX_PREVIEW_FIELD_URL, _TILE_URL or _CUE_XYWH. Images are
 * not fetched.
 * FPX_PREVIEW_KEYFRAME_INDEX and FPX_PREVIEW_NONE: url must be NULL; nothing
 * is read here (the keyframe demuxer opens at the first fpx_player_preview).
 * FPX_PREVIEW_HLS_IFRAMES: url names the I-frame playlist (a path or URL
 * under the protocol policy, as an item's), or is NULL for the first
 * I-frame variant of the item's master playlist (checked as content of the
 * master: http and https only when the master is remote); nothing is read
 * here.
 * bad_field may be NULL; when not, it is set on every return
 * (FPX_PREVIEW_FIELD_NONE unless a field is to blame). On any error the
 * player has no preview source (FPX_PREVIEW_NONE).
 * Returns FPX_OK, FPX_ERROR_INVALID_HANDLE, FPX_ERROR_UNKNOWN_ENUM (kind),
 * FPX_ERROR_INVALID_ARGUMENT (url NULL for a sheet or track, not NULL
 * for the keyframe index or none), FPX_ERROR_PREVIEW_MALFORMED,
 * FPX_ERROR_TOO_LARGE, FPX_ERROR_PROTOCOL_NOT_ALLOWED, FPX_ERROR_UNSUPPORTED, FPX_ERROR_NOT_FOUND,
 * FPX_ERROR_TIMEOUT, FPX_ERROR_NETWORK, FPX_ERROR_CANCELLED (the player was
 * destroyed meanwhile), and the other errors of a download (FPX_ERROR_IO...).
 * Callback-safe: no.
 */
FPX_API int fpx_player_set_preview_source(fpx_player *player, fpx_preview_kind kind, const char *url,
                                          fpx_preview_field *bad_field);

/**
 * The preview of time t (see "Seek previews"), into *preview.
 * Sheets and tracks: no I/O, never blocks. Keyframe index and I-frame
 * playlist: blocking, on the calling thread: the first call (and the first
 * after the item changed) opens the item's URL (the I-frame playlist) with
 * the preview's own demuxer, bounded as an open is;
 * each call positions that demuxer and reads up to the keyframe, bounded as
 * a seek is. fpx_player_destroy interrupts it (FPX_ERROR_CANCELLED).
 * Returns FPX_OK, FPX_ERROR_INVALID_HANDLE, FPX_ERROR_INVALID_ARGUMENT
 * (preview NULL or its struct_size too small), FPX_ERROR_INVALID_TIME,
 * FPX_ERROR_NO_PREVIEW (no source), and for the keyframe index
 * FPX_ERROR_NO_ITEM, FPX_ERROR_ITEM_NOT_READY, FPX_ERROR_ITEM_FAILED (the
 * keyframe index and an I-frame variant of the item), FPX_ERROR_NO_PREVIEW
 * also for FPX_PREVIEW_HLS_IFRAMES without a url when the item lists no
 * I-frame variant, FPX_ERROR_TIMEOUT (the preview's demuxer stalled),
 * FPX_ERROR_CANCELLED (fpx_player_destroy meanwhile) and the other errors of
 * an open and a seek.
 * *preview is untouched on error. Callback-safe: no.
 */
FPX_API int fpx_player_preview(fpx_player *player, fpx_time t, fpx_preview *preview);

/* ======================================================================= */
/* Enum strings                                                            */
/* ======================================================================= */

/*
 * Static names for enum values ("FPX_FINISH_SUPERSEDED"); "FPX_UNKNOWN" for
 * values this library does not define. Never NULL.
 */

/** The name of an fpx_finish_reason value. Callback-safe: yes. */
FPX_API const char *fpx_finish_reason_name(int reason);
/** The name of an fpx_clamp_kind value. Callback-safe: yes. */
FPX_API const char *fpx_clamp_kind_name(int kind);
/** The name of an fpx_landing_resolution value. Callback-safe: yes. */
FPX_API const char *fpx_landing_resolution_name(int resolution);
/** The name of an fpx_item_status value. Callback-safe: yes. */
FPX_API const char *fpx_item_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* FASTPIX_SEEK_H */
