/*
 * memlimit -- N players working at once, for a run under a low address-space limit
 * (`ulimit -v`, RLIMIT_AS) by Tests/c/run.sh's "memory exhaustion" section (issue 26.6;
 * seek.h section 6, "Memory exhaustion").
 *
 *   memlimit FILE N
 *
 * Creates N FPX_DELIVERY_THREAD players (with a seek manager), opens FILE in each, waits for every item (60 s
 * each at most), then on each READY one an exact seek (fpx_player_seek_wait) to a time that
 * differs by player and 30 packets read, and destroys every player. Prints one JSON line:
 * how many calls of each kind returned FPX_OK and which error codes the others returned
 * ("codes": "call:name" -> count, e.g. "wait:FPX_ERROR_NO_MEMORY"; "outcome:" is a failed
 * seek's error).
 *
 * Exit status: 0 when every call returned FPX_OK or FPX_ERROR_NO_MEMORY (a failed seek
 * with error FPX_ERROR_NO_MEMORY, an item FAILED with it); 3 when another error code came
 * back (the driver shows which); 64 on bad usage. The host itself allocates nothing after
 * its player array and writes nothing to stderr: anything there is the library's.
 * A process the library aborts dies by SIGABRT (the driver checks the message).
 * A process that dies by SIGSEGV or SIGBUS first writes one line naming the shared object
 * the faulting instruction belongs to (dladdr on the signal context's instruction
 * pointer), "memlimit: SIGSEGV at 0x... in /path/libavformat.so.59 (symbol, offset 0x...)",
 * or for a jump to an address no object holds (a call through a null function pointer)
 * "at 0x0 in an unknown object, called from 0x... in OBJECT (...)", naming the caller from
 * the return address on top of the stack (x86-64), then the fault address and the thread's
 * name, so that the driver can tell FFmpeg's own crashes (seek.h section 6: what the
 * library cannot vouch for) from any other.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

#include <fastpix/seek.h>

#define MAX_CODES 64
enum { CREATE, SETUP, OPEN, WAIT, SEEK, OUTCOME, READ, DESTROY, KINDS };
static const char *kind_name[KINDS] = {"create", "setup", "open", "wait", "seek", "outcome", "read", "destroy"};
static int code_count[KINDS][MAX_CODES]; /* [call][-code] */
static int unexpected;
static int other_reasons; /* seeks that finished neither COMPLETED nor FAILED */

static void count(int kind, int rc)
{
    if (rc == FPX_OK)
        return;
    if (rc < 0 && -rc < MAX_CODES)
        code_count[kind][-rc]++;
    else
        code_count[kind][0]++;
    if (rc != FPX_ERROR_NO_MEMORY)
        unexpected++;
}

/* ---- crash attribution: which object the faulting instruction is in --------------------- */
static char alt_stack[64 * 1024];

static void put(const char *t)
{
    ssize_t r = write(2, t, strlen(t));
    (void)r;
}

static void put_hex(uintptr_t v)
{
    char b[2 + 2 * sizeof v + 1];
    int i, n = 2 * (int)sizeof v;
    b[0] = '0';
    b[1] = 'x';
    for (i = 0; i < n; i++)
        b[2 + i] = "0123456789abcdef"[(v >> (4 * (n - 1 - i))) & 15];
    b[2 + n] = 0;
    put(b);
}

/* " in OBJECT (SYMBOL)" for an address inside a loaded object; 0 when none holds it. */
static int put_object(uintptr_t a)
{
    Dl_info info;
    if (!a || !dladdr((void *)a, &info) || !info.dli_fname)
        return 0;
    put(" in ");
    put(info.dli_fname);
    put(" (");
    put(info.dli_sname ? info.dli_sname : "?");
    put(", offset ");
    put_hex(a - (uintptr_t)info.dli_fbase);
    put(")");
    return 1;
}

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    uintptr_t pc = 0, caller;
    char thread[17];
    (void)caller;
#if defined(__x86_64__)
    pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
