#pragma once

// Sources and sinks for tests of building pyramids from rows (terrain/pyramid_builder.h): a
// rough synthetic DEM, a row source that records (and can fail) its reads, and a tile sink that
// records what it is given.

#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "terrain/pyramid_builder.h"

namespace bfv::test_support {

/// A rough synthetic DEM: nx x ny posts `spacingM` apart, ridges plus hashed noise.
inline terrain::Terrain RoughTerrain(int nx, int ny, double spacingM) {
    terrain::Terrain t{"rough", nx, ny, spacingM, spacingM, {}, {}};
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            double noise = std::sin(i * 12.9898 + j * 78.233) * 43758.5453;
            noise -= std::floor(noise);
            t.heightsM.push_back(static_cast<float>(
                300.0 + 80.0 * std::sin(i * 0.21) * std::cos(j * 0.17) + 15.0 * noise - 2.0 * j));
        }
    }
    return t;
}

/// A PostRowSource over `rows` that records the reads and can fail the read numbered
/// `failAtRead` (counting from 0 over the whole build).
class RecordingRows final : public terrain::PostRowSource {
  public:
    explicit RecordingRows(terrain::PostRowSource& rows, int failAtRead = -1)
        : rows_(rows), failAtRead_(failAtRead) {}
    const terrain::SourceGrid& Grid() const override { return rows_.Grid(); }
    int StripRows(int j0) const override { return rows_.StripRows(j0); }
    Expected<void> ReadRows(int j0, int count, std::span<float> heightsM) override {
        reads.push_back({j0, count});
        if (static_cast<int>(reads.size()) - 1 == failAtRead_) return Error{"disk on fire"};
        return rows_.ReadRows(j0, count, heightsM);
    }
    std::vector<std::pair<int, int>> reads;  // (j0, count) of every read, in order

  private:
    terrain::PostRowSource& rows_;
    int failAtRead_;
};

/// A TileSink that records what it is given, and can fail the tile row numbered `failAtRow`
/// (counting from 0) with "disk full".
class RecordingSink final : public terrain::TileSink {
  public:
    explicit RecordingSink(int failAtRow = -1) : failAtRow_(failAtRow) {}
    Expected<void> Start(const terrain::PyramidInfo& started) override {
        info = started;
        ++starts;
        return {};
    }
    Expected<void> PutTileRow(std::span<const terrain::TilePosts> tiles) override {
        if (static_cast<int>(rowSizes.size()) == failAtRow_) return Error{"disk full"};
        for (const terrain::TilePosts& tile : tiles) keys.push_back(tile.key);
        rowSizes.push_back(static_cast<int>(tiles.size()));
        return {};
    }
    terrain::PyramidInfo info;
    int starts = 0;
    std::vector<terrain::TileKey> keys;
    std::vector<int> rowSizes;

  private:
    int failAtRow_;
};

}  // namespace bfv::test_support
