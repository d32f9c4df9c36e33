#pragma once

// The bfv terrain file (.bfvt), version 1: one Terrain, its posts quantised to int16.
//
// All numbers little-endian; f32/f64 are IEEE 754. Offsets in bytes.
//
//   offset  size  field
//        0     8  magic "BFVTERR1" (no NUL)
//        8     4  u32 version = 1
//       12     4  u32 headerBytes = 96 + nameBytes: where the posts start
//       16     4  u32 nx: posts per row, west to east, 1..65536
//       20     4  u32 ny: rows, south to north, 1..65536
//       24     8  f64 spacingXM: post spacing east-west, metres, finite and > 0
//       32     8  f64 spacingYM: post spacing south-north, metres, finite and > 0
//       40    32  f64 lonMinDeg, lonMaxDeg, latMinDeg, latMaxDeg: outer edges, degrees (WGS84);
//                 all zero when the source had no georeference
//       72     4  f32 heightScaleM: metres per post unit, finite and > 0
//       76     4  f32 heightOffsetM: metres, finite
//       80     4  f32 minHeightM: lowest post, metres (informative)
//       84     4  f32 maxHeightM: highest post, metres (informative)
//       88     4  u32 nameBytes: 0..255
//       92     n  name: UTF-8, no NUL, nameBytes long
//     92+n     4  u32 postsCrc32: zlib crc32 of the posts section
//     96+n  2*nx*ny  posts: int16, row-major, j (south to north) outer, i (west to east) inner;
//                 height of post (i, j) in metres = heightOffsetM + heightScaleM * post
//
// The file ends right after the posts: its size is exactly headerBytes + 2 * nx * ny.
// Encoding uses scale 1 m and offset 0 when every height is an integer within int16 range (so
// integer DEMs round-trip exactly); otherwise the int16 range [-32767, 32767] is stretched
// over [min, max] and a height round-trips within heightScaleM / 2.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/terrain.h"

namespace bfv::common {

inline constexpr std::uint32_t terrainFileVersion = 1;       // the version this bfv writes
inline constexpr int terrainFileMaxPostsPerSide = 65536;     // limit on nx and ny
inline constexpr std::size_t terrainFileMaxNameBytes = 255;  // limit on the name's length

/// The header of a terrain file: everything but the posts.
struct TerrainFileInfo {
    std::uint32_t version = 0;      // = 1
    std::uint32_t headerBytes = 0;  // offset of the posts section, bytes
    int nx = 0;                     // posts per row (east-west)
    int ny = 0;                     // rows (south-north)
    double spacingXM = 0.0;         // post spacing east-west, metres
    double spacingYM = 0.0;         // post spacing south-north, metres
    GeoExtent geo;                  // outer edges in degrees; all zero if none
    float heightScaleM = 1.0f;      // metres per post unit
    float heightOffsetM = 0.0f;     // metres added after scaling
    float minHeightM = 0.0f;        // lowest post, metres
    float maxHeightM = 0.0f;        // highest post, metres
    std::string name;               // dataset name, UTF-8
    std::uint32_t postsCrc32 = 0;   // zlib crc32 of the posts section
};

/// The whole .bfvt file image of `terrain` (see the layout above). Requires a valid terrain:
/// 1 <= nx, ny <= 65536, heightsM.size() == nx * ny, finite heights, finite positive spacing
/// (checked with BFV_CHECK; WriteTerrainFile checks the same and returns an Error instead).
/// A name longer than 255 bytes is cut at a UTF-8 character boundary.
std::vector<std::byte> EncodeTerrain(const Terrain& terrain);

/// Parses and validates the header of a .bfvt image (`bytes` is only borrowed). Needs only the
/// header bytes, not the posts. Errors ("terrain file '<sourceName>': ..."): too short, not a
/// bfv terrain file (bad magic), unsupported version, header size mismatch, nx or ny zero or
/// above 65536, spacing not finite and positive, bad height scale, name too long or with NUL.
Expected<TerrainFileInfo> ReadTerrainHeader(std::span<const std::byte> bytes,
                                            const std::string& sourceName);

/// Decodes a whole .bfvt image (`bytes` is only borrowed) into a Terrain with heights in
/// metres. Never reads past the end of `bytes`. Errors ("terrain file '<sourceName>': ..."):
/// those of ReadTerrainHeader, a size mismatch (truncated or trailing bytes; gives the
/// expected and actual sizes), and a posts checksum mismatch (the file is corrupt).
Expected<Terrain> DecodeTerrain(std::span<const std::byte> bytes, const std::string& sourceName);

/// Reads and decodes the .bfvt file at `path`. Errors: those of ReadFileBytes and
/// DecodeTerrain (with sourceName = path).
Expected<Terrain> ReadTerrainFile(const std::string& path);

/// Encodes `terrain` and writes it to `path` atomically (WriteFileAtomic). Errors: the terrain
/// cannot be stored (empty, too large, heights missing or not finite, bad spacing) or the file
/// cannot be written.
Expected<void> WriteTerrainFile(const std::string& path, const Terrain& terrain);

/// Checks that `terrain` can be stored in a .bfvt file: 1 <= nx, ny <= 65536, nx*ny heights,
/// all finite, spacing finite and positive. Errors name the problem ("terrain 'NAME': ...").
Expected<void> CheckTerrainStorable(const Terrain& terrain);

}  // namespace bfv::common
