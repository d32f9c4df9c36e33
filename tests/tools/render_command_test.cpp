// Runs the real `bfv render` as a child process: headless output, window mode under
// xvfb-run, and every kind of bad input (one clear message, non-zero exit, no hang, no
// partial output).

#include <gtest/gtest.h>
#include <stb_image.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/flight.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::Contains;
using test_support::ExpectCleanFailure;
using test_support::Occurrences;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunBfvMpi;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

const std::string kSmallRun = "render --headless --frames 4 --size 160x90 --png-every 0 ";

// A copy of the shipped terrain with one byte of its posts flipped, or cut short.
std::string DamagedTerrain(const TempDir& dir, bool truncate) {
    std::string bytes = Slurp(std::string(BFV_SOURCE_DIR) + "/assets/jacksboro.bfvp");
    if (truncate) {
        bytes.resize(bytes.size() / 2);
    } else {
        bytes[bytes.size() - 1000] ^= 0x10;
    }
    std::string path = dir.File("damaged.bfvp");
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// Pixels of the PNG at `path` whose red, green and blue `pick` says yes to.
int PixelsWhere(const std::string& path, const std::function<bool(int, int, int)>& pick) {
    int width = 0, height = 0, channels = 0;
    stbi_uc* rgb = stbi_load(path.c_str(), &width, &height, &channels, 3);
    EXPECT_NE(rgb, nullptr) << path;
    if (rgb == nullptr) return -1;
    int count = 0;
    for (int p = 0; p < width * height; ++p)
        count += pick(rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]);
    stbi_image_free(rgb);
    return count;
}

// Pixels of the PNG at `path` that are water blue: blue well above red, which neither the
// land's materials nor the sky and haze (blue at most 32 above red) reach.
int WaterPixels(const std::string& path) {
    return PixelsWhere(path, [](int r, int, int b) { return b > r + 45; });
}

// matplotlib's topobathy.npz (coast and sea floor off Vancouver Island) imports with its sea
// floor, and renders with a water surface at 0 m by default; --no-water draws the sea floor.
TEST(RenderCommand, ADemWithSeaFloorRendersItsSeaAsWater) {
    const std::string topobathy = "/usr/share/matplotlib/mpl-data/sample_data/topobathy.npz";
    if (!fs::exists(topobathy)) GTEST_SKIP() << topobathy << " is not installed";
    TempDir dir;
    std::string terrain = dir.File("topobathy.bfvp");
    RunResult imported = RunBfv("import " + Quote(topobathy) + " " + Quote(terrain));
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    std::string flight = dir.File("sea.json");
    std::ofstream(flight) << R"({"poses": [
        {"timeS": 0, "xM": 20000, "yM": 110000, "zM": 3000, "headingDeg": 90, "pitchDeg": -20},
        {"timeS": 10, "xM": 21000, "yM": 110000, "zM": 3000, "headingDeg": 90, "pitchDeg": -20}]})";
    std::string args =
        "render --sequential --headless --frames 1 --size 160x90 --terrain-sync "
        "--terrain " +
        Quote(terrain) + " --flight " + Quote(flight) + " --out ";
    RunResult water = RunBfv(args + Quote(dir.File("water")));
    ASSERT_EQ(water.exitCode, 0) << water.err;
    RunResult floor = RunBfv(args + Quote(dir.File("floor")) + " --no-water");
    ASSERT_EQ(floor.exitCode, 0) << floor.err;
    EXPECT_GT(WaterPixels(dir.File("water/frame_00000.png")), 160 * 90 / 10);
    EXPECT_EQ(WaterPixels(dir.File("floor/frame_00000.png")), 0);
}

// Pixels of the PNG at `path` that are magenta: red and blue both well above green, which
// neither bfv's own land materials, the water nor the sky and haze reach.
int MagentaPixels(const std::string& path) {
    return PixelsWhere(path, [](int r, int g, int b) { return r > g + 40 && b > g + 40; });
}

