/* Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit. */
/* Every leaf member of every output struct of seek.h, in declaration order, after
 * struct_size: FPX_FIELDS_<struct>(X) calls X(T, path), path a member or a dotted
 * path into a member of struct type. FPX_OUTPUT_STRUCTS(Y) calls Y(T) for each. */
#ifndef FPX_TEST_ABI_FIELDS_H
#define FPX_TEST_ABI_FIELDS_H

#define FPX_FIELDS_fpx_date_seek_result(X) \
    X(fpx_date_seek_result, seeked) \
    X(fpx_date_seek_result, outcome) \
    X(fpx_date_seek_result, reason) \
    X(fpx_date_seek_result, requested_date_us) \
    X(fpx_date_seek_result, window_start_date_us) \
    X(fpx_date_seek_result, window_end_date_us) \
    X(fpx_date_seek_result, explanation)

#define FPX_FIELDS_fpx_ffmpeg_version_info(X) \
    X(fpx_ffmpeg_version_info, avformat_build) \
    X(fpx_ffmpeg_version_info, avformat_runtime) \
    X(fpx_ffmpeg_version_info, avcodec_build) \
    X(fpx_ffmpeg_version_info, avcodec_runtime) \
    X(fpx_ffmpeg_version_info, avutil_build) \
    X(fpx_ffmpeg_version_info, avutil_runtime) \
    X(fpx_ffmpeg_version_info, compatible)

#define FPX_FIELDS_fpx_frame_step_result(X) \
    X(fpx_frame_step_result, did_step) \
    X(fpx_frame_step_result, direction) \
    X(fpx_frame_step_result, landed_media_time.value) \
    X(fpx_frame_step_result, landed_media_time.timescale) \
    X(fpx_frame_step_result, landed_media_time.flags) \
    X(fpx_frame_step_result, reason) \
    X(fpx_frame_step_result, explanation) \
    X(fpx_frame_step_result, landed_stream_pts) \
    X(fpx_frame_step_result, packets_read)

#define FPX_FIELDS_fpx_hls_rendition(X) \
    X(fpx_hls_rendition, type) \
    X(fpx_hls_rendition, group_id) \
    X(fpx_hls_rendition, name) \
    X(fpx_hls_rendition, language) \
    X(fpx_hls_rendition, channels) \
    X(fpx_hls_rendition, is_default) \
    X(fpx_hls_rendition, autoselect) \
    X(fpx_hls_rendition, has_uri) \
    X(fpx_hls_rendition, in_selected_group) \
    X(fpx_hls_rendition, selected) \
    X(fpx_hls_rendition, stream_index)

#define FPX_FIELDS_fpx_hls_variant(X) \
    X(fpx_hls_variant, is_iframe) \
    X(fpx_hls_variant, selected) \
    X(fpx_hls_variant, bandwidth) \
    X(fpx_hls_variant, average_bandwidth) \
    X(fpx_hls_variant, width) \
    X(fpx_hls_variant, height) \
    X(fpx_hls_variant, frame_rate_num) \
    X(fpx_hls_variant, frame_rate_den) \
    X(fpx_hls_variant, codecs) \
    X(fpx_hls_variant, hdcp_level) \
    X(fpx_hls_variant, audio_group)

#define FPX_FIELDS_fpx_item_info(X) \
    X(fpx_item_info, stream_count) \
    X(fpx_item_info, reference_stream) \
    X(fpx_item_info, has_video) \
    X(fpx_item_info, duration.value) \
    X(fpx_item_info, duration.timescale) \
    X(fpx_item_info, duration.flags) \
    X(fpx_item_info, start_pts) \
    X(fpx_item_info, time_base_num) \
    X(fpx_item_info, time_base_den) \
    X(fpx_item_info, seekable) \
    X(fpx_item_info, format_name) \
    X(fpx_item_info, seekable_range_truncated)

#define FPX_FIELDS_fpx_item_status_info(X) \
    X(fpx_item_status_info, item_id) \
    X(fpx_item_status_info, status) \
    X(fpx_item_status_info, error) \
    X(fpx_item_status_info, av_error) \
    X(fpx_item_status_info, segments_skipped) \
    X(fpx_item_status_info, last_skipped_sequence) \
    X(fpx_item_status_info, last_skip_reason)

#define FPX_FIELDS_fpx_live_seek_window(X) \
    X(fpx_live_seek_window, is_available) \
    X(fpx_live_seek_window, is_live) \
    X(fpx_live_seek_window, is_date_addressable) \
    X(fpx_live_seek_window, start.value) \
    X(fpx_live_seek_window, start.timescale) \
    X(fpx_live_seek_window, start.flags) \
    X(fpx_live_seek_window, end.value) \
    X(fpx_live_seek_window, end.timescale) \
    X(fpx_live_seek_window, end.flags) \
    X(fpx_live_seek_window, duration.value) \
    X(fpx_live_seek_window, duration.timescale) \
    X(fpx_live_seek_window, duration.flags) \
    X(fpx_live_seek_window, duration_seconds) \
    X(fpx_live_seek_window, start_date_us) \
    X(fpx_live_seek_window, end_date_us) \
    X(fpx_live_seek_window, first_sequence) \
    X(fpx_live_seek_window, last_sequence) \
    X(fpx_live_seek_window, target_duration.value) \
    X(fpx_live_seek_window, target_duration.timescale) \
    X(fpx_live_seek_window, target_duration.flags) \
    X(fpx_live_seek_window, hold_back.value) \
    X(fpx_live_seek_window, hold_back.timescale) \
    X(fpx_live_seek_window, hold_back.flags)

