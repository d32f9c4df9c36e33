#include "common/ranges.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace bfv::common {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string ErrorOf(double value, const Range& range) {
    Expected<void> ok = CheckRange("--x", value, range);
    return ok.ok() ? "" : ok.error().message;
}

TEST(Range, EndsAreIncludedOrNotAsSaid) {
    Range closed = Range::Closed(1.0, 5.0);
    EXPECT_TRUE(closed.Contains(1.0));
    EXPECT_TRUE(closed.Contains(5.0));
    EXPECT_FALSE(closed.Contains(0.999));
    EXPECT_FALSE(closed.Contains(5.001));
    Range open = Range::Open(-90.0, 90.0);
    EXPECT_FALSE(open.Contains(-90.0));
    EXPECT_FALSE(open.Contains(90.0));
    EXPECT_TRUE(open.Contains(89.999));
    Range aboveUpTo = Range::AboveUpTo(0.0, 10.0);
    EXPECT_FALSE(aboveUpTo.Contains(0.0));
    EXPECT_TRUE(aboveUpTo.Contains(10.0));
}

TEST(Range, NonFiniteValuesAreNeverInside) {
    for (const Range& range : {Range::Positive(), Range::NonNegative(), Range{}}) {
        EXPECT_FALSE(range.Contains(kInf));
        EXPECT_FALSE(range.Contains(-kInf));
        EXPECT_FALSE(range.Contains(std::nan("")));
    }
    EXPECT_TRUE(Range{}.Contains(-1e300));
}

TEST(Range, DescribesItsBoundsAndUnit) {
    EXPECT_EQ(Range::AboveUpTo(0.0, 100000.0, "m").Describe(), "> 0 and <= 100000 m");
    EXPECT_EQ(Range::Open(-90.0, 90.0, "degrees").Describe(), "> -90 and < 90 degrees");
    EXPECT_EQ(Range::Closed(1.0, 1280.0).Describe(), ">= 1 and <= 1280");
    EXPECT_EQ(Range::Positive("bytes/s").Describe(), "> 0 bytes/s");
    EXPECT_EQ(Range::NonNegative().Describe(), ">= 0");
    EXPECT_EQ(Range{}.Describe(), "finite");
    EXPECT_EQ(Range::Closed(0.5, 2.5).Describe(), ">= 0.5 and <= 2.5");
}

TEST(CheckRange, NamesTheValueAndTheRange) {
    EXPECT_EQ(ErrorOf(3.0, Range::Closed(1.0, 5.0)), "");
    EXPECT_EQ(ErrorOf(-2000.0, Range::AboveUpTo(0.0, 100000.0, "m")),
              "--x must be > 0 and <= 100000 m, got -2000");
    EXPECT_EQ(ErrorOf(100000000.0, Range::Closed(1.0, 1280.0, "columns")),
              "--x must be >= 1 and <= 1280 columns, got 100000000");
    EXPECT_EQ(ErrorOf(kInf, Range::NonNegative("m/s")), "--x must be >= 0 m/s, got inf");
    EXPECT_EQ(ErrorOf(std::nan(""), Range::Positive()), "--x must be > 0, got nan");
    EXPECT_EQ(ErrorOf(0.25, Range::Closed(0.5, 1.0)), "--x must be >= 0.5 and <= 1, got 0.25");
}

}  // namespace
}  // namespace bfv::common
