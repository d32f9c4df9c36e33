#include "common/render_options.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "tests/expected_error.h"
#include "tests/temp_dir.h"

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
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.pipeline.sequential = true; }, 0), "");
}

TEST(RenderOptions, NeedsThreeRanksUnlessSequential) {
    std::string message = ErrorOf([](RenderOptions&) {}, 2);
    EXPECT_TRUE(Contains(message, "at least 3 MPI ranks")) << message;
    EXPECT_TRUE(Contains(message, "got 2")) << message;
    EXPECT_TRUE(Contains(message, "--sequential")) << message;
}

TEST(RenderOptions, ScreenNarrowerThanTheTracersIsRejected) {
    auto narrow = [](RenderOptions& o) {
        o.view.screen.widthPx = 5;
        o.view.screen.heightPx = 3;
        o.pipeline.columnsPerMessage = 5;
    };
    EXPECT_EQ(ErrorOf(narrow, 7), "");  // 5 tracers, 5 columns
    std::string message = ErrorOf(narrow, 8);
    EXPECT_TRUE(Contains(message, "--size")) << message;
    EXPECT_TRUE(Contains(message, "6 ray tracers")) << message;
}

// The dynamic split travels in a fixed array of kMaxDynamicTracers slices per frame command.
TEST(RenderOptions, DynamicSplitServesUpToItsMostTracers) {
    auto dynamic = [](RenderOptions& o) { o.pipeline.decomposition = Decomposition::Dynamic; };
    EXPECT_EQ(ErrorOf(dynamic, kMaxDynamicTracers + 2), "");
    std::string message = ErrorOf(dynamic, kMaxDynamicTracers + 3);
    EXPECT_TRUE(Contains(message, "--decomposition dynamic serves at most 256 ray tracers"))
        << message;
    EXPECT_EQ(ErrorOf([](RenderOptions&) {}, kMaxDynamicTracers + 3), "");
}

TEST(RenderOptions, ImpossibleSizesAreRejected) {
    for (auto [w, h] : {std::pair{0, 720}, {1280, 0}, {16385, 720}, {1280, 16385}, {-5, 10}}) {
        std::string message = ErrorOf([w = w, h = h](RenderOptions& o) {
            o.view.screen = {w, h, 1.0};
        });
        EXPECT_TRUE(Contains(message, "--size")) << w << "x" << h << ": " << message;
    }
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.view.screen = {16384, 16384, 1.0}; }), "");
}

TEST(RenderOptions, EachBadOptionIsNamed) {
    struct Case {
        std::function<void(RenderOptions&)> change;
        const char* option;
    } cases[] = {
        {[](RenderOptions& o) { o.view.screen.hFovRad = 0.0; }, "--fov"},
        {[](RenderOptions& o) { o.view.screen.hFovRad = 3.0; }, "--fov"},
        {[](RenderOptions& o) { o.pipeline.columnsPerMessage = 0; }, "--columns-per-message"},
        {[](RenderOptions& o) { o.pipeline.receiveThreads = 0; }, "--receive-threads"},
        {[](RenderOptions& o) { o.pipeline.receiveThreads = 65; }, "--receive-threads"},
        {[](RenderOptions& o) { o.terrain.terrainMessageBytes = 63; }, "--terrain-message-bytes"},
        {[](RenderOptions& o) { o.terrain.terrainBudgetBytesPerS = -1.0; }, "--terrain-budget"},
        {[](RenderOptions& o) { o.terrain.terrainBudgetBytesPerS = std::nan(""); },
         "--terrain-budget"},
        {[](RenderOptions& o) { o.terrain.cacheMiB = -1; }, "--cache-mib"},
        {[](RenderOptions& o) { o.terrain.blendFrames = -1; }, "--blend-frames"},
        {[](RenderOptions& o) { o.output.frames = -1; }, "--frames"},
        {[](RenderOptions& o) { o.output.warmupFrames = -1; }, "--warmup"},
        {[](RenderOptions& o) { o.output.pngEvery = -1; }, "--png-every"},
        {[](RenderOptions& o) { o.pipeline.threads = 0; }, "--threads"},
        {[](RenderOptions& o) { o.view.frameDtS = 0.0; }, "--frame-dt"},
        {[](RenderOptions& o) { o.shading.hazeHalfDistanceM = -1.0; }, "--haze"},
        {[](RenderOptions& o) { o.shading.lodBias = 0.0; }, "--lod-bias"},
        {[](RenderOptions& o) { o.shading.maxAnisotropy = 0.5; }, "--max-anisotropy"},
        {[](RenderOptions& o) { o.shading.secantMaxCellPixels = 65.0; }, "--secant-cell-pixels"},
        {[](RenderOptions& o) { o.shading.supersample = 0; }, "--supersample"},
        {[](RenderOptions& o) { o.view.flightStyle.speedMPerS = -1.0; }, "--speed"},
        {[](RenderOptions& o) { o.view.flightStyle.pitchRad = -1.6; }, "--pitch"},
        {[](RenderOptions& o) { o.view.flightStyle.aglM = 0.0; }, "--agl"},
    };
    for (const Case& c : cases) {
        std::string message = ErrorOf(c.change);
        EXPECT_TRUE(Contains(message, c.option)) << c.option << ": '" << message << "'";
    }
}

