#include "terrain-server/local_tile_server.h"

#include <gtest/gtest.h>

#include <numbers>

#include "terrain/tile_stream.h"
#include "tests/pyramid_fixture.h"
#include "tests/temp_dir.h"

namespace bfv::terrain_server {
namespace {

// The test pyramid (16 km, 4 levels, 2 stored) in a file, and a view low over its centre.
struct Served {
    test_support::TempDir dir;
    terrain::PyramidFile file;
    common::ScreenSpec screen{320, 180, std::numbers::pi / 3};
    common::CameraPose pose{{5000.0, 4000.0, 900.0}, 0.3, -0.4, 0.0};

    Served() : file(Open(dir.File("p.bfvp"))) {}
    static terrain::PyramidFile Open(const std::string& path) {
        EXPECT_TRUE(terrain::WritePyramidFile(path, test_support::MakeTestPyramid()).ok());
        auto file = terrain::PyramidFile::Open(path);
        EXPECT_TRUE(file.ok());
        return std::move(*file);
    }
    SchedulerOptions Options() const { return {1000, screen, 1.0, 2.0}; }
};

int TileRecords(const std::vector<std::byte>& records, const terrain::PyramidGeometry& g) {
    terrain::TileStreamReader reader;
    reader.Feed(records);
    terrain::TileRecord r;
    int tiles = 0;
    while (*reader.Next(g, r)) tiles += r.kind == terrain::TileRecord::kTile;
    return tiles;
}

TEST(LocalTileServer, SyncServesEveryWantedTileOnceWhateverTheBudget) {
    Served s;
    LocalTileServer server(s.file, s.Options(), 0.0);
    std::vector<std::byte> records;
    auto bytes = server.ServeFrame(0, s.pose, 0.0, true, records);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    EXPECT_EQ(*bytes, records.size());
    int pinned = 0, wanted = 0;
    for (const WantedTile& t :
         TilesForView(s.file.Info(), s.pose, s.screen, 1.0, s.Options().maxAnisotropy)) {
        (t.key.level < terrain::PinnedLevels(s.file.Info()) ? pinned : wanted) += 1;
    }
    EXPECT_GT(wanted, 0);
    EXPECT_EQ(TileRecords(records, s.file.Info().geometry), wanted) << pinned << " pinned not sent";
    EXPECT_EQ(server.StreamBytes(), static_cast<double>(records.size()));
    records.clear();
    ASSERT_TRUE(server.ServeFrame(1, s.pose, 0.0, true, records).ok());
    EXPECT_TRUE(records.empty()) << "the same view again: all resident";
}

TEST(LocalTileServer, LiveStreamStaysWithinTheBudget) {
    Served s;
    double budgetBytesPerS = 3.5 * terrain::kTileRecordBytes;  // 3.5 tiles a second
    LocalTileServer server(s.file, s.Options(), budgetBytesPerS);
    std::vector<std::byte> records;
    ASSERT_EQ(*server.ServeFrame(0, s.pose, 0.1, false, records), 0u) << "0.35 tiles due";
    ASSERT_TRUE(server.ServeFrame(1, s.pose, 1.0, false, records).ok());
    EXPECT_EQ(TileRecords(records, s.file.Info().geometry), 1)
        << "the burst cap holds a second's budget back";
    LocalTileServer none(s.file, s.Options(), 0.0);
    records.clear();
    EXPECT_EQ(*none.ServeFrame(0, s.pose, 10.0, false, records), 0u);
}

}  // namespace
}  // namespace bfv::terrain_server
