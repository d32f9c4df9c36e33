/* Part of tools/emulated-cluster: an LD_PRELOAD shim that keeps MPI_Finalize from hanging.
 *
 * MPICH 4.0.2's MPI_Finalize closes every UCX endpoint in flush mode, then waits in a PMI
 * barrier without progressing UCX. Over UCX 1.13's TCP transport, flushing an endpoint that
 * has sent anything needs an acknowledgement from the peer (a zero-length PUT and its ACK), and
 * a peer already in the PMI barrier never sends it: with 3 or more ranks over TCP, MPI_Finalize
 * hangs most of the time (also on one host with UCX_TLS=tcp,self; cf. openucx/ucx#8738).
 *
 * `up` builds this into the run dir, and `launch` preloads it into Hydra's proxy on each host
 * (and so into the ranks, unless mpiexec passes its own LD_PRELOAD). It reports the endpoint
 * closes complete 1 s (BFV_EMU_FINALIZE_TIMEOUT_S) after they began, so that the rank goes on
 * to the barrier (every message was received before MPI_Finalize, and bytes already handed to
 * TCP are delivered by the kernel). BFV_EMU_FINALIZE_SHIM=0 for mpiexec turns it off. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static double deadline = -1;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* MPICH calls it for every endpoint at MPI_Finalize: the first call starts the clock. */
void *ucp_disconnect_nb(void *ep) {
    static void *(*real)(void *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "ucp_disconnect_nb");
    if (deadline < 0) {
        const char *s = getenv("BFV_EMU_FINALIZE_TIMEOUT_S");
        deadline = now_s() + (s && *s ? atof(s) : 1.0);
    }
    return real(ep);
}

int ucp_request_is_completed(void *request) {
    static int (*real)(void *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "ucp_request_is_completed");
    if (real(request)) return 1;
    return deadline >= 0 && now_s() > deadline;
}