#define FPX_FIELDS_fpx_packet(X) \
    X(fpx_packet, data) \
    X(fpx_packet, size) \
    X(fpx_packet, stream_index) \
    X(fpx_packet, pts) \
    X(fpx_packet, dts) \
    X(fpx_packet, duration) \
    X(fpx_packet, pos) \
    X(fpx_packet, flags) \
    X(fpx_packet, seek_id) \
    X(fpx_packet, av_packet) \
    X(fpx_packet, landed_pts) \
    X(fpx_packet, landed_pts_in_stream) \
    X(fpx_packet, trim_samples) \
    X(fpx_packet, landed_stream_index) \
    X(fpx_packet, item_origin_pts)

#define FPX_FIELDS_fpx_player_stats(X) \
    X(fpx_player_stats, seeks_issued) \
    X(fpx_player_stats, seeks_completed) \
    X(fpx_player_stats, seeks_superseded) \
    X(fpx_player_stats, seeks_cancelled) \
    X(fpx_player_stats, seeks_failed) \
    X(fpx_player_stats, packets_demuxed) \
    X(fpx_player_stats, bytes_read) \
    X(fpx_player_stats, events_delivered) \
    X(fpx_player_stats, index_frames) \
    X(fpx_player_stats, index_complete) \
    X(fpx_player_stats, segments_skipped)

#define FPX_FIELDS_fpx_preview(X) \
    X(fpx_preview, kind) \
    X(fpx_preview, clamp) \
    X(fpx_preview, requested_time.value) \
    X(fpx_preview, requested_time.timescale) \
    X(fpx_preview, requested_time.flags) \
    X(fpx_preview, time.value) \
    X(fpx_preview, time.timescale) \
    X(fpx_preview, time.flags) \
    X(fpx_preview, start.value) \
    X(fpx_preview, start.timescale) \
    X(fpx_preview, start.flags) \
    X(fpx_preview, end.value) \
    X(fpx_preview, end.timescale) \
    X(fpx_preview, end.flags) \
    X(fpx_preview, image_url) \
    X(fpx_preview, x) \
    X(fpx_preview, y) \
    X(fpx_preview, width) \
    X(fpx_preview, height) \
    X(fpx_preview, stream_index) \
    X(fpx_preview, flags) \
    X(fpx_preview, data) \
    X(fpx_preview, size) \
    X(fpx_preview, pts) \
    X(fpx_preview, dts) \
    X(fpx_preview, av_packet)

#define FPX_FIELDS_fpx_scrub_result(X) \
    X(fpx_scrub_result, outcome) \
    X(fpx_scrub_result, sample_count) \
    X(fpx_scrub_result, was_cancelled)

#define FPX_FIELDS_fpx_seek_outcome(X) \
    X(fpx_seek_outcome, seek_id) \
    X(fpx_seek_outcome, precision.kind) \
    X(fpx_seek_outcome, precision.tolerance.value) \
    X(fpx_seek_outcome, precision.tolerance.timescale) \
    X(fpx_seek_outcome, precision.tolerance.flags) \
    X(fpx_seek_outcome, finished) \
    X(fpx_seek_outcome, reason) \
    X(fpx_seek_outcome, error) \
    X(fpx_seek_outcome, requested_time) \
    X(fpx_seek_outcome, landed_time) \
    X(fpx_seek_outcome, latency) \
    X(fpx_seek_outcome, latency_ns) \
    X(fpx_seek_outcome, accuracy.requested_media_time.value) \
    X(fpx_seek_outcome, accuracy.requested_media_time.timescale) \
    X(fpx_seek_outcome, accuracy.requested_media_time.flags) \
    X(fpx_seek_outcome, accuracy.landed_media_time.value) \
    X(fpx_seek_outcome, accuracy.landed_media_time.timescale) \
    X(fpx_seek_outcome, accuracy.landed_media_time.flags) \
    X(fpx_seek_outcome, accuracy.tolerance_before.value) \
    X(fpx_seek_outcome, accuracy.tolerance_before.timescale) \
    X(fpx_seek_outcome, accuracy.tolerance_before.flags) \
    X(fpx_seek_outcome, accuracy.tolerance_after.value) \
    X(fpx_seek_outcome, accuracy.tolerance_after.timescale) \
    X(fpx_seek_outcome, accuracy.tolerance_after.flags) \
    X(fpx_seek_outcome, accuracy.within_requested_tolerance) \
    X(fpx_seek_outcome, accuracy.delta.value) \
    X(fpx_seek_outcome, accuracy.delta.timescale) \
    X(fpx_seek_outcome, accuracy.delta.flags) \
    X(fpx_seek_outcome, accuracy.delta_seconds) \
    X(fpx_seek_outcome, accuracy.absolute_delta_seconds) \
    X(fpx_seek_outcome, clamp.kind) \
    X(fpx_seek_outcome, clamp.did_clamp) \
    X(fpx_seek_outcome, clamp.requested.value) \
    X(fpx_seek_outcome, clamp.requested.timescale) \
    X(fpx_seek_outcome, clamp.requested.flags) \
    X(fpx_seek_outcome, clamp.clamped_to.value) \
    X(fpx_seek_outcome, clamp.clamped_to.timescale) \
    X(fpx_seek_outcome, clamp.clamped_to.flags) \
    X(fpx_seek_outcome, clamp.clamped_target.value) \
    X(fpx_seek_outcome, clamp.clamped_target.timescale) \
    X(fpx_seek_outcome, clamp.clamped_target.flags) \
    X(fpx_seek_outcome, clamp.explanation) \
    X(fpx_seek_outcome, resolution) \
    X(fpx_seek_outcome, frame_covers_target) \
    X(fpx_seek_outcome, landed_is_keyframe) \
    X(fpx_seek_outcome, stream_index) \
    X(fpx_seek_outcome, landed_stream_pts) \
    X(fpx_seek_outcome, stream_time_base_num) \
    X(fpx_seek_outcome, stream_time_base_den) \
    X(fpx_seek_outcome, packets_read) \
    X(fpx_seek_outcome, landed_past_hole)