// The shipped DEM draped with a magenta image renders magenta (its palette reaches the tracers
// through the start-up broadcast, its posts' indices through the stream, on the stored levels
// and on level 4, which the image's 30 m pixels drape too), the same frame in one process and
// across ranks.
TEST(RenderCommand, ADemDrapedWithImageryRendersInItsColours) {
    TempDir dir;
    std::string image = dir.File("magenta.ppm");  // a binary PPM, which GDAL reads
    std::string pixels;
    for (int p = 0; p < 1024 * 1024; ++p) pixels += {char(200), char(40), char(170)};
    std::ofstream(image, std::ios::binary) << "P6\n1024 1024\n255\n" << pixels;
    std::string terrain = dir.File("draped.bfvp");
    RunResult imported =
        RunBfv("import /usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz " +
               Quote(terrain) + " --texture " + Quote(image));
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    EXPECT_TRUE(Contains(imported.out, "over levels 0-4 (to 32 m posts); palette of 1 colour"))
        << imported.out;
    std::string args = "render --headless --frames 3 --size 160x90 --terrain-sync --terrain " +
                       Quote(terrain) + " --out ";
    RunResult one = RunBfv(args + Quote(dir.File("one")) + " --sequential");
    ASSERT_EQ(one.exitCode, 0) << one.err;
    RunResult ranks = RunBfvMpi(3, args + Quote(dir.File("ranks")));
    ASSERT_EQ(ranks.exitCode, 0) << ranks.err;
    EXPECT_EQ(Slurp(dir.File("one/checksums.txt")), Slurp(dir.File("ranks/checksums.txt")));
    EXPECT_GT(MagentaPixels(dir.File("one/frame_00002.png")), 160 * 90 / 2);
    RunResult own =
        RunBfv("render --headless --frames 3 --size 160x90 --terrain-sync --sequential --out " +
               Quote(dir.File("own")));
    ASSERT_EQ(own.exitCode, 0) << own.err;
    EXPECT_EQ(MagentaPixels(dir.File("own/frame_00002.png")), 0);
}

TEST(RenderCommand, SequentialHeadlessWritesReportChecksumsAndPng) {
    TempDir dir;
    std::string out = dir.File("out");
    RunResult run = RunBfv(kSmallRun + "--sequential --out " + Quote(out));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "FPS mean"));
    auto report = nlohmann::json::parse(Slurp(out + "/report.json"));
    EXPECT_EQ(report["mode"], "sequential");
    EXPECT_EQ(report["frameTimesS"].size(), 4u);
    EXPECT_EQ(report["frameChecksums"].size(), 4u);
    EXPECT_GT(report["fps"]["mean"].get<double>(), 0.0);
    EXPECT_TRUE(report["ranks"][0]["activities"].contains("trace"));
    EXPECT_EQ(Occurrences(Slurp(out + "/checksums.txt"), "\n"), 4);
    EXPECT_TRUE(fs::exists(out + "/frame_00003.png")) << "the last frame is always written";
}

// Decoded RGB pixels of the PNG at `path` (empty when it cannot be read).
std::vector<unsigned char> PngPixels(const std::string& path) {
    int width = 0, height = 0, channels = 0;
    stbi_uc* rgb = stbi_load(path.c_str(), &width, &height, &channels, 3);
    if (rgb == nullptr) return {};
    std::vector<unsigned char> pixels(rgb, rgb + static_cast<size_t>(width) * height * 3);
    stbi_image_free(rgb);
    return pixels;
}

// --png-every 1 hands every frame to the PNG writer's queue (4 frames) and goes on: every PNG
// is on disk when the run ends, the last one the same picture as a run that writes only the
// last, and the report counts the frames that waited for room in the queue.
TEST(RenderCommand, EveryFramesPngIsWrittenOffTheFrameLoopAndItsWaitsReported) {
    TempDir dir;
    std::string args = "render --sequential --headless --frames 6 --size 160x90 --terrain-sync ";
    RunResult every = RunBfv(args + "--png-every 1 --out " + Quote(dir.File("every")));
    ASSERT_EQ(every.exitCode, 0) << every.err;
    RunResult last = RunBfv(args + "--png-every 0 --out " + Quote(dir.File("last")));
    ASSERT_EQ(last.exitCode, 0) << last.err;
    for (int f = 0; f < 6; ++f) {
        std::string png = dir.File("every/frame_0000" + std::to_string(f) + ".png");
        EXPECT_EQ(PngPixels(png).size(), 160u * 90 * 3) << png;
    }
    EXPECT_FALSE(fs::exists(dir.File("last/frame_00000.png")));
    std::vector<unsigned char> lastPixels = PngPixels(dir.File("last/frame_00005.png"));
    ASSERT_FALSE(lastPixels.empty());
    EXPECT_TRUE(PngPixels(dir.File("every/frame_00005.png")) == lastPixels);
    auto report = nlohmann::json::parse(Slurp(dir.File("every/report.json")));
    int waits = report["pngQueueWaits"].get<int>();
    double waitS = report["pngQueueWaitS"].get<double>();
    EXPECT_GE(waits, 0);
    EXPECT_LE(waits, 6 - 4) << "the first 4 frames find room in the queue";
    EXPECT_EQ(waits == 0, waitS == 0.0) << waits << " waits, " << waitS << " s";
    EXPECT_EQ(nlohmann::json::parse(Slurp(dir.File("last/report.json")))["pngQueueWaits"], 0);
}

