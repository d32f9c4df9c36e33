#include "predict/model_app.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bfv::predict {
namespace {

// Section 1.1 of the source paper: "1.2 FPS on a $1500 PC" from 0.2 + 0.6 + 0.04 s per frame.
TEST(ModelApp, SeedCaseSequentialFrameRateIs119Fps) {
    const AppCharacteristics app = SeedCase();
    const std::vector<Calculation> calcs = SequentialCalculations(app);
    EXPECT_NEAR(TotalRtexS(calcs), 0.84, 1e-9);
    EXPECT_NEAR(SequentialFps(app), 1.19, 0.005);
    EXPECT_NEAR(std::round(SequentialFps(app) * 10.0) / 10.0, 1.2, 1e-9);
}

// Section 2: "For our application the CPU is utilized almost 100%" (eq. 2).
TEST(ModelApp, SeedCaseIsAlmostCpuBound) {
    const std::vector<Calculation> calcs = SequentialCalculations(SeedCase());
    EXPECT_NEAR(TotalCpuS(calcs), 0.2 * 0.8 + 0.6 + 0.04, 1e-9);
    EXPECT_GT(AverageCpuFraction(calcs), 0.95);
    EXPECT_LT(AverageCpuFraction(calcs), 1.0);
}

// Eq. 9: the 256 x 256 screen in 256-byte columns is 256 messages; 0.25 MB in 1 kB is ~244.
TEST(ModelApp, MessageCountIsVolumeOverMessageSize) {
    const AppCharacteristics app = SeedCase();
    EXPECT_DOUBLE_EQ(MessageCount(app.rayTrace), 256.0);
    EXPECT_NEAR(MessageCount(app.terrainServer), 244.1, 0.1);
    EXPECT_DOUBLE_EQ(MessageCount(app.display), 0.0);
}

TEST(ModelApp, SeedCaseIsValid) { EXPECT_TRUE(ValidateApp(SeedCase()).ok()); }

TEST(ModelApp, ZeroMessageSizeIsAnErrorNamingTheField) {
    AppCharacteristics app = SeedCase();
    app.rayTrace.msgBytes = 0.0;
    const Expected<void> result = ValidateApp(app);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().message, "app 'ray trace': msgBytes must be > 0, got 0");
}

TEST(ModelApp, CpuFractionAboveOneIsAnError) {
    AppCharacteristics app = SeedCase();
    app.display.cpuFraction = 1.5;
    const Expected<void> result = ValidateApp(app);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().message, "app 'display': cpuFraction must be >= 0 and <= 1, got 1.5");
}

}  // namespace
}  // namespace bfv::predict
