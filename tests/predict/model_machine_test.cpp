#include "predict/model_machine.h"

#include <gtest/gtest.h>

#include <vector>

namespace bfv::predict {
namespace {

// Section 2: doubling the CPU of a load at CPU% 0.5 gives "only a 25% speed up" (eq. 7).
TEST(ModelMachine, DoubleCpuSpeedAtHalfCpuGivesTwentyFivePercent) {
    const Load onM2 = MoveLoad({1.0, 0.5}, {1.0, 1.0}, {2.0, 1.0});
    EXPECT_NEAR(onM2.rtexS, 0.75, 1e-12);
    EXPECT_NEAR(onM2.cpuFraction, 1.0 / 3.0, 1e-12);  // eq. 8: 0.25 CPU-s of 0.75 s
}

// Section 2: SPECint95 3.33 -> 8.2 turns the 0.84 s frame into 0.34 s, "or 3 FPS".
TEST(ModelMachine, PentiumProRunsTheSeedFrameIn034Seconds) {
    const Load onM2 = MoveLoad({0.84, 1.0}, {3.33, 1.0}, {8.2, 1.0});
    EXPECT_NEAR(onM2.rtexS, 0.34, 0.005);
    EXPECT_NEAR(1.0 / onM2.rtexS, 3.0, 0.1);
    EXPECT_NEAR(onM2.cpuFraction, 1.0, 1e-12);
}

TEST(ModelMachine, WaitTimeFollowsPeripheralSpeed) {
    EXPECT_NEAR(WaitS({2.0, 0.25}), 1.5, 1e-12);                      // eq. 4
    EXPECT_NEAR(WaitSOnM2(1.5, {1.0, 1.0}, {1.0, 3.0}), 0.5, 1e-12);  // eq. 6
    EXPECT_NEAR(CpuSOnM2(0.5, {2.0, 1.0}, {1.0, 1.0}), 1.0, 1e-12);   // eq. 5
    const Load onM2 = MoveLoad({2.0, 0.25}, {1.0, 1.0}, {1.0, 3.0});
    EXPECT_NEAR(onM2.rtexS, 1.0, 1e-12);
    EXPECT_NEAR(onM2.cpuFraction, 0.5, 1e-12);
}

// Eq. 21: threads soak up each other's idle cycles; calculations in sequence add their RTEX.
TEST(ModelMachine, SharedMachineAddsThreadCpuAndSequentialRtex) {
    const std::vector<Load> threads = {{1.0, 0.5}, {0.8, 0.5}};
    const std::vector<Load> sequence = {{0.5, 0.2}};
    EXPECT_NEAR(SharedMachineRtexS(threads, {}), 1.0, 1e-12);  // 0.9 CPU-s, longest 1.0 s
    EXPECT_NEAR(SharedMachineRtexS(threads, sequence), 1.5, 1e-12);
    const std::vector<Load> busy = {{1.0, 1.0}, {1.0, 1.0}, {1.0, 1.0}};
    EXPECT_NEAR(SharedMachineRtexS(busy, {}), 3.0, 1e-12);
    EXPECT_NEAR(SharedMachineRtexS(busy, {}, 2), 1.5, 1e-12);
}

TEST(ModelMachine, OversubscribedHostSharesItsCores) {
    EXPECT_DOUBLE_EQ(HostCpuShare(2, 4), 1.0);
    EXPECT_DOUBLE_EQ(HostCpuShare(8, 2), 0.25);
    EXPECT_NEAR(HostFpsLimit({0.1, 0.2}, 1), 8.0, 1e-12);   // (1 - 0.2) / 0.1
    EXPECT_NEAR(HostFpsLimit({0.1, 0.2}, 2), 18.0, 1e-12);  // (2 - 0.2) / 0.1
    EXPECT_DOUBLE_EQ(HostFpsLimit({0.1, 1.5}, 1), 0.0);
}

TEST(ModelMachine, ZeroCpuSpeedIsAnErrorNamingTheField) {
    const Expected<void> result = ValidateMachineSpeed({0.0, 1.0}, "m2");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().message, "machine 'm2': cpuSpeed must be > 0, got 0");
    EXPECT_TRUE(ValidateMachineSpeed({3.33, 1.0}, "pentium").ok());
    EXPECT_FALSE(ValidateLoad({1.0, -0.1}, "trace").ok());
}

}  // namespace
}  // namespace bfv::predict