// A PNG that cannot be written (its name taken by a directory) ends the run with one message
// naming it and a non-zero exit, after the report.
TEST(RenderCommand, APngThatCannotBeWrittenIsOneClearError) {
    TempDir dir;
    std::string out = dir.File("out");
    fs::create_directories(out + "/frame_00003.png/taken");
    RunResult run = RunBfv(kSmallRun + "--sequential --out " + Quote(out));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_EQ(Occurrences(run.err, "bfv render:"), 1) << run.err;
    EXPECT_TRUE(Contains(run.err, "frame_00003.png")) << run.err;
    EXPECT_TRUE(fs::exists(out + "/report.json"));
}

TEST(RenderCommand, MpiReportHasEveryRankAndTheResourceMatrix) {
    TempDir dir;
    std::string out = dir.File("out");
    RunResult run = RunBfvMpi(4, kSmallRun + "--out " + Quote(out));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto report = nlohmann::json::parse(Slurp(out + "/report.json"));
    ASSERT_EQ(report["ranks"].size(), 4u);
    EXPECT_EQ(report["ranks"][0]["role"], "server");
    EXPECT_EQ(report["ranks"][1]["role"], "tracer");
    EXPECT_EQ(report["ranks"][3]["role"], "display");
    const auto& send = report["ranks"][1]["activities"]["send"];
    EXPECT_GT(send["messages"].get<double>(), 0.0);
    EXPECT_GT(send["msgzBytes"].get<double>(), 0.0);
    EXPECT_TRUE(report["ranks"][0]["activities"].contains("terrain_send"));
    EXPECT_TRUE(report["ranks"][3]["activities"].contains("receive"));
}

// Frame 0 is drawn from every tile the first view wants (preloaded), in both deployments;
// --no-preload starts at once from the coarse levels (a resolution deficit at frame 0).
TEST(RenderCommand, TheFirstViewIsPreloadedUnlessAskedNotTo) {
    TempDir dir;
    int runs = 0;
    auto deficitAtFrame0 = [&](const std::string& deployment, const std::string& extra) {
        std::string out = dir.File("out" + std::to_string(runs++));
        std::string args = "render --headless --frames 2 --size 320x180 --png-every 0 --out " +
                           Quote(out) + " " + extra;
        RunResult run = deployment == "mpi" ? RunBfvMpi(3, args) : RunBfv(args + " --sequential");
        EXPECT_EQ(run.exitCode, 0) << run.err;
        if (deployment == "mpi") {
            EXPECT_EQ(Contains(run.out, "preloaded the first view: "), extra.empty()) << run.out;
        }
        auto report = nlohmann::json::parse(Slurp(out + "/report.json"));
        return report["resolutionDeficit"][0].get<double>();
    };
    // Without the preload, frame 0 shows what the stream has brought by then: at a small budget
    // (20 kB/s, a few tiles a second) that is little of the first view even where the tracers
    // start slowly (a sanitized build), at the default budget it can be all of it.
    const std::string noPreload = "--no-preload --terrain-budget 20000";
    EXPECT_EQ(deficitAtFrame0("mpi", ""), 0.0);
    EXPECT_GT(deficitAtFrame0("mpi", noPreload), 0.5);
    EXPECT_EQ(deficitAtFrame0("sequential", ""), 0.0);
    EXPECT_GT(deficitAtFrame0("sequential", noPreload), 0.5);
}

