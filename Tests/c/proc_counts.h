/* Counters read from /proc/self, shared by the scale and descriptor tests (test_scale.c,
 * test_fd_exhaustion.c) and Benchmarks/idle_bench.c: one way of counting for all of them. */
#ifndef FPX_PROC_COUNTS_H
#define FPX_PROC_COUNTS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Open file descriptors of this process (the directory stream's own not counted); -1 if
 * /proc is not readable. */
static inline int proc_open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;
}

/* Threads of this process whose name (/proc/self/task/N/comm) starts with prefix; with ""
 * every thread, the main one included. -1 if /proc is not readable. */
static inline int proc_threads(const char *prefix)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char path[300], comm[64] = "";
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) && strncmp(comm, prefix, strlen(prefix)) == 0)
            n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

#endif
