#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "common/expected.h"
#include "terrain/pyramid_file.h"
#include "terrain/tile_pyramid.h"

namespace bfv::terrain {

/// What every rank of `bfv render` starts with, broadcast once by the terrain server: the
/// pyramid's header and the tiles of its pinned levels (the low-resolution fallback the tracers
/// always hold, and the ground the display's flight follows).
struct TerrainStartup {
    PyramidInfo info;
    std::vector<TilePosts> pinned;  // every tile of levels 0..PinnedLevels(info)-1
};

/// The start-up terrain of an opened pyramid file: its header and every tile of its pinned
/// levels, in level, row, column order. Errors: a pinned tile that is corrupt (named).
Expected<TerrainStartup> ReadTerrainStartup(const PyramidFile& file);

/// Exaggerates `startup`'s heights by `factor` (> 0): the height coding's scale and offset and
/// the lowest and highest posts, so that every tile decoded with startup.info (the pinned ones
/// and the streamed ones alike) has its heights times `factor` (--exaggeration). The terrain
/// server keeps the file's own coding: the codes it sends are the same.
void Exaggerate(TerrainStartup& startup, double factor);

/// Bytes of `startup`: the pyramid file's header (EncodePyramidHeader), then one tile-stream
/// record per pinned tile (terrain/tile_stream.h).
std::vector<std::byte> EncodeTerrainStartup(const TerrainStartup& startup);

/// Inverse of EncodeTerrainStartup. Errors: the header's (DecodePyramidHeader), a record that
/// is not a tile, or a pinned level that is incomplete.
Expected<TerrainStartup> DecodeTerrainStartup(std::span<const std::byte> bytes);

}  // namespace bfv::terrain