// Each refusal names the option, the value given and the allowed range, in one sentence.
TEST(RenderOptions, OutOfRangeValuesAreNamedWithTheirRange) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    struct Case {
        std::function<void(RenderOptions&)> change;
        const char* message;
    } cases[] = {
        {[](RenderOptions& o) { o.pipeline.columnsPerMessage = 100000000; },
         "--columns-per-message must be >= 1 and <= 1280 columns (the screen width), "
         "got 100000000"},
        {[](RenderOptions& o) { o.view.flightStyle.aglM = -2000.0; },
         "--agl must be > 0 and <= 100000 m, got -2000"},
        {[](RenderOptions& o) { o.view.flightStyle.aglM = 2e5; },
         "--agl must be > 0 and <= 100000 m"},
        {[](RenderOptions& o) { o.view.flightStyle.pitchRad = 90.5 * kRadPerDeg; },
         "--pitch must be >= -90 and <= 90 degrees, got 90.5"},
        {[](RenderOptions& o) { o.view.flightStyle.pitchRad = -90.5 * kRadPerDeg; },
         "--pitch must be >= -90 and <= 90 degrees, got -90.5"},
        {[](RenderOptions& o) { o.view.screen.hFovRad = 170.0 * kRadPerDeg; },
         "--fov must be >= 1 and <= 160 degrees, got 170"},
        {[](RenderOptions& o) { o.view.flightStyle.speedMPerS = kInf; },
         "--speed must be >= 0 and <= 10000 m/s, got inf"},
        {[](RenderOptions& o) { o.view.flightStyle.speedMPerS = std::nan(""); }, "--speed must be"},
        {[](RenderOptions& o) { o.shading.hazeHalfDistanceM = 0.0; },
         "--haze must be > 0 and <= 10000000 m"},
        {[](RenderOptions& o) { o.shading.lodBias = kInf; },
         "--lod-bias must be > 0 and <= 1000, got inf"},
        {[](RenderOptions& o) { o.shading.seaLevelM = -20000.0; },
         "--sea-level must be >= -12000 and <= 9000 m, got -20000"},
        {[](RenderOptions& o) { o.shading.seaLevelM = std::nan(""); }, "--sea-level must be"},
        {[](RenderOptions& o) { o.shading.sunElevationDeg = 0.0; },
         "--sun-elevation must be > 0 and <= 90 degrees, got 0"},
        {[](RenderOptions& o) { o.shading.exaggeration = 0.0; },
         "--exaggeration must be > 0 and <= 100, got 0"},
        {[](RenderOptions& o) { o.shading.exaggeration = std::nan(""); }, "--exaggeration must be"},
        {[](RenderOptions& o) { o.shading.snowLineM = 12000.0; },
         "--snow-line must be >= -500 and <= 9000 m, got 12000"},
        {[](RenderOptions& o) { o.shading.sunAzimuthDeg = 400.0; },
         "--sun-azimuth must be >= 0 and <= 360 degrees, got 400"},
        {[](RenderOptions& o) { o.view.frameDtS = -1.0; }, "--frame-dt must be > 0 and <= 60 s"},
        {[](RenderOptions& o) { o.output.frames = 20000000; },
         "--frames must be >= 0 and <= 10000000 frames, got 20000000"},
        {[](RenderOptions& o) { o.terrain.terrainMessageBytes = 1 << 30; },
         "--terrain-message-bytes must be >= 64 and <= 67108864 bytes, got 1073741824"},
        {[](RenderOptions& o) { o.terrain.terrainBudgetBytesPerS = kInf; },
         "--terrain-budget must be"},
        {[](RenderOptions& o) { o.terrain.cacheMiB = 1 << 21; },
         "--cache-mib must be >= 0 and <= 1048576"},
        {[](RenderOptions& o) { o.pipeline.threads = 1000; },
         "--threads must be >= 1 and <= 256 threads"},
        {[](RenderOptions& o) { o.pipeline.receiveThreads = 65; },
         "--receive-threads must be >= 1 and <= 64"},
        {[](RenderOptions& o) { o.terrain.blendFrames = 1001; },
         "--blend-frames must be >= 0 and <= 1000"},
    };
    for (const Case& c : cases) {
        std::string message = ErrorOf(c.change);
        EXPECT_TRUE(Contains(message, c.message)) << c.message << "\ngot '" << message << "'";
    }
}