// The pinhole camera looks straight down: a flight file's pitch of -90 degrees is flown as it
// is (the recorded poses say so), --pitch -90 is accepted and anything steeper refused, naming
// the range.
TEST(RenderCommand, PitchReachesStraightDown) {
    TempDir dir;
    std::string flight = dir.File("down.json");
    std::ofstream(flight) << R"({"poses": [
        {"timeS": 0, "xM": 15000, "yM": 15000, "zM": 2000, "headingDeg": 0, "pitchDeg": -90},
        {"timeS": 10, "xM": 15000, "yM": 16000, "zM": 2000, "headingDeg": 0, "pitchDeg": -90}]})";
    std::string args = "render --sequential --headless --frames 2 --size 160x90 --png-every 0 ";
    RunResult run = RunBfv(args + "--flight " + Quote(flight) + " --record " +
                           Quote(dir.File("flown.json")) + " --out " + Quote(dir.File("a")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto flown = nlohmann::json::parse(Slurp(dir.File("flown.json")));
    EXPECT_NEAR(flown["poses"][1]["pitchDeg"].get<double>(), -90.0, 1e-9);
    RunResult down = RunBfv(args + "--pitch -90 --out " + Quote(dir.File("b")));
    EXPECT_EQ(down.exitCode, 0) << down.err;
    RunResult steep = RunBfv(args + "--pitch -90.5 --out " + Quote(dir.File("c")));
    ExpectCleanFailure(steep, "--pitch must be >= -90 and <= 90 degrees, got -90.5", dir.File("c"));
}

// Over UCX's TCP transport (here between ranks on one host, UCX_TLS=tcp,self) MPICH 4.0.2's
// MPI_Finalize waits on endpoint closes that a peer already in its PMI barrier never
// acknowledges, and without tools/ucx_finalize.cpp's bound every rank of this run hangs there
// until MpiSession's 5 s fallback ends it ("MPI_Finalize did not return"). With the bound the
// run ends cleanly, its report complete.
TEST(RenderCommand, ARunOverTcpEndsWithoutHangingInMpiFinalize) {
    TempDir dir;
    RunResult run =
        RunCommand("env UCX_TLS=tcp,self " + Quote(BFV_MPIEXEC) + " -n 4 " + Quote(BFV_BINARY) +
                   " render --headless --frames 10 --size 160x90 --png-every 0 --out " +
                   Quote(dir.File("out")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_FALSE(Contains(run.err, "MPI_Finalize did not return")) << run.err;
    auto report = nlohmann::json::parse(Slurp(dir.File("out/report.json")));
    EXPECT_EQ(report["end"], "completed");
}

// --record writes the poses flown as a flight file; replayed with --flight (and
// --terrain-sync) it draws the recorded frames again, in either deployment.
TEST(RenderCommand, ARecordedFlightReplaysTheSameFrames) {
    TempDir dir;
    std::string args =
        "render --headless --frames 12 --size 160x90 --png-every 0 --terrain-sync --out ";
    RunResult recorded =
        RunBfvMpi(3, args + Quote(dir.File("a")) + " --record " + Quote(dir.File("flown.json")));
    ASSERT_EQ(recorded.exitCode, 0) << recorded.err;
    EXPECT_TRUE(Contains(recorded.out, "wrote the flight flown (12 poses)")) << recorded.out;
    auto flight = nlohmann::json::parse(Slurp(dir.File("flown.json")));
    ASSERT_EQ(flight["poses"].size(), 12u);
    RunResult replayed = RunBfv(args + Quote(dir.File("b")) + " --sequential --flight " +
                                Quote(dir.File("flown.json")));
    ASSERT_EQ(replayed.exitCode, 0) << replayed.err;
    std::string checksums = Slurp(dir.File("a/checksums.txt"));
    EXPECT_EQ(Occurrences(checksums, "\n"), 12);
    EXPECT_EQ(Slurp(dir.File("b/checksums.txt")), checksums);
    RunResult unwritable = RunBfv(args + Quote(dir.File("c")) + " --sequential --record " +
                                  Quote(dir.File("no/dir/flown.json")));
    // Refused at start, before any frame is rendered (it was found only after the run).
    ExpectCleanFailure(unwritable,
                       "bfv render: --record '" + dir.File("no/dir/flown.json") +
                           "': its folder '" + dir.File("no/dir") + "' does not exist\n",
                       dir.File("c"));
}

TEST(RenderCommand, WindowModeRunsUnderXvfbAndExitsCleanly) {
    RunResult sequential = RunCommand("xvfb-run -a " + Quote(BFV_BINARY) +
                                      " render --sequential --frames 5 --size 320x180");
    EXPECT_EQ(sequential.exitCode, 0) << sequential.err;
    RunResult mpi = RunCommand("xvfb-run -a " + Quote(BFV_MPIEXEC) + " -n 3 " + Quote(BFV_BINARY) +
                               " render --frames 5 --size 320x180");
    EXPECT_EQ(mpi.exitCode, 0) << mpi.err;
}

TEST(RenderCommand, WindowModeWithoutADisplaySaysSo) {
    RunResult run = RunCommand("env -u DISPLAY -u WAYLAND_DISPLAY " + Quote(BFV_BINARY) +
                                   " render --sequential --frames 5",
                               60);
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "cannot open a window")) << run.err;
    EXPECT_TRUE(Contains(run.err, "--headless")) << run.err;
}

TEST(RenderCommand, TooFewRanksIsRefusedOnce) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(RunBfvMpi(2, kSmallRun + "--out " + Quote(out), 60),
                       "needs at least 3 MPI ranks", out);
}

