// header_cxx.cpp -- the public header compiles as C++11:
//   g++ -std=c++11 -Wall -Wextra -Werror -pedantic -IInclude -fsyntax-only
// and its declarations have C linkage.
#include <fastpix/seek.h>
#include <fastpix/seek.h> // include guard

#include <type_traits>

static_assert(FPX_VERSION == FPX_MAKE_VERSION(FPX_VERSION_MAJOR, FPX_VERSION_MINOR, FPX_VERSION_PATCH),
              "FPX_VERSION packing");
static_assert(FPX_NOPTS == INT64_MIN, "FPX_NOPTS is INT64_MIN");
static_assert(FPX_ERROR_INTERNAL == -21, "error codes are never renumbered");
static_assert(sizeof(fpx_time) == 16, "fpx_time layout");
static_assert(std::is_standard_layout<fpx_seek_outcome>::value, "outcome is a C struct");
static_assert(std::is_trivially_copyable<fpx_seek_outcome>::value, "outcome is copyable");
static_assert(std::is_same<decltype(&fpx_player_seek),
                           int (*)(fpx_player *, fpx_time, fpx_precision, fpx_seek_callback, void *,
                                   uint64_t *)>::value,
              "fpx_player_seek signature");

extern "C" {
static void on_done(const fpx_seek_outcome *o, void *ud)
{
    (void)o;
    (void)ud;
}
}

namespace {
struct Host {
    fpx_player *p = nullptr;
    Host()
    {
        fpx_player_config cfg;
        fpx_player_config_init(&cfg);
        cfg.delivery = FPX_DELIVERY_HOST;
        fpx_player_create(&cfg, &p);
    }
    ~Host() { fpx_player_destroy(p); }
    int seek(double s)
    {
        return fpx_player_seek(p, fpx_time_from_seconds(s, 90000),
                               fpx_precision_nearest_keyframe(fpx_time_make(1, 2)), on_done, this, nullptr);
    }
};
} // namespace

int fpx_header_use();
int fpx_header_use()
{
    Host h;
    fpx_listener li;
    fpx_listener_init(&li);
    li.on_item_status = [](const fpx_item_status_info *s, void *) { (void)s; };
    return h.seek(92.5) + fpx_player_add_listener(h.p, &li, nullptr);
}