// The ends of the ranges that include them are accepted, as is a hovering flight.
TEST(RenderOptions, RangeEndsAreAccepted) {
    EXPECT_EQ(
        ErrorOf([](RenderOptions& o) { o.pipeline.columnsPerMessage = o.view.screen.widthPx; }),
        "");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.view.flightStyle.aglM = 100000.0; }), "");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.view.flightStyle.speedMPerS = 0.0; }), "");
    // The pinhole camera draws any pitch at any field of view, straight down and up included.
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.view.flightStyle.pitchRad = -kMaxPitchRad; }), "");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.view.flightStyle.pitchRad = kMaxPitchRad; }), "");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) {
                  o.view.screen.hFovRad = 160.0 * kRadPerDeg;
                  o.view.flightStyle.pitchRad = -89.0 * kRadPerDeg;
              }),
              "");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.view.screen.hFovRad = 1.0 * kRadPerDeg; }), "");
}

// The columns per message are bounded by the screen's width, whatever the size.
TEST(RenderOptions, ColumnsPerMessageFollowsTheScreenWidth) {
    auto narrow = [](int columns) {
        return [columns](RenderOptions& o) {
            o.view.screen.widthPx = 640;
            o.pipeline.columnsPerMessage = columns;
        };
    };
    EXPECT_EQ(ErrorOf(narrow(640)), "");
    EXPECT_TRUE(Contains(ErrorOf(narrow(641)), "<= 640 columns (the screen width), got 641"));
}

// `mpiexec -n 4 bfv render --sequential` would run four renders into one output directory.
TEST(RenderOptions, SequentialIsRefusedAsOneOfSeveralProcesses) {
    auto sequential = [](RenderOptions& o) { o.pipeline.sequential = true; };
    EXPECT_EQ(ErrorOf(sequential, 0), "");
    EXPECT_EQ(ErrorOf(sequential, 1), "");
    std::string message = ErrorOf(sequential, 4);
    EXPECT_TRUE(Contains(message, "--sequential")) << message;
    EXPECT_TRUE(Contains(message, "one of 4 processes")) << message;
    EXPECT_TRUE(Contains(message, "without mpiexec (or with -n 1)")) << message;
}

// `--sequential --trace FILE` wrote nothing and said nothing: the timeline is an MPI run's.
TEST(RenderOptions, TraceIsRefusedWithSequential) {
    EXPECT_EQ(ErrorOf(
                  [](RenderOptions& o) {
                      o.pipeline.sequential = true;
                      o.output.tracePath = "trace.json";
                  },
                  0),
              "--trace records the timelines of an MPI run's ranks, and a --sequential run has "
              "none: run it under mpiexec (N >= 3) or leave out --trace");
    EXPECT_EQ(ErrorOf([](RenderOptions& o) { o.output.tracePath = "trace.json"; }, 3), "");
}

// A run's --record, --trace and --profile files were found unwritable only after the run.
TEST(RenderOptions, OutputFilesNeedAFolderThatExists) {
    RenderOptions o;
    EXPECT_TRUE(ValidateOutputFiles(o).ok());
    o.view.recordPath = "flown.json";
    EXPECT_TRUE(ValidateOutputFiles(o).ok());
    o.prediction.profilePath = "/nonexistent-bfv-folder/profile.json";
    Expected<void> ok = ValidateOutputFiles(o);
    ASSERT_FALSE(ok.ok());
    EXPECT_EQ(ok.error().message,
              "--profile '/nonexistent-bfv-folder/profile.json': its folder "
              "'/nonexistent-bfv-folder' does not exist");
    o.prediction.machinePath = "machine.json";  // then the profile is read, not written
    EXPECT_TRUE(ValidateOutputFiles(o).ok());
    o.output.tracePath = "/nonexistent-bfv-folder/trace.json";
    EXPECT_EQ(test_support::ErrorOf(ValidateOutputFiles(o)),
              "--trace '/nonexistent-bfv-folder/trace.json': its folder '/nonexistent-bfv-folder' "
              "does not exist");
}

// --out was made only when the first file was written, after the whole run: a folder that
// cannot be made is refused before it.
TEST(RenderOptions, TheOutputFolderMustBeMakeable) {
    test_support::TempDir dir;
    std::ofstream(dir.File("report.json")) << "{}";
    RenderOptions o;
    o.output.outDir = dir.File("new/deeper");
    EXPECT_TRUE(ValidateOutputFiles(o).ok()) << "made with its parents";
    o.output.outDir = dir.File("report.json");
    EXPECT_EQ(test_support::ErrorOf(ValidateOutputFiles(o)),
              "--out '" + o.output.outDir + "' exists and is not a folder");
    o.output.outDir = dir.File("report.json/frames");
    EXPECT_EQ(test_support::ErrorOf(ValidateOutputFiles(o)),
              "--out '" + o.output.outDir + "': '" + dir.File("report.json") +
                  "' is not a folder, so it cannot be made");
}

TEST(RenderOptions, FrameCountDefaultsByMode) {
    RenderOptions o;
    EXPECT_EQ(o.output.FrameCount(), 0);  // a window runs until the pilot quits
    o.output.headless = true;
    EXPECT_EQ(o.output.FrameCount(), 300);
    o.output.frames = 12;
    EXPECT_EQ(o.output.FrameCount(), 12);
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