// `--sequential --trace FILE` wrote no file and said nothing; it is refused before the run.
TEST(RenderCommand, TraceWithSequentialIsRefusedAtStart) {
    TempDir dir;
    std::string out = dir.File("out");
    RunResult run = RunBfv(kSmallRun + "--sequential --trace " + Quote(dir.File("trace.json")) +
                               " --out " + Quote(out),
                           60);
    ExpectCleanFailure(run,
                       "bfv render: --trace records the timelines of an MPI run's ranks, and a "
                       "--sequential run has none: run it under mpiexec (N >= 3) or leave out "
                       "--trace\n",
                       out);
    EXPECT_FALSE(fs::exists(dir.File("trace.json")));
}

// An MPI run's --trace, --record or --out that cannot be written was found only after the whole
// run; the display rank checks them before the first frame, and every rank stops, once said.
TEST(RenderCommand, UnwritableOutputsOfAnMpiRunAreRefusedAtStart) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string file = dir.File("report.json");
    std::ofstream(file) << "{}";
    struct Case {
        std::string arguments, message;
    } cases[] = {
        {"--trace " + Quote(dir.File("no/trace.json")) + " --out " + Quote(out),
         "bfv render: --trace '" + dir.File("no/trace.json") + "': its folder '" + dir.File("no") +
             "' does not exist\n"},
        {"--record " + Quote(dir.File("no/flown.json")) + " --out " + Quote(out),
         "bfv render: --record '" + dir.File("no/flown.json") + "': its folder '" + dir.File("no") +
             "' does not exist\n"},
        {"--out " + Quote(file + "/frames"), "bfv render: --out '" + file + "/frames': '" + file +
                                                 "' is not a folder, so it cannot be made\n"},
    };
    for (const Case& c : cases) {
        ExpectCleanFailure(RunBfvMpi(3, kSmallRun + c.arguments, 120), c.message, out);
    }
}

TEST(RenderCommand, MissingTerrainFileIsRefused) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string args =
        kSmallRun + "--terrain " + Quote(dir.File("nope.bfvp")) + " --out " + Quote(out);
    ExpectCleanFailure(RunBfv(args + " --sequential", 60), "nope.bfvp", out);
    ExpectCleanFailure(RunBfvMpi(3, args, 60), "nope.bfvp", out);
}

TEST(RenderCommand, CorruptTerrainFileIsRefusedByEveryDeployment) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string args =
        kSmallRun + "--terrain " + Quote(DamagedTerrain(dir, false)) + " --out " + Quote(out);
    ExpectCleanFailure(RunBfv(args + " --sequential", 60), "checksum", out);
    ExpectCleanFailure(RunBfvMpi(3, args, 60), "checksum", out);
    ExpectCleanFailure(RunBfvMpi(5, args, 60), "checksum", out);
}

