/* Helpers shared by the C benchmark programs: clocks, memory peaks, and
 * running a measurement in a forked child (Linux carries ru_maxrss across exec). */
#ifndef FPX_BENCH_COMMON_H
#define FPX_BENCH_COMMON_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long max_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss;
}

/* The peak RSS of this process image (VmHWM), from /proc/self/status; -1 if unknown. */
static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/*
 * Runs fn in a forked child and returns its exit status. Linux carries ru_maxrss across
 * execve (a process started by a large parent, like the Python driver, reports the parent's
 * peak), but a forked child starts its own count from the small process it was forked from.
 */
static int in_child(int (*fn)(int, char **), int argc, char **argv)
{
    int status = 0;
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        int r = fn(argc, argv);
        fflush(stdout);
        _exit(r);
    }
    if (waitpid(pid, &status, 0) < 0) {
        perror("waitpid");
        return 2;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* One benchmark target: the corpus segment it belongs to, and absolute stream ticks. */
typedef struct target {
    long segment;
    int64_t ticks;
} target;

/* Reads a targets file ("SEGMENT TICKS" lines, # comments); exits 2 on error. */
static target *read_targets(const char *prog, const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    char line[256];
    target *v = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        long seg;
        int64_t t;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%ld %" SCNd64, &seg, &t) != 2) {
            fprintf(stderr, "%s: bad target line: %s", prog, line);
            exit(2);
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = realloc(v, cap * sizeof *v);
            if (!v) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(2);
            }
        }
        v[n].segment = seg;
        v[n].ticks = t;
        n++;
    }
    fclose(f);
    *count = n;
    return v;
}

#endif
