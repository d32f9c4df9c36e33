#include "common/render_options.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace bfv::common {
namespace {

// The error of validating the defaults changed by `change` in a job of `nRanks`, or "".
std::string ErrorOf(const std::function<void(RenderOptions&)>& change, int nRanks = 4) {
    RenderOptions options;
    change(options);
    Expected<void> ok = ValidateRenderOptions(options, nRanks);
    return ok.ok() ? "" : ok.error().message;
}

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

TEST(RenderOptions, DefaultsAreAccepted) {
    EXPECT_EQ(ErrorOf([](RenderOptions&) {}, 3), "");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.sequential = true; }, 0), "");
}

TEST(RenderOptions, NeedsThreeRanksUnlessSequential) {
    std::string message = ErrorOf([](RenderOptions&) {}, 2);
    EXPECT_TRUE(Contains(message, "at least 3 MPI ranks")) << message;
    EXPECT_TRUE(Contains(message, "got 2")) << message;
    EXPECT_TRUE(Contains(message, "--sequential")) << message;
}

TEST(RenderOptions, ScreenNarrowerThanTheTracersIsRejected) {
    auto narrow = [](RenderOptions& o) { o.screen.widthPx = 5; };
    EXPECT_EQ(ErrorOf(narrow, 7), "");  // 5 tracers, 5 columns
    std::string message = ErrorOf(narrow, 8);
    EXPECT_TRUE(Contains(message, "--size")) << message;
    EXPECT_TRUE(Contains(message, "6 ray tracers")) << message;
}

// The dynamic split travels in a fixed array of kMaxDynamicTracers slices per frame command.
TEST(RenderOptions, DynamicSplitServesUpToItsMostTracers) {
    auto dynamic = [](RenderOptions& o) { o.decomposition = Decomposition::Dynamic; };
    EXPECT_EQ(ErrorOf(dynamic, kMaxDynamicTracers + 2), "");
    std::string message = ErrorOf(dynamic, kMaxDynamicTracers + 3);
    EXPECT_TRUE(Contains(message, "--decomposition dynamic serves at most 256 ray tracers"))
        << message;
    EXPECT_EQ(ErrorOf([](RenderOptions&) {}, kMaxDynamicTracers + 3), "");
}

TEST(RenderOptions, ImpossibleSizesAreRejected) {
    for (auto [w, h] : {std::pair{0, 720}, {1280, 0}, {16385, 720}, {1280, 16385}, {-5, 10}}) {
        std::string message = ErrorOf([w = w, h = h](RenderOptions& o) { o.screen = {w, h, 1.0}; });
        EXPECT_TRUE(Contains(message, "--size")) << w << "x" << h << ": " << message;
    }
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.screen = {16384, 16384, 1.0}; }), "");
}

TEST(RenderOptions, EachBadOptionIsNamed) {
    struct Case {
        std::function<void(RenderOptions&)> change;
        const char* option;
    } cases[] = {
        {[](RenderOptions& o) { o.screen.hFovRad = 0.0; }, "--fov"},
        {[](RenderOptions& o) { o.screen.hFovRad = 3.0; }, "--fov"},
        {[](RenderOptions& o) { o.columnsPerMessage = 0; }, "--columns-per-message"},
        {[](RenderOptions& o) { o.receiveThreads = 0; }, "--receive-threads"},
        {[](RenderOptions& o) { o.receiveThreads = 65; }, "--receive-threads"},
        {[](RenderOptions& o) { o.terrainMessageBytes = 63; }, "--terrain-message-bytes"},
        {[](RenderOptions& o) { o.terrainBudgetBytesPerS = -1.0; }, "--terrain-budget"},
        {[](RenderOptions& o) { o.terrainBudgetBytesPerS = std::nan(""); }, "--terrain-budget"},
        {[](RenderOptions& o) { o.cacheMiB = -1; }, "--cache-mib"},
        {[](RenderOptions& o) { o.blendFrames = -1; }, "--blend-frames"},
        {[](RenderOptions& o) { o.frames = -1; }, "--frames"},
        {[](RenderOptions& o) { o.warmupFrames = -1; }, "--warmup"},
        {[](RenderOptions& o) { o.pngEvery = -1; }, "--png-every"},
        {[](RenderOptions& o) { o.threads = 0; }, "--threads"},
        {[](RenderOptions& o) { o.frameDtS = 0.0; }, "--frame-dt"},
        {[](RenderOptions& o) { o.hazeHalfDistanceM = -1.0; }, "--haze"},
        {[](RenderOptions& o) { o.lodBias = 0.0; }, "--lod-bias"},
        {[](RenderOptions& o) { o.flightStyle.speedMPerS = 0.0; }, "--speed"},
        {[](RenderOptions& o) { o.flightStyle.pitchRad = -1.5; }, "--pitch"},
    };
    for (const Case& c : cases) {
        std::string message = ErrorOf(c.change);
        EXPECT_TRUE(Contains(message, c.option)) << c.option << ": '" << message << "'";
    }
}

TEST(RenderOptions, FrameCountDefaultsByMode) {
    RenderOptions o;
    EXPECT_EQ(o.FrameCount(), 0);  // a window runs until the pilot quits
    o.headless = true;
    EXPECT_EQ(o.FrameCount(), 300);
    o.frames = 12;
    EXPECT_EQ(o.FrameCount(), 12);
}

TEST(ParseScreenSize, ReadsWidthAndHeightAndRefusesTheRest) {
    ScreenSpec screen;
    screen.hFovRad = 0.5;
    ASSERT_TRUE(ParseScreenSize("640x360", screen).ok());
    EXPECT_EQ(screen.widthPx, 640);
    EXPECT_EQ(screen.heightPx, 360);
    EXPECT_EQ(screen.hFovRad, 0.5) << "the field of view is not the size's";
    for (const char* bad : {"wide", "640x", "640X360", "-640x360", "640x360x2", "1234567x10"}) {
        auto ok = ParseScreenSize(bad, screen);
        ASSERT_FALSE(ok.ok()) << bad;
        EXPECT_NE(ok.error().message.find("expected WIDTHxHEIGHT"), std::string::npos) << bad;
    }
    for (const char* impossible : {"0x100", "100000x10", "16385x16"}) {
        auto ok = ParseScreenSize(impossible, screen);
        ASSERT_FALSE(ok.ok()) << impossible;
        EXPECT_NE(ok.error().message.find("is impossible"), std::string::npos) << impossible;
    }
    EXPECT_EQ(screen.widthPx, 640) << "a refused size leaves the screen alone";
}

}  // namespace
}  // namespace bfv::common
