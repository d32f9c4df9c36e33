#include "common/mpi_group.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

namespace bfv::common {

Group Group::World() {
    Group g;
    g.comm = MPI_COMM_WORLD;
    BFV_MPI_CHECK(MPI_Comm_rank(g.comm, &g.rank));
    BFV_MPI_CHECK(MPI_Comm_size(g.comm, &g.size));
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    BFV_MPI_CHECK(MPI_Get_processor_name(name, &length));
    std::vector<char> all(static_cast<size_t>(g.size) * MPI_MAX_PROCESSOR_NAME);
    BFV_MPI_CHECK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                                MPI_MAX_PROCESSOR_NAME, MPI_CHAR, g.comm));
    for (int r = 0; r < g.size; ++r) {
        const char* host = all.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME;
        g.hosts.emplace_back(host, strnlen(host, MPI_MAX_PROCESSOR_NAME));
    }
    return g;
}

std::string Group::LogPrefix() const {
    return "[r" + std::to_string(rank) + " " + (size >= 3 ? RoleName(role()) : "rank") + "]";
}

std::string Group::Describe(int otherRank) const {
    std::string role = "rank";
    if (size >= 3) {
        switch (RoleOf(otherRank, size)) {
            case Role::TerrainServer:
                role = "terrain server rank";
                break;
            case Role::RayTracer:
                role = "ray tracer rank";
                break;
            case Role::Display:
                role = "display rank";
                break;
        }
    }
    std::string where = otherRank >= 0 && otherRank < static_cast<int>(hosts.size())
                            ? " on host " + hosts[static_cast<size_t>(otherRank)]
                            : "";
    return role + " " + std::to_string(otherRank) + where;
}

bool RanksMaySpanHosts(const char* localRanks, const char* worldSize) {
    return localRanks == nullptr || worldSize == nullptr ||
           std::string_view(localRanks) != std::string_view(worldSize);
}

MpiSession::MpiSession(int requested) {
    if (RanksMaySpanHosts(std::getenv("MPI_LOCALNRANKS"), std::getenv("PMI_SIZE")))
        setenv("UCX_RNDV_THRESH", std::to_string(kEagerMessageBytes).c_str(), /*overwrite=*/0);
    BFV_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, requested, &provided_));
    BFV_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    world_ = Group::World();
}

int ReturnWithin(const std::function<int()>& call, double timeoutS, int exitCode,
                 const std::string& message) {
    std::mutex mutex;
    std::condition_variable returned;
    bool done = false;
    std::thread watchdog([&] {
        std::unique_lock lock(mutex);
        if (returned.wait_for(lock, std::chrono::duration<double>(timeoutS), [&] { return done; }))
            return;
        std::fprintf(stderr, "%s\n", message.c_str());
        std::fflush(stderr);
        std::_Exit(exitCode);
    });
    int result = call();
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    returned.notify_one();
    watchdog.join();
    return result;
}

MpiSession::~MpiSession() {
    std::string message = fmt::format(
        "{} MPI_Finalize did not return within {:g} s (a known MPICH 4.0.2 + UCX 1.13 hang "
        "over TCP, openucx/ucx#8738): exiting without it; every result is written",
        world_.LogPrefix(), kFinalizeTimeoutS);
    BFV_MPI_CHECK(
        ReturnWithin([] { return MPI_Finalize(); }, kFinalizeTimeoutS, exitCode_, message));
}

Expected<void> MpiSession::RequireThreadLevel(int required, const std::string& why) const {
    if (provided_ >= required) return {};
    return Error{std::string("this MPI library provides ") + ThreadLevelName(provided_) + ", but " +
                 ThreadLevelName(required) + " is needed " + why};
}

const char* ThreadLevelName(int level) {
    switch (level) {
        case MPI_THREAD_SINGLE:
            return "MPI_THREAD_SINGLE";
        case MPI_THREAD_FUNNELED:
            return "MPI_THREAD_FUNNELED";
        case MPI_THREAD_SERIALIZED:
            return "MPI_THREAD_SERIALIZED";
        case MPI_THREAD_MULTIPLE:
            return "MPI_THREAD_MULTIPLE";
    }
    return "an unknown MPI thread level";
}

void CheckMpi(int code, const char* call, const char* file, int line) {
    if (code == MPI_SUCCESS) return;
    // The calls below only describe the failure; their own codes go unchecked, since a failure
    // there would have nowhere left to be reported.
    char message[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, message, &length);
    int initialized = 0, rank = -1;
    MPI_Initialized(&initialized);
    if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "bfv: rank %d: MPI call failed at %s:%d: %s: %s\n", rank, file, line, call,
                 message);
    std::fflush(stderr);
    AbortAfterMessage(MPI_COMM_WORLD, 2);
}

void AbortAfterMessage(MPI_Comm comm, int errorCode) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kAbortMessageGraceMs));
    MPI_Abort(comm, errorCode);
    std::abort();
}

}  // namespace bfv::common
