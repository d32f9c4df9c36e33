// The headless presenter: the flight's poses frame by frame, the frames' checksums and
// resolution deficit, the PNGs every k frames and the last, report.json and checksums.txt, an
// interrupt, and an output directory it cannot create. (Window runs are tested through
// `bfv render` in tests/tools/window_controls_test.cpp.)

#include "display/presenter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/png_size.h"
#include "tests/temp_dir.h"
#include "tests/tools/subprocess.h"

namespace bfv::display {
namespace {

namespace fs = std::filesystem;
using test_support::PngSize;
using test_support::Slurp;
using test_support::TempDir;

constexpr int kWidthPx = 32;
constexpr int kHeightPx = 16;

/// A headless run of `frames` frames of 32x16 pixels, a quarter of a second of flight apart, a
/// PNG every 2 frames, written to `outDir`.
common::RenderOptions Headless(const std::string& outDir, int frames) {
    common::RenderOptions options;
    options.output.headless = true;
    options.view.screen = {kWidthPx, kHeightPx, 1.0};
    options.output.frames = frames;
    options.view.frameDtS = 0.25;
    options.output.pngEvery = 2;
    options.output.outDir = outDir;
    return options;
}

/// Eastward at 40 m/s, 100 m up, turning from north to east in one second, looking down
/// (at t = 1 further down than a 32x16 screen's pitch limit allows).
common::Flight EastwardFlight() {
    return common::Flight::FromPoses(
        {{0.0, {{0.0, 0.0, 100.0}, 0.0, -0.25, 0.0}}, {1.0, {{40.0, 0.0, 100.0}, 1.5, -1.7, 1.0}}});
}

double FlatGround(double, double) { return 0.0; }

/// A frame whose first `terrainColumns` columns are green (terrain) shaded by `shade`, the rest
/// blue (sky).
Frame TestFrame(int terrainColumns, std::uint8_t shade) {
    Frame frame(kWidthPx, kHeightPx);
    for (int x = 0; x < kWidthPx; ++x) {
        for (int y = 0; y < kHeightPx; ++y) {
            frame.Column(x)[y] =
                x < terrainColumns ? common::Pixel{20, shade, 30} : common::Pixel{120, 160, 220};
        }
    }
    return frame;
}

std::unique_ptr<Presenter> Create(const common::RenderOptions& options,
                                  const common::Flight& flight) {
    auto presenter = Presenter::Create(options, flight, FlatGround);
    EXPECT_TRUE(presenter.ok()) << presenter.error().message;
    return presenter.ok() ? std::move(*presenter) : nullptr;
}

// Headless, frame f is the flight's pose at f * frameDtS, pitch clamped to straight down; the
// run ends at its frame count.
TEST(Presenter, HeadlessPosesFollowTheFlightUntilTheFrameCount) {
    TempDir dir;
    common::Flight flight = EastwardFlight();
    common::RenderOptions options = Headless(dir.File("out"), 5);
    std::unique_ptr<Presenter> presenter = Create(options, flight);
    ASSERT_TRUE(presenter);
    for (int frame = 0; frame < 5; ++frame) {
        std::optional<common::CameraPose> pose = presenter->NextPose(frame);
        ASSERT_TRUE(pose) << frame;
        common::CameraPose expected = common::WithinPitchLimit(flight.PoseAt(0.25 * frame));
        EXPECT_EQ(pose->eyeM.x, expected.eyeM.x) << frame;
        EXPECT_EQ(pose->headingRad, expected.headingRad) << frame;
        EXPECT_EQ(pose->pitchRad, expected.pitchRad) << frame;
    }
    EXPECT_EQ(presenter->NextPose(2)->eyeM.x, 20.0);
    EXPECT_EQ(presenter->NextPose(4)->pitchRad, -common::kMaxPitchRad) << "past straight down";
    EXPECT_FALSE(presenter->NextPose(5)) << "5 frames asked";
    EXPECT_EQ(presenter->InterruptedBy(), 0);
}

TEST(Presenter, AnInterruptEndsTheRunAtTheNextPose) {
    TempDir dir;
    common::Flight flight = EastwardFlight();
    std::unique_ptr<Presenter> presenter = Create(Headless(dir.File("out"), 5), flight);
    ASSERT_TRUE(presenter);
    ASSERT_TRUE(presenter->NextPose(0));
    presenter->Interrupt(15);
    EXPECT_FALSE(presenter->NextPose(1));
    EXPECT_EQ(presenter->InterruptedBy(), 15);
}

// Every frame's checksum, time and resolution deficit are kept; PNGs are written for frames 0
// and 2 (every 2) and 3 (the last); Finish writes checksums.txt and report.json.
TEST(Presenter, HeadlessRunWritesPngsChecksumsAndTheReport) {
    TempDir dir;
    std::string outDir = dir.File("out");
    common::Flight flight = EastwardFlight();
    std::unique_ptr<Presenter> presenter = Create(Headless(outDir, 4), flight);
    ASSERT_TRUE(presenter);
    ASSERT_TRUE(fs::is_directory(outDir));
    common::Recorder recorder;
    std::vector<std::uint64_t> checksums;
    for (int frame = 0; frame < 4; ++frame) {
        ASSERT_TRUE(presenter->NextPose(frame));
        Frame image = TestFrame(8 * (frame + 1), static_cast<std::uint8_t>(100 + frame));
        checksums.push_back(image.Checksum());
        // 32 of the frame's terrain pixels rendered coarser than asked.
        common::SampleCounts samples{static_cast<std::uint64_t>(8 * (frame + 1) * kHeightPx), 32};
        ASSERT_TRUE(presenter->Present(frame, image, 3, recorder, samples).ok());
    }
    EXPECT_EQ(presenter->Checksums(), checksums);
    ASSERT_EQ(presenter->ResolutionDeficit().size(), 4u);
    EXPECT_DOUBLE_EQ(presenter->ResolutionDeficit()[0], 32.0 / (8 * kHeightPx));
    EXPECT_DOUBLE_EQ(presenter->ResolutionDeficit()[3], 32.0 / (32 * kHeightPx));
    ASSERT_EQ(presenter->FrameTimesS().size(), 4u);
    for (double s : presenter->FrameTimesS()) EXPECT_GT(s, 0.0);
    EXPECT_GT(recorder.Get(common::Activity::Present).wallS, 0.0);

    common::RunReport report;
    report.frameTimesS = presenter->FrameTimesS();
    report.checksums = presenter->Checksums();
    ASSERT_TRUE(presenter->Finish(report).ok());
    for (int frame : {0, 2, 3}) {
        std::string png = outDir + fmt::format("/frame_{:05d}.png", frame);
        EXPECT_EQ(PngSize(png), (std::pair{kWidthPx, kHeightPx})) << png;
    }
    EXPECT_FALSE(fs::exists(outDir + "/frame_00001.png"));
    std::string expected;
    for (std::uint64_t c : checksums) expected += fmt::format("{:016x}\n", c);
    EXPECT_EQ(Slurp(outDir + "/checksums.txt"), expected);
    EXPECT_EQ(Slurp(outDir + "/report.json"), common::ReportJson(report).dump(2) + "\n");
}

TEST(Presenter, AnOutputDirectoryItCannotCreateIsNamed) {
    TempDir dir;
    std::string blocker = dir.File("file");
    std::ofstream(blocker) << "not a directory";
    common::Flight flight = EastwardFlight();
    std::string outDir = blocker + "/out";
    auto presenter = Presenter::Create(Headless(outDir, 2), flight, FlatGround);
    ASSERT_FALSE(presenter.ok());
    EXPECT_TRUE(
        presenter.error().message.starts_with("cannot create output directory '" + outDir + "': "))
        << presenter.error().message;
}

}  // namespace
}  // namespace bfv::display
