/*
 * header_c99.c -- the public header compiles as strict C99:
 *   gcc -std=c99 -Wall -Wextra -Werror -pedantic -IInclude -fsyntax-only
 * (run.sh also tries -Wstrict-prototypes -Wmissing-prototypes -Wshadow).
 */
#include <fastpix/seek.h>
#include <fastpix/seek.h> /* include guard */

/* Compile-time facts the ABI relies on. */
typedef char fpx_check_version[FPX_VERSION == FPX_MAKE_VERSION(FPX_VERSION_MAJOR, FPX_VERSION_MINOR,
                                                               FPX_VERSION_PATCH) ? 1 : -1];
typedef char fpx_check_at_least[FPX_VERSION_AT_LEAST(0, 0, 1) ? 1 : -1];
typedef char fpx_check_nopts[FPX_NOPTS < 0 ? 1 : -1];
typedef char fpx_check_codes[FPX_ERROR_INTERNAL == -21 ? 1 : -1];
typedef char fpx_check_time_size[sizeof(fpx_time) == 16 ? 1 : -1];
typedef char fpx_check_size_first[offsetof(fpx_player_config, size) == 0 ? 1 : -1];
typedef char fpx_check_listener_first[offsetof(fpx_listener, size) == 0 ? 1 : -1];
typedef char fpx_check_outcome_first[offsetof(fpx_seek_outcome, struct_size) == 0 ? 1 : -1];

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    (void)o;
    (void)ud;
}

int fpx_header_use(void);
int fpx_header_use(void)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_seek_callback cb = on_done;
    fpx_precision pr = fpx_precision_exact();
    fpx_listener li;
    (void)cb;
    (void)pr;
    fpx_player_config_init(&cfg);
    fpx_listener_init(&li);
    if (fpx_player_create(&cfg, &p) != FPX_OK)
        return 1;
    fpx_player_seek(p, fpx_time_make(925, 10), fpx_precision_default(), on_done, NULL, NULL);
    return fpx_player_destroy(p);
}
