// The MPI test binary's own main (as OSPRay's MPI module has): MPI at the renderer's thread
// level, checked; GoogleTest's report from rank 0, and from every other rank only its
// failures, prefixed with the rank; exit code 1 when a test failed on any rank.

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "tests/mpi/mpi_world.h"

namespace bfv::test_support {

namespace {

const common::MpiSession* session = nullptr;

// Prints each failed assertion of this rank, prefixed with the rank.
class FailurePrinter : public testing::EmptyTestEventListener {
  public:
    explicit FailurePrinter(std::string prefix) : prefix_(std::move(prefix)) {}
    void OnTestPartResult(const testing::TestPartResult& result) override {
        if (!result.failed()) return;
        std::fprintf(stderr, "%s %s:%d: failure\n%s\n", prefix_.c_str(),
                     result.file_name() ? result.file_name() : "?", result.line_number(),
                     result.summary());
    }

  private:
    std::string prefix_;
};

// Keeps the ranks in step: no rank starts a test while another is still in the last one, so
// one test's messages never meet another's receives.
class BarrierAfterEachTest : public testing::EmptyTestEventListener {
  public:
    void OnTestEnd(const testing::TestInfo&) override {
        BFV_MPI_CHECK(MPI_Barrier(session->World().comm));
    }
};

}  // namespace

const common::Group& World() { return session->World(); }

}  // namespace bfv::test_support

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    bfv::common::MpiSession mpi;
    bfv::test_support::session = &mpi;
    const bfv::common::Group& world = mpi.World();
    if (auto ok = mpi.RequireThreadLevel(MPI_THREAD_MULTIPLE, "by the column receive tests"); !ok) {
        std::fprintf(stderr, "bfv_mpi_tests: %s\n", ok.error().message.c_str());
        return 1;
    }
    if (world.size < 3) {
        std::fprintf(stderr, "bfv_mpi_tests: run under mpiexec -n 3 or more (got %d)\n",
                     world.size);
        return 1;
    }
    if (world.rank != 0) {
        testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new bfv::test_support::FailurePrinter(world.LogPrefix()));
    }
    testing::UnitTest::GetInstance()->listeners().Append(
        new bfv::test_support::BarrierAfterEachTest);
    int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    int anyFailed = 0;
    BFV_MPI_CHECK(MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, world.comm));
    return mpi.Finish(anyFailed);
}
