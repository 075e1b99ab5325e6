#define _POSIX_C_SOURCE 200809L
/* tls_ca_copy URL CA_FILE: "tls_ca_file ... Copied at create" (seek.h). The path lives in a
 * heap buffer that is overwritten and freed right after fpx_player_create; the open of URL
 * (an https server whose certificate CA_FILE's CA signed) must then still trust that CA.
 * Exits 0 when the item is READY, 1 otherwise (printing the status and error). */
#include <fastpix/seek.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    char *path;
    if (argc < 3) return 2;
    path = malloc(strlen(argv[2]) + 1);
    if (!path) return 2;
    strcpy(path, argv[2]);
    fpx_player_config_init(&cfg);
    cfg.tls_ca_file = path;
    if (fpx_player_create(&cfg, &p) != FPX_OK) return 1;
    memset(path, 'x', strlen(path)); /* a path that names nothing, then no memory at all */
    free(path);
    cfg.tls_ca_file = NULL;
    if (fpx_player_open(p, argv[1]) != FPX_OK) return 1;
    fpx_player_wait_item(p, 30000, &st);
    fpx_player_destroy(p);
    if (st.status != FPX_ITEM_READY) {
        fprintf(stderr, "status %d, error %s\n", (int)st.status, fpx_error_name(st.error));
        return 1;
    }
    return 0;
}