TEST(RenderCommand, TruncatedTerrainFileIsRefused) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string args =
        kSmallRun + "--terrain " + Quote(DamagedTerrain(dir, true)) + " --out " + Quote(out);
    ExpectCleanFailure(RunBfvMpi(4, args, 60), "truncated", out);
}

TEST(RenderCommand, UnknownOptionIsRefusedOnce) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(RunBfvMpi(3, kSmallRun + "--bogus --out " + Quote(out), 60), "--bogus", out);
    ExpectCleanFailure(RunBfv(kSmallRun + "--sequential --bogus --out " + Quote(out), 60),
                       "--bogus", out);
}

TEST(RenderCommand, UnknownColumnCodecIsRefused) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(
        RunBfvMpi(3, "render --headless --frames 2 --column-codec gzip --out " + Quote(out), 60),
        "--column-codec", out);
}

TEST(RenderCommand, ImpossibleScreenSizesAreRefused) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string base = "render --headless --frames 2 --out " + Quote(out) + " --size ";
    ExpectCleanFailure(RunBfv(base + "0x100 --sequential", 60), "--size", out);
    ExpectCleanFailure(RunBfv(base + "100000x10 --sequential", 60), "--size", out);
    ExpectCleanFailure(RunBfv(base + "wide --sequential", 60), "WIDTHxHEIGHT", out);
    ExpectCleanFailure(RunBfvMpi(6, base + "3x100", 60), "4 ray tracers", out);
}

TEST(RenderCommand, BadFlightFileIsRefused) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string flight = dir.File("flight.json");
    std::ofstream(flight) << R"({"waypoints": [[1000, 1000]]})";
    std::string args = kSmallRun + "--flight " + Quote(flight) + " --out " + Quote(out);
    ExpectCleanFailure(RunBfvMpi(3, args, 60), "waypoints", out);
    ExpectCleanFailure(RunBfv(args + " --sequential", 60), "waypoints", out);
}

// Out-of-range values are refused by both deployments before anything is written, each with
// one message naming the option, the value and the allowed range.
TEST(RenderCommand, OutOfRangeOptionsAreRefusedWithTheirRange) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string args = kSmallRun + "--out " + Quote(out) + " ";
    struct Case {
        const char* option;
        const char* message;
    } cases[] = {
        {"--columns-per-message 100000000",
         "--columns-per-message must be >= 1 and <= 160 columns (the screen width), got 100000000"},
        {"--agl -2000", "--agl must be > 0 and <= 100000 m, got -2000"},
        {"--pitch 90.5", "--pitch must be >= -90 and <= 90 degrees, got 90.5"},
        {"--speed inf", "--speed must be >= 0 and <= 10000 m/s, got inf"},
        {"--lod-bias 0", "--lod-bias must be > 0 and <= 1000, got 0"},
        {"--max-anisotropy 0.9", "--max-anisotropy must be >= 1 and <= 64, got 0.9"},
        {"--secant-cell-pixels -1", "--secant-cell-pixels must be >= 0 and <= 64, got -1"},
        {"--fov 0.5", "--fov must be >= 1 and <= 160 degrees, got 0.5"},
        {"--haze -1", "--haze must be > 0"},
        {"--sea-level 20000", "--sea-level must be >= -12000 and <= 9000 m, got 20000"},
        {"--terrain-message-bytes 2000000000", "--terrain-message-bytes must be >= 64 and <="},
        {"--sun-elevation 0", "--sun-elevation must be > 0 and <= 90 degrees, got 0"},
        {"--warmup 4", "--warmup 4 leaves no frame of --frames 4 to count"},
        {"--supersample 0", "--supersample must be >= 1 and <= 4 rays per side, got 0"},
        {"--supersample 5", "--supersample must be >= 1 and <= 4 rays per side, got 5"},
        {"--supersample 2.5", "--supersample"},
        {"--antialias maybe", "--antialias: maybe not in {on,off}"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.option);
        ExpectCleanFailure(RunBfv(args + c.option + " --sequential", 60), c.message, out);
    }
    ExpectCleanFailure(RunBfvMpi(3, args + "--columns-per-message 100000000", 60),
                       "--columns-per-message must be >= 1 and <= 160 columns", out);
    ExpectCleanFailure(RunBfvMpi(3, args + "--agl -2000", 60), "got -2000", out);
}

