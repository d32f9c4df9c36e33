// A bound on MPI_Finalize's endpoint closes over UCX's TCP transport, built into bfv.
//
// MPICH 4.0.2 (Debian's) closes every UCX endpoint in flush mode at MPI_Finalize, then waits in
// a PMI barrier without progressing UCX. Over UCX 1.13's TCP transport, flushing an endpoint
// that has sent anything needs an acknowledgement from the peer, and a peer already in the PMI
// barrier never sends it: with 3 or more ranks over TCP, MPI_Finalize hangs most of the time
// (openucx/ucx#8738; MPICH later removed the barrier, pmodels/mpich#6596). MpiSession's bound
// (common/mpi_group.h) then ends the rank after 5 s, but ranks still in the barrier lose their
// launcher and mpiexec exits 255 after a completed run.
//
// bfv therefore defines the two UCX calls MPICH makes there. Defined in the executable, they
// take the place of UCX's own for every library that calls them (the dynamic linker looks in
// the executable first), and forward to UCX's: ucp_disconnect_nb starts a clock at the first
// close, and ucp_request_is_completed reports a close complete once UCX does, or once
// kCloseLimitS has passed since the first one began. By then every message bfv sent has been
// received (each rank ends its protocol before MPI_Finalize), and bytes already handed to TCP
// are delivered by the kernel. Over shared memory the closes complete at once and nothing
// changes. BFV_UCX_CLOSE_LIMIT_S (seconds, > 0) overrides the limit.

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>

namespace {

constexpr double kCloseLimitS = 1.0;

double NowS() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double closeDeadlineS = -1.0;  // when closes count as complete; < 0 before the first close

// UCX's own definition of `name`: the next one after this executable's.
template <typename Function>
Function* Next(const char* name) {
    return reinterpret_cast<Function*>(dlsym(RTLD_NEXT, name));
}

}  // namespace

/// UCX's ucp_disconnect_nb(ep) (MPICH's endpoint close at MPI_Finalize), after starting the
/// close limit's clock at the first call. Returns UCX's request (or status pointer).
extern "C" void* ucp_disconnect_nb(void* ep) {
    static auto* const real = Next<void*(void*)>("ucp_disconnect_nb");
    if (closeDeadlineS < 0.0) {
        const char* limit = std::getenv("BFV_UCX_CLOSE_LIMIT_S");
        const double limitS = limit != nullptr ? std::atof(limit) : 0.0;
        closeDeadlineS = NowS() + (limitS > 0.0 ? limitS : kCloseLimitS);
    }
    return real(ep);
}

/// UCX's ucp_request_is_completed(request), or 1 once the close limit has passed: nonzero when
/// the request counts as complete.
extern "C" int ucp_request_is_completed(void* request) {
    static auto* const real = Next<int(void*)>("ucp_request_is_completed");
    if (real(request) != 0) return 1;
    return closeDeadlineS >= 0.0 && NowS() > closeDeadlineS ? 1 : 0;
}
