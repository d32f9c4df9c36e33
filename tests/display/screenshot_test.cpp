#include "display/screenshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

// More images than the queue holds: Submit waits for room, and Drain returns once every one
// is on disk, each whole and of its size.
TEST(PngWriter, WritesEveryQueuedImageInTheBackground) {
    TempDir dir;
    PngWriter writer;
    for (int n = 0; n < 5; ++n) {
        writer.Submit(dir.File("frame_" + std::to_string(n) + ".png"), 16 + n, 9,
                      std::vector<std::uint8_t>(static_cast<std::size_t>(16 + n) * 9 * 3, 50));
    }
    ASSERT_TRUE(writer.Drain().ok());
    for (int n = 0; n < 5; ++n) {
        EXPECT_EQ(PngSize(dir.File("frame_" + std::to_string(n) + ".png")), (std::pair{16 + n, 9}));
    }
}

// A write that fails is kept as the first error, naming the file, and the writer goes on.
TEST(PngWriter, AFailedWriteIsTheFirstErrorAndTheOthersAreWritten) {
    TempDir dir;
    std::ofstream(dir.File("file")) << "not a directory";
    PngWriter writer;
    writer.Submit(dir.File("file/frame_00100.png"), 2, 2, std::vector<std::uint8_t>(12));
    writer.Submit(dir.File("frame_00200.png"), 2, 2, std::vector<std::uint8_t>(12));
    Expected<void> drained = writer.Drain();
    ASSERT_FALSE(drained.ok());
    EXPECT_NE(drained.error().message.find("frame_00100.png"), std::string::npos)
        << drained.error().message;
    EXPECT_FALSE(writer.FirstError().ok());
    EXPECT_EQ(PngSize(dir.File("frame_00200.png")), (std::pair{2, 2}));
}

// Destroyed with images queued, the writer writes them before it stops.
TEST(PngWriter, WritesWhatIsQueuedBeforeItStops) {
    TempDir dir;
    {
        PngWriter writer;
        writer.Submit(dir.File("last.png"), 64, 36, std::vector<std::uint8_t>(64 * 36 * 3, 9));
    }
    EXPECT_EQ(PngSize(dir.File("last.png")), (std::pair{64, 36}));
}

}  // namespace
}  // namespace bfv::display