// A screen narrower than the default message (16 columns) renders with messages of its whole
// width, under MPI as in one process; a message size asked for must still fit the screen.
TEST(RenderCommand, ANarrowScreenTakesMessagesOfItsWidth) {
    TempDir dir;
    const std::string args =
        "render --headless --terrain-sync --frames 2 --size 12x40 --png-every 0 --out ";
    RunResult sequential = RunBfv(args + Quote(dir.File("seq")) + " --sequential", 60);
    ASSERT_EQ(sequential.exitCode, 0) << sequential.err;
    RunResult mpi = RunBfvMpi(4, args + Quote(dir.File("mpi")), 120);
    ASSERT_EQ(mpi.exitCode, 0) << mpi.err;
    auto report = nlohmann::json::parse(Slurp(dir.File("mpi") + "/report.json"));
    EXPECT_EQ(report["options"]["pipeline"]["columnsPerMessage"], 12);
    EXPECT_EQ(report["frameChecksums"],
              nlohmann::json::parse(Slurp(dir.File("seq") + "/report.json"))["frameChecksums"]);
    ExpectCleanFailure(
        RunBfv(args + Quote(dir.File("c")) + " --sequential --columns-per-message 13", 60),
        "--columns-per-message must be >= 1 and <= 12 columns", dir.File("c"));
}

TEST(RenderCommand, OutOfRangeFlightFileIsRefused) {
    TempDir dir;
    std::string out = dir.File("out");
    std::string flight = dir.File("flight.json");
    std::ofstream(flight) << R"({"waypoints": [[1000, 1000], [5000, 1e300]], "aglM": 300})";
    std::string args = kSmallRun + "--flight " + Quote(flight) + " --out " + Quote(out);
    const std::string message = "waypoint 1 y must be >= -10000000 and <= 10000000 m, got 1e+300";
    ExpectCleanFailure(RunBfvMpi(3, args, 60), message, out);
    ExpectCleanFailure(RunBfv(args + " --sequential", 60), message, out);
}

// Under mpiexec every process would run the whole render into the same output directory.
TEST(RenderCommand, SequentialUnderSeveralMpiProcessesIsRefusedOnce) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(RunBfvMpi(4, kSmallRun + "--sequential --out " + Quote(out), 60),
                       "run it without mpiexec (or with -n 1)", out);
    RunResult single = RunBfvMpi(1, kSmallRun + "--sequential --out " + Quote(out), 60);
    EXPECT_EQ(single.exitCode, 0) << single.err;
}

TEST(RenderCommand, HelpTeachesTheDeploymentsAndKeys) {
    RunResult run = RunBfv("render --help");
    EXPECT_EQ(run.exitCode, 0);
    for (const char* part :
         {"mpiexec -n N", "--sequential", "--headless", "--receive-threads",
          "--columns-per-message", "--decomposition", "Esc", "F12", "screenshot_NNNN.png", "drag",
          "PageUp", "H hide", "(> 0 and <= 100000 m)", "(>= -90 and <= 90 degrees)", "--antialias",
          "--supersample"}) {
        EXPECT_TRUE(Contains(run.out, part)) << part;
    }
}

// --help states the pitch range the checks use, straight down to straight up, in the keys' text
// and in --pitch's own help with its two defaults (headless and in a window), and no limit of
// the column camera that came before (89.4 degrees less half the vertical field of view).
TEST(RenderCommand, HelpStatesThePitchRangeTheChecksUse) {
    RunResult run = RunBfv("render --help");
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.out, "pitch from straight down, -90 deg, to straight up, +90"))
        << run.out;
    EXPECT_TRUE(Contains(
        run.out, "in a window (horizon and sky in view) (" + common::kPitchRangeDeg.Describe()))
        << run.out;
    EXPECT_TRUE(Contains(run.out, "default -30 headless")) << run.out;
    EXPECT_FALSE(Contains(run.out, "89.4")) << run.out;
    EXPECT_FALSE(Contains(run.out, "71.4")) << run.out;
}

}  // namespace
}  // namespace bfv::tools
