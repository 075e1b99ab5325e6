/* Helpers shared by the C benchmark programs: clocks, memory peaks, and
 * running a measurement in a forked child (Linux carries ru_maxrss across exec). */
#ifndef FPX_BENCH_COMMON_H
#define FPX_BENCH_COMMON_H

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

#endif
