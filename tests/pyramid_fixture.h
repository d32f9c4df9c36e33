#pragma once

// A small hand-made Pyramid for tests of the pyramid file and of `bfv info`: every header field
// has a distinctive value and every tile a pattern that names it.

#include <cstdint>
#include <string>

#include "terrain/tile_pyramid.h"

namespace bfv::test_support {

/// Code `k` of stored tile `index`: differs between tiles and posts, covers negative codes.
inline std::int16_t TestCode(int index, int k) {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(index * 7919 + k * 31));
}

/// A pyramid of `levelCount` levels whose first `storedLevels` are stored (1 + 4 + ... tiles).
inline terrain::Pyramid MakeTestPyramid(int storedLevels = 2, int levelCount = 4,
                                        const std::string& name = "test ridge") {
    terrain::Pyramid p;
    terrain::PyramidInfo& info = p.info;
    info.name = name;
    info.geo = {-84.4, -84.0, 36.4, 36.7};
    info.dataWidthM = 11250.5;
    info.dataDepthM = 9600.25;
    info.sourceSpacingM = 30.0;
    info.geometry = {16384.0, levelCount};
    info.storedLevels = storedLevels;
    info.coding = {0.03125, 650.0};
    info.roughness = {2.75, 30.0, 0.85, 0x1234567890ABCDEFull};
    info.minHeightM = 236.0f;
    info.maxHeightM = 1076.5f;
    int index = 0;
    for (int level = 0; level < storedLevels; ++level) {
        int n = 1 << level;
        for (int ty = 0; ty < n; ++ty) {
            for (int tx = 0; tx < n; ++tx, ++index) {
                terrain::TilePosts tile{{level, tx, ty}, {}};
                for (int k = 0; k < terrain::kTilePostCount; ++k) {
                    tile.codes.push_back(TestCode(index, k));
                }
                p.tiles.push_back(std::move(tile));
            }
        }
    }
    return p;
}

}  // namespace bfv::test_support
