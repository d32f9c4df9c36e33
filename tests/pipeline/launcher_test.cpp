#include "pipeline/launcher.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace bfv::pipeline {
namespace {

// Every variable a launcher may set, cleared for the test and restored after it (ctest may
// itself run under a launcher).
class Launcher : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const char* name : kNames) {
            const char* value = std::getenv(name);
            saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
            unsetenv(name);
        }
    }
    void TearDown() override {
        for (size_t i = 0; i < std::size(kNames); ++i) {
            if (saved_[i]) {
                setenv(kNames[i], saved_[i]->c_str(), 1);
            } else {
                unsetenv(kNames[i]);
            }
        }
    }

  private:
    static constexpr const char* kNames[] = {"PMI_RANK",
                                             "PMI_SIZE",
                                             "SLURM_PROCID",
                                             "SLURM_NTASKS",
                                             "OMPI_COMM_WORLD_RANK",
                                             "OMPI_COMM_WORLD_SIZE"};
    std::vector<std::optional<std::string>> saved_;
};

TEST_F(Launcher, WithoutALauncherTheProcessLeadsAlone) {
    EXPECT_TRUE(IsLeadProcess());
    EXPECT_EQ(LaunchedProcesses(), 1);
}

TEST_F(Launcher, HydraRankZeroLeadsTheOthersDoNot) {
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "4", 1);
    EXPECT_TRUE(IsLeadProcess());
    EXPECT_EQ(LaunchedProcesses(), 4);
    setenv("PMI_RANK", "3", 1);
    EXPECT_FALSE(IsLeadProcess());
}

TEST_F(Launcher, SlurmAndOpenMpiAreRead) {
    setenv("SLURM_PROCID", "2", 1);
    setenv("SLURM_NTASKS", "5", 1);
    EXPECT_FALSE(IsLeadProcess());
    EXPECT_EQ(LaunchedProcesses(), 5);
    unsetenv("SLURM_PROCID");
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "6", 1);
    EXPECT_TRUE(IsLeadProcess());
    EXPECT_EQ(LaunchedProcesses(), 6);
}

TEST_F(Launcher, ASizeThatIsNoPositiveNumberCountsAsOneProcess) {
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "zero", 1);
    EXPECT_EQ(LaunchedProcesses(), 1);
    unsetenv("PMI_SIZE");  // a rank without a size: one process
    EXPECT_EQ(LaunchedProcesses(), 1);
}

}  // namespace
}  // namespace bfv::pipeline
