// The predictor's input checks: each passes what it promises and names the field, the bound and
// the value of what it refuses.

#include "predict/model_validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/expected_error.h"

namespace bfv::predict {
namespace {

using test_support::ErrorOf;

TEST(ModelValidate, RequirePositiveRefusesZeroNegativeAndNonFinite) {
    double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(ErrorOf(RequirePositive("link 'eth0'", "bytesPerS", 1e-300)), "");
    EXPECT_EQ(ErrorOf(RequirePositive("link 'eth0'", "bytesPerS", 0.0)),
              "link 'eth0': bytesPerS must be > 0, got 0");
    EXPECT_EQ(ErrorOf(RequirePositive("link 'eth0'", "bytesPerS", -2.5)),
              "link 'eth0': bytesPerS must be > 0, got -2.5");
    EXPECT_EQ(ErrorOf(RequirePositive("m", "cpuSpeed", inf)), "m: cpuSpeed must be > 0, got inf");
    EXPECT_EQ(ErrorOf(RequirePositive("m", "cpuSpeed", std::nan(""))),
              "m: cpuSpeed must be > 0, got nan");
}

TEST(ModelValidate, RequireNonNegativeTakesZero) {
    EXPECT_EQ(ErrorOf(RequireNonNegative("load 'trace'", "rtexS", 0.0)), "");
    EXPECT_EQ(ErrorOf(RequireNonNegative("load 'trace'", "rtexS", -0.001)),
              "load 'trace': rtexS must be >= 0, got -0.001");
    EXPECT_EQ(ErrorOf(RequireNonNegative("load 'trace'", "rtexS", std::nan(""))),
              "load 'trace': rtexS must be >= 0, got nan");
}

TEST(ModelValidate, RequireFractionTakesBothEnds) {
    EXPECT_EQ(ErrorOf(RequireFraction("load 'trace'", "cpuFraction", 0.0)), "");
    EXPECT_EQ(ErrorOf(RequireFraction("load 'trace'", "cpuFraction", 1.0)), "");
    EXPECT_EQ(ErrorOf(RequireFraction("load 'trace'", "cpuFraction", 1.5)),
              "load 'trace': cpuFraction must be >= 0 and <= 1, got 1.5");
    EXPECT_EQ(ErrorOf(RequireFraction("load 'trace'", "cpuFraction", -0.5)),
              "load 'trace': cpuFraction must be >= 0 and <= 1, got -0.5");
}

TEST(ModelValidate, RequireAtLeastTakesTheMinimum) {
    EXPECT_EQ(ErrorOf(RequireAtLeast("run", "ranks", 3, 3)), "");
    EXPECT_EQ(ErrorOf(RequireAtLeast("run", "ranks", 2, 3)), "run: ranks must be >= 3, got 2");
}

TEST(ModelValidate, FirstErrorKeepsTheFirstFailedCheck) {
    EXPECT_EQ(ErrorOf(FirstError({})), "");
    EXPECT_EQ(ErrorOf(FirstError({RequirePositive("a", "x", 1.0), RequireFraction("a", "y", 0.5)})),
              "");
    EXPECT_EQ(ErrorOf(FirstError({RequirePositive("a", "x", 1.0), RequireFraction("a", "y", 2.0),
                                  RequirePositive("a", "z", -1.0)})),
              "a: y must be >= 0 and <= 1, got 2");
}

}  // namespace
}  // namespace bfv::predict