#define FPX_FIELDS_fpx_stream_info(X) \
    X(fpx_stream_info, index) \
    X(fpx_stream_info, type) \
    X(fpx_stream_info, codec_id) \
    X(fpx_stream_info, codec_name) \
    X(fpx_stream_info, time_base_num) \
    X(fpx_stream_info, time_base_den) \
    X(fpx_stream_info, width) \
    X(fpx_stream_info, height) \
    X(fpx_stream_info, sample_rate) \
    X(fpx_stream_info, channels) \
    X(fpx_stream_info, video_delay) \
    X(fpx_stream_info, extradata) \
    X(fpx_stream_info, extradata_size) \
    X(fpx_stream_info, codecpar) \
    X(fpx_stream_info, profile) \
    X(fpx_stream_info, level) \
    X(fpx_stream_info, profile_name) \
    X(fpx_stream_info, pixel_format) \
    X(fpx_stream_info, bit_depth) \
    X(fpx_stream_info, sample_aspect_num) \
    X(fpx_stream_info, sample_aspect_den) \
    X(fpx_stream_info, frame_rate_num) \
    X(fpx_stream_info, frame_rate_den) \
    X(fpx_stream_info, real_frame_rate_num) \
    X(fpx_stream_info, real_frame_rate_den) \
    X(fpx_stream_info, color_range) \
    X(fpx_stream_info, color_primaries) \
    X(fpx_stream_info, color_transfer) \
    X(fpx_stream_info, color_space) \
    X(fpx_stream_info, color_range_name) \
    X(fpx_stream_info, color_primaries_name) \
    X(fpx_stream_info, color_transfer_name) \
    X(fpx_stream_info, color_space_name) \
    X(fpx_stream_info, chroma_location) \
    X(fpx_stream_info, chroma_location_name) \
    X(fpx_stream_info, field_order) \
    X(fpx_stream_info, has_display_matrix) \
    X(fpx_stream_info, rotation_degrees) \
    X(fpx_stream_info, sample_format) \
    X(fpx_stream_info, channel_layout) \
    X(fpx_stream_info, channel_mask) \
    X(fpx_stream_info, frame_size) \
    X(fpx_stream_info, initial_padding) \
    X(fpx_stream_info, trailing_padding) \
    X(fpx_stream_info, codec_tag) \
    X(fpx_stream_info, bit_rate) \
    X(fpx_stream_info, bits_per_coded_sample) \
    X(fpx_stream_info, bits_per_raw_sample) \
    X(fpx_stream_info, start_pts) \
    X(fpx_stream_info, duration_ts) \
    X(fpx_stream_info, frame_count) \
    X(fpx_stream_info, disposition) \
    X(fpx_stream_info, language)

#define FPX_OUTPUT_STRUCTS(Y) \
    Y(fpx_date_seek_result) \
    Y(fpx_ffmpeg_version_info) \
    Y(fpx_frame_step_result) \
    Y(fpx_hls_rendition) \
    Y(fpx_hls_variant) \
    Y(fpx_item_info) \
    Y(fpx_item_status_info) \
    Y(fpx_live_seek_window) \
    Y(fpx_packet) \
    Y(fpx_player_stats) \
    Y(fpx_preview) \
    Y(fpx_scrub_result) \
    Y(fpx_seek_outcome) \
    Y(fpx_stream_info)

#endif
