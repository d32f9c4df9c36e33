#include "display/screenshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/png_size.h"
#include "tests/temp_dir.h"

namespace bfv::display {
namespace {

using test_support::PngSize;
using test_support::TempDir;

TEST(Screenshot, TakesTheFirstFreeNumberAndCreatesTheDirectory) {
    TempDir dir;
    std::vector<std::uint8_t> rgb(8 * 5 * 3, 200);
    std::string out = dir.File("shots/nested");
    auto first = WriteScreenshot(out, 8, 5, rgb);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ(*first, out + "/screenshot_0000.png");
    auto second = WriteScreenshot(out, 8, 5, rgb);
    ASSERT_TRUE(second.ok()) << second.error().message;
    EXPECT_EQ(*second, out + "/screenshot_0001.png");
    EXPECT_EQ(PngSize(*second), (std::pair{8, 5}));
}

TEST(Screenshot, AnUnwritableDirectoryIsAnErrorNamingIt) {
    TempDir dir;
    std::ofstream(dir.File("file")) << "not a directory";
    auto shot = WriteScreenshot(dir.File("file/sub"), 2, 2, std::vector<std::uint8_t>(12));
    ASSERT_FALSE(shot.ok());
    EXPECT_NE(shot.error().message.find("file/sub"), std::string::npos) << shot.error().message;
}

TEST(Screenshot, AnImageOfTheWrongSizeIsRefused) {
    EXPECT_FALSE(EncodePng(4, 4, std::vector<std::uint8_t>(10)).ok());
    EXPECT_TRUE(EncodePng(2, 2, std::vector<std::uint8_t>(12)).ok());
}

}  // namespace
}  // namespace bfv::display
