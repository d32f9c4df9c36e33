// Runs the real `bfv info` (BFV_BINARY) on pyramid files the tests write.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "terrain/pyramid_file.h"
#include "tests/pyramid_fixture.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Contains;
using test_support::MakeTestPyramid;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunResult;
using test_support::TempDir;

/// Writes the test pyramid (2 of 4 levels stored: 5 tiles) to DIR/p.bfvp.
std::string WritePyramid(const TempDir& dir, const terrain::Pyramid& pyramid = MakeTestPyramid()) {
    std::string path = dir.File("p.bfvp");
    Expected<void> written = terrain::WritePyramidFile(path, pyramid);
    EXPECT_TRUE(written.ok()) << written.error().message;
    return path;
}

TEST(InfoCommand, DescribesAPyramidAndVerifiesItsTiles) {
    TempDir dir;
    std::string path = WritePyramid(dir);
    RunResult run = RunBfv("info " + Quote(path));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    for (const char* line :
         {"name         test ridge", "extent       11.25 x 9.60 km",
          "lon -84.40000 to -84.00000 deg, lat 36.40000 to 36.70000 deg", "root tile    16.38 km",
          "levels       4 (2 stored from the source, 2 refined", "256.000               1  stored",
          "32.000               8  fractal", "stored tiles 5", "heights      236.0 to 1076.5 m",
          "0.03125 m per unit", "sigma 2.750 m at 30.00 m spacing, hurst 0.850",
          "checksums: all 5 tiles OK"}) {
        EXPECT_TRUE(Contains(run.out, line)) << "missing '" << line << "' in\n" << run.out;
    }
    EXPECT_EQ(run.err, "");
}

TEST(InfoCommand, JsonParsesAndHoldsTheSameFacts) {
    TempDir dir;
    std::string path = WritePyramid(dir);
    RunResult run = RunBfv("info --json " + Quote(path));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    nlohmann::json info = nlohmann::json::parse(run.out);
    EXPECT_EQ(info["name"], "test ridge");
    EXPECT_EQ(info["levelCount"], 4);
    EXPECT_EQ(info["storedLevels"], 2);
    EXPECT_EQ(info["storedTiles"], 5);
    ASSERT_EQ(info["levels"].size(), 4u);
    EXPECT_EQ(info["levels"][3]["tilesPerSide"], 8);
    EXPECT_EQ(info["levels"][3]["stored"], false);
    EXPECT_EQ(info["roughness"]["seed"].get<std::uint64_t>(), 0x1234567890ABCDEFull);
    EXPECT_EQ(info["extent"]["widthM"], 11250.5);
    EXPECT_EQ(info["checksums"]["ok"], true);
    EXPECT_EQ(info["fileBytes"].get<std::size_t>(), std::filesystem::file_size(path));
    EXPECT_EQ(info["version"], 1);
    EXPECT_EQ(info["landColours"], nlohmann::json::array());
}

TEST(InfoCommand, ADrapedPyramidIsVersion3WithItsPalette) {
    TempDir dir;
    terrain::Pyramid pyramid = MakeTestPyramid();
    pyramid.info.drapedLevels = pyramid.info.storedLevels;
    for (int c = 0; c < 12; ++c) pyramid.info.landColours.push_back({std::uint8_t(c), 0x80, 0xff});
    for (terrain::TilePosts& tile : pyramid.tiles)
        tile.materials.assign(terrain::kTilePostCount, 9);
    std::string path = WritePyramid(dir, pyramid);
    RunResult run = RunBfv("info --json " + Quote(path));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    nlohmann::json info = nlohmann::json::parse(run.out);
    EXPECT_EQ(info["version"], 3);
    ASSERT_EQ(info["landColours"].size(), 12u);
    EXPECT_EQ(info["landColours"][11], "#0b80ff");
    RunResult text = RunBfv("info " + Quote(path));
    EXPECT_TRUE(Contains(text.out, "version 3")) << text.out;
    EXPECT_TRUE(Contains(text.out, "imagery      draped, palette of 12 colours")) << text.out;
}

TEST(InfoCommand, ACorruptTileFailsNamingTheTile) {
    TempDir dir;
    std::string path = WritePyramid(dir);
    Expected<std::vector<std::byte>> bytes = common::ReadFileBytes(path);
    ASSERT_TRUE(bytes.ok());
    (*bytes)[bytes->size() - 10] ^= std::byte{0x40};  // in the last tile, L1/1/1
    ASSERT_TRUE(common::WriteFileAtomic(path, *bytes).ok());
    for (std::string flags : {"", "--json "}) {
        RunResult run = RunBfv("info " + flags + Quote(path));
        EXPECT_EQ(run.exitCode, 1) << flags;
        EXPECT_TRUE(Contains(run.err, "bfv info: pyramid file '" + path +
                                          "': tile L1/1/1 is corrupt (checksum mismatch)"))
            << run.err;
        EXPECT_FALSE(Contains(run.out, "checksums: all")) << run.out;
    }
    EXPECT_EQ(RunBfv("info --json " + Quote(path)).out, "");
}

TEST(InfoCommand, AMissingFileIsNamed) {
    TempDir dir;
    std::string path = dir.File("none.bfvp");
    RunResult run = RunBfv("info " + Quote(path));
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(Contains(run.err, "bfv info: cannot open '" + path + "': No such file")) << run.err;
}

TEST(InfoCommand, AnOldTerrainFileIsToldToReimport) {
    TempDir dir;
    std::string path = dir.File("old.bfvt");
    // The first bytes of a version 1 single-grid file: its magic, then version 1.
    std::ofstream(path, std::ios::binary)
        << std::string("BFVTERR1\x01\0\0\0", 12) << std::string(100, '\0');
    RunResult run = RunBfv("info " + Quote(path));
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(Contains(run.err, "old single-grid terrain file")) << run.err;
    EXPECT_TRUE(Contains(run.err, "re-import its DEM with `bfv import`")) << run.err;
}

TEST(InfoCommand, HelpTeachesWithAnExample) {
    RunResult run = RunBfv("info --help");
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.out, "bfv info assets/")) << run.out;
    EXPECT_TRUE(Contains(run.out, "--json")) << run.out;
    RunResult top = RunBfv("--help");
    EXPECT_TRUE(Contains(top.out, "info")) << top.out;
}

}  // namespace
}  // namespace bfv::tools
