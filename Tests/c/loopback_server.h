/*
 * loopback_server.h -- an HTTP server on 127.0.0.1 for the C tests, on its own thread:
 * while `stall` is set it accepts each connection and holds it open, never reading or
 * answering (a stalled server); otherwise it answers each request with `serve_path`'s
 * bytes (200, the whole file; 404 when it is NULL or unreadable) and closes. Shared by
 * test_stalled_servers.c and test_preview.c. The flags are read with flag_get/flag_set
 * (check.h); loopback_server_stop closes every held connection and the socket.
 */
#ifndef FPX_TEST_LOOPBACK_SERVER_H
#define FPX_TEST_LOOPBACK_SERVER_H
#include "check.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct loopback_server {
    int listen_fd;
    int port;
    pthread_t thread;
    volatile int stop;
    volatile int stall;       /* 1: hold every connection, never answer */
    const char *serve_path;   /* the file every answered request gets (set while stalled) */
    int *held;                /* connections held open; beyond `cap` they are closed */
    int cap;
    volatile int n_held;
} loopback_server;

static void loopback_answer(const char *path, int fd)
{
    char req[4096], head[256];
    struct stat st;
    int f;
    ssize_t n = read(fd, req, sizeof req - 1);
    (void)n;
    f = path ? open(path, O_RDONLY) : -1;
    if (f < 0 || fstat(f, &st) != 0) {
        const char *nf = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        if (write(fd, nf, strlen(nf)) < 0) { /* the client went away */ }
    }
    else {
        char buf[65536];
        snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
                 (long long)st.st_size);
        if (write(fd, head, strlen(head)) >= 0)
            while ((n = read(f, buf, sizeof buf)) > 0)
                if (write(fd, buf, (size_t)n) != n)
                    break;
    }
    if (f >= 0)
        close(f);
    close(fd);
}

static void *loopback_main(void *arg)
{
    loopback_server *s = arg;
    while (!flag_get(&s->stop)) {
        struct pollfd pfd;
        int fd;
        pfd.fd = s->listen_fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, 50) <= 0)
            continue;
        fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0)
            continue;
        if (!flag_get(&s->stall))
            loopback_answer(s->serve_path, fd);
        else if (flag_get(&s->n_held) < s->cap) {
            s->held[flag_get(&s->n_held)] = fd;
            flag_set(&s->n_held, flag_get(&s->n_held) + 1);
        }
        else
            close(fd);
    }
    return NULL;
}

/* Listens on an ephemeral port of 127.0.0.1 (s->port) with `backlog`, holding at most `cap`
   connections while stalled, and starts the thread. */
static void loopback_server_start(loopback_server *s, int backlog, int cap, int stall)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(s, 0, sizeof *s);
    s->stall = stall;
    s->cap = cap;
    s->held = calloc((size_t)cap, sizeof *s->held);
    REQUIRE(s->held != NULL);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(s->listen_fd >= 0);
    REQUIRE(bind(s->listen_fd, (struct sockaddr *)&a, sizeof a) == 0);
    REQUIRE(listen(s->listen_fd, backlog) == 0);
    REQUIRE(getsockname(s->listen_fd, (struct sockaddr *)&a, &len) == 0);
    s->port = ntohs(a.sin_port);
    REQUIRE(pthread_create(&s->thread, NULL, loopback_main, s) == 0);
}

static void loopback_server_stop(loopback_server *s)
{
    int i;
    flag_set(&s->stop, 1);
    pthread_join(s->thread, NULL);
    for (i = 0; i < flag_get(&s->n_held); i++)
        close(s->held[i]);
    close(s->listen_fd);
    free(s->held);
    s->held = NULL;
}

#endif