#endif
    put(sig == SIGSEGV ? "memlimit: SIGSEGV at " : "memlimit: SIGBUS at ");
    put_hex(pc);
    /* dladdr is not async-signal-safe on paper; the process is ending either way. */
    if (!put_object(pc)) {
        put(" in an unknown object");
#if defined(__x86_64__)
        /* A call through a null (or wild) function pointer faults on its first instruction,
         * with the caller's return address on top of the stack: name that object instead. */
        caller = *(const uintptr_t *)(uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
        put(", called from ");
        put_hex(caller);
        if (!put_object(caller))
            put(" in an unknown object");
#endif
    }
    put(", fault address ");
    put_hex((uintptr_t)si->si_addr);
    if (prctl(PR_GET_NAME, thread, 0, 0, 0) == 0) {
        thread[sizeof thread - 1] = 0;
        put(", thread ");
        put(thread);
    }
    put("\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

static void attribute_crashes(void)
{
    stack_t st;
    struct sigaction sa;
    st.ss_sp = alt_stack;
    st.ss_size = sizeof alt_stack;
    st.ss_flags = 0;
    sigaltstack(&st, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

int main(int argc, char **argv)
{
    fpx_player **p;
    int n, i, k, created = 0, ready = 0, seeks_ok = 0, reads_ok = 0, first = 1;

    if (argc != 3 || (n = atoi(argv[2])) <= 0)
        return 64;
    attribute_crashes();
    p = calloc((size_t)n, sizeof *p);
    if (!p)
        return 64;
    for (i = 0; i < n; i++) {
        fpx_player_config c;
        int rc;
        fpx_player_config_init(&c);
        c.delivery = FPX_DELIVERY_THREAD;
        rc = fpx_player_create(&c, &p[i]);
        count(CREATE, rc);
        if (rc != FPX_OK) {
            p[i] = NULL;
            continue;
        }
        created++;
        count(SETUP, fpx_player_setup_seek_manager(p[i]));
        count(OPEN, fpx_player_open(p[i], argv[1]));
    }
    for (i = 0; i < n; i++) {
        int rc;
        if (!p[i])
            continue;
        rc = fpx_player_wait_item(p[i], 60000, NULL);
        count(WAIT, rc);
        if (rc == FPX_OK)
            ready++;
        else
            fpx_player_destroy(p[i]), p[i] = NULL;
    }
    for (i = 0; i < n; i++) {
        fpx_seek_outcome o;
        int rc, k;
        if (!p[i])
            continue;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        rc = fpx_player_seek_wait(p[i], fpx_time_make(1000 + (i % 7000), 1000), fpx_precision_exact(), 60000, &o);
        count(SEEK, rc);
        if (rc != FPX_OK)
            continue;
        if (o.reason == FPX_FINISH_FAILED) {
            count(OUTCOME, o.error);
            continue;
        }
        if (!o.finished) { /* nothing cancels or supersedes these seeks */
            other_reasons++;
            unexpected++;
            continue;
        }
        seeks_ok++;
        for (k = 0; k < 30; k++) {
            fpx_packet pk;
            memset(&pk, 0, sizeof pk);
            pk.struct_size = sizeof pk;
            rc = fpx_player_read_packet(p[i], &pk);
            if (rc == FPX_ERROR_EOF)
                break;
            count(READ, rc);
            if (rc != FPX_OK)
                break;
            reads_ok++;
        }
    }
    for (i = 0; i < n; i++)
        if (p[i])
            count(DESTROY, fpx_player_destroy(p[i]));
    free(p);
    printf("{\"players\":%d,\"created\":%d,\"ready\":%d,\"seeks_landed\":%d,\"seeks_other\":%d,\"packets\":%d,"
           "\"codes\":{", n, created, ready, seeks_ok, other_reasons, reads_ok);
    for (k = 0; k < KINDS; k++)
        for (i = 0; i < MAX_CODES; i++)
            if (code_count[k][i]) {
                printf("%s\"%s:%s\":%d", first ? "" : ",", kind_name[k], i ? fpx_error_name(-i) : "out-of-range",
                       code_count[k][i]);
                first = 0;
            }
    printf("}}\n");
    return unexpected ? 3 : 0;
}
