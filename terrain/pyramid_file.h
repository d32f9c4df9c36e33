#pragma once

// The bfv tile pyramid file (.bfvp): one dataset's PyramidInfo and the tiles of its stored
// levels (see tile_pyramid.h), read through a memory map so that opening is instant and a tile
// costs one checksum and one copy. Version 1 holds heights only; version 3 (a DEM draped with
// imagery, PyramidInfo::Textured) adds the imagery's palette to the header, each post's index
// into it to every stored tile, and tiles of those indices alone for the fractal levels the
// imagery is fine enough for (PyramidInfo::drapedLevels). Version 2, written before, held an
// 8-colour ordered ramp and each post's place on it (code = place x 255 / 8, rounded); it is
// still read, its ramp expanded into the 256-colour palette of those places (ExpandRamp), so
// that the rest of bfv only sees palettes. bfv writes version 1 for a pyramid without imagery,
// 3 with, and reads all three.
//
// All numbers little-endian; f32/f64 are IEEE 754. Offsets in bytes; n = nameBytes,
// S = number of stored tiles = sum over L < storedLevels of 4^L, T = number of tiles in the
// file = S (version 1) or sum over L < drapedLevels of 4^L (versions 2 and 3).
//
//   offset  size  field
//        0     8  magic "BFVPYRM1" (no NUL)
//        8     4  u32 version: 1, or 3 (2 before) with imagery
//       12     4  u32 headerBytes = 160 + n (version 1) or 160 + n + 4 + 3 * C + 4
//                 (versions 2 and 3): where the index starts
//       16     8  f64 rootSizeM: side of level 0's tile, metres, finite and > 0
//       24     4  u32 levelCount: 1..kMaxLevels
//       28     4  u32 storedLevels: 1..levelCount
//       32     8  f64 dataWidthM: source data east-west, metres, in (0, rootSizeM]
//       40     8  f64 dataDepthM: source data south-north, metres, in (0, rootSizeM]
//       48     8  f64 sourceSpacingM: the source DEM's post spacing, metres, finite and > 0
//       56    32  f64 lonMinDeg, lonMaxDeg, latMinDeg, latMaxDeg: data area edges, degrees
//                 (WGS84); all zero when the source had no georeference
//       88     8  f64 coding.scaleM: metres per code unit, finite and > 0
//       96     8  f64 coding.offsetM: metres, finite
//      104     8  f64 roughness.sigmaM: metres, finite and >= 0
//      112     8  f64 roughness.referenceSpacingM: metres, finite and > 0
//      120     8  f64 roughness.hurst: finite
//      128     8  u64 roughness.seed
//      136     4  f32 minHeightM: lowest stored post, metres (informative)
//      140     4  f32 maxHeightM: highest stored post, metres (informative), >= minHeightM
//      144     4  u32 kTileCells of the writer (a file from a build with other tile
//      148     4  u32 kTileBorder of the writer  constants is rejected)
//      152     4  u32 nameBytes: 0..255
//      156     n  name: UTF-8, no NUL
//   versions 2 and 3, at 156+n: u32 C, then C x (u8 r, g, b) sRGB colours, then u32
//                 drapedLevels: storedLevels..levelCount. Version 3: C = 1..256, the imagery's
//                 palette (PyramidInfo::landColours). Version 2: C = 8, an ordered ramp.
//        H-4     4  u32 headerCrc32: zlib crc32 of bytes [0, H-4), H = headerBytes
//        H  24*T  index, one entry per tile in Pyramid order (level, then ty, then tx):
//                   u64 packed TileKey, u64 offset of the tile from the file start,
//                   u32 bytes (B of its kind, below), u32 zlib crc32 of the tile's bytes
//   H+24*T        tiles, in index order, back to back. A tile of a stored level:
//                 kTilePostCount int16 codes, in TilePosts order (height = coding.offsetM +
//                 coding.scaleM * code), and with imagery then kTilePostCount u8 material
//                 codes (TilePosts::materials; version 3: indices into the palette, each < C;
//                 version 2: places on the ramp): B = 2 or 3 * kTilePostCount. A tile of a
//                 draped fractal level (versions 2 and 3): its kTilePostCount u8 material codes
//                 alone, B = kTilePostCount.
//
// The file ends right after the last tile. Readers require the index to list exactly the
// expected keys in order and the tiles to be back to back, so the index is redundant but for
// the checksums; it is there so a later version can drop or reorder tiles.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "terrain/drape.h"
#include "terrain/pyramid_builder.h"
#include "terrain/tile_pyramid.h"

namespace bfv::terrain {

inline constexpr std::uint32_t pyramidFileVersion = 3;  // the newest version this bfv writes
inline constexpr std::uint32_t pyramidFileUntexturedVersion = 1;  // a pyramid without imagery
inline constexpr std::uint32_t pyramidFileRampVersion = 2;   // imagery as an 8-colour ramp (read)
inline constexpr std::size_t pyramidFileMaxNameBytes = 255;  // limit on the name's length

/// The version of the file this bfv writes for `info`: 3 when imagery is draped
/// (PyramidInfo::Textured), else 1.
inline std::uint32_t PyramidFileVersionOf(const PyramidInfo& info) {
    return info.Textured() ? pyramidFileVersion : pyramidFileUntexturedVersion;
}

/// Checks `pyramid` and writes it to `path` atomically (common::AtomicFileWriter: a failure leaves
/// no file and keeps an old one). The whole image is built in memory first (about the size of the
/// tiles). Errors: the pyramid cannot be stored ("pyramid 'NAME': ..."): tile count is not the
/// sum over stored levels of 4^L, a key out of order, a tile without kTilePostCount codes, a
/// tile's materials not kTilePostCount on a textured pyramid or not empty on another, a
/// material code not an index into the palette, a palette (land colours) of more than
/// kMaxPaletteColours colours, a header number not finite, coding scale <= 0,
/// levelCount outside 1..kMaxLevels, storedLevels outside 1..levelCount, name longer than 255 bytes
/// or with a NUL; or the file cannot be written ("cannot write 'PATH': ...").
Expected<void> WritePyramidFile(const std::string& path, const Pyramid& pyramid);

/// What WritePyramidFileFromRows's caller follows it with, and stops it by; each unset when
/// not wanted.
struct PyramidWriteWatch {
    BuildProgress progress;       // (posts, total) as the levels are built
    BuildProgress drapeProgress;  // (tiles, total) as imagery is draped over the fractal levels
    std::function<bool()> stop;   // asked before each strip read and tile row written, and
                                  // before the file is put in place: true stops the write
};

/// The error of a write that PyramidWriteWatch::stop stopped.
inline constexpr const char* kWriteStopped = "stopped";

/// Builds the pyramid of `source` (BuildPyramidFromRows) and writes it to `path` a row of tiles
/// at a time, so memory does not grow with the DEM; the same bytes as BuildPyramid and
/// WritePyramidFile of the same heights. With `imagery`, drapes it over the DEM (DrapeSink:
/// a version 3 file with the imagery's palette, every stored post's index into it, and the
/// tiles of the draped fractal levels). Atomic like WritePyramidFile (common::AtomicFileWriter:
/// the file has no name until it is complete and renamed over PATH; on any error, a stop, or
/// the process's death there is none and an old PATH is kept). Returns what was built. Errors:
/// those of BuildPyramidFromRows (the source's read errors among them), the imagery's read
/// errors, an unstorable header ("pyramid 'NAME': ..."), "cannot write 'PATH': ...", or
/// kWriteStopped once `watch.stop` says so.
Expected<PyramidBuild> WritePyramidFileFromRows(const std::string& path, PostRowSource& source,
                                                const PyramidBuildOptions& options,
                                                Imagery* imagery = nullptr,
                                                const PyramidWriteWatch& watch = {});

/// The header of a pyramid file for `info` (magic through the header crc32, see the layout
/// above), as the file starts with it; the start-up broadcast of `bfv render` carries it too.
/// Requires an `info` WritePyramidFile would accept.
std::vector<std::byte> EncodePyramidHeader(const PyramidInfo& info);

/// A parsed header, its length in bytes and the file version it came in.
struct PyramidHeader {
    PyramidInfo info;
    std::size_t headerBytes = 0;
    std::uint32_t version = 0;
};

/// The palette of an old (version 2) file's 8-colour ramp `ramp`: entry c is the ramp's colour
/// at place c x 8 / 255 (the inverse of the version 2 writer's code = place x 255 / 8; clamped
/// to the last step), linear between the two steps around it (common::RampColour); 256
/// entries.
std::vector<common::Rgb> ExpandRamp(const common::LandColours& ramp);

/// Parses and validates the header at the start of `bytes` (more may follow): magic (an old
/// .bfvt is named), version, size, checksum, tile constants, level counts and values; a version
/// 2 ramp comes back as its ExpandRamp palette. Errors name the problem without a file name
/// (e.g. "palette of 300 colours, at most 256"); PyramidFile::Open prefixes its path.
Expected<PyramidHeader> DecodePyramidHeader(std::span<const std::byte> bytes);

/// A .bfvp file opened read-only through a memory map, which it owns (move-only; unmapped on
/// destruction). Thread-safe for concurrent reads. Files are replaced by rename (see
/// WritePyramidFile), never rewritten in place; truncating a mapped file under a reader is
/// outside the contract (the kernel would signal SIGBUS).
class PyramidFile {
  public:
    /// Maps the file at `path` and validates its header and index (not the tiles' checksums:
    /// ReadTile checks those, so opening costs O(tile count) small reads, not a pass over the
    /// tiles). Never reads outside the file. Errors ("pyramid file 'PATH': ..."): cannot open
    /// or map it, empty, not a bfv pyramid file (bad magic; an old .bfvt single-grid terrain
    /// file gets its own message asking to re-import it with `bfv import`), unsupported
    /// version, truncated header, header checksum mismatch, tile constants of another build,
    /// bad counts or geometry, an index entry with an unexpected key, offset or size, and a
    /// size mismatch ("truncated: N bytes, expected M" or "trailing bytes: ...").
    static Expected<PyramidFile> Open(const std::string& path);

    PyramidFile(PyramidFile&& other) noexcept;
    PyramidFile& operator=(PyramidFile&& other) noexcept;
    PyramidFile(const PyramidFile&) = delete;
    PyramidFile& operator=(const PyramidFile&) = delete;
    ~PyramidFile();

    /// The header: everything about the dataset but its tiles (a version 2 file's ramp
    /// expanded into a palette, see ExpandRamp).
    const PyramidInfo& Info() const { return info_; }
    /// The file's version: 1, 2 or 3.
    std::uint32_t Version() const { return version_; }
    /// Number of tiles in the file: sum over L < PyramidInfo::FileLevels() of 4^L.
    int TileCount() const { return tileCount_; }
    /// The key of stored tile `index`, 0 <= index < TileCount(), in Pyramid order.
    TileKey KeyAt(int index) const;
    /// Size of the file, bytes.
    std::size_t FileBytes() const { return fileBytes_; }

    /// Copies tile `key` out of the map after checking its crc32: a stored level's codes (and
    /// materials with imagery), a draped fractal level's materials alone (no codes). Errors
    /// ("pyramid file 'PATH': tile L2/1/3 ..."): the key is not in the file (a level at or
    /// past FileLevels(), or tx/ty outside 0..2^L-1), or the tile is corrupt (checksum
    /// mismatch), or a material code is not an index into the palette ("tile L5/3/10: colour
    /// index 9 beyond the palette's 4 colours").
    Expected<TilePosts> ReadTile(const TileKey& key) const;

    /// Checks every stored tile's crc32 in index order, calling `progress(done, total)` (tiles)
    /// after each one when given. Errors: the first corrupt tile, as ReadTile names it.
    Expected<void> VerifyAllTiles(
        const std::function<void(int done, int total)>& progress = {}) const;

  private:
    PyramidFile() = default;
    Expected<void> Validate();
    /// Checks the crc32 of stored tile `index` against its index entry.
    Expected<void> CheckTile(int index) const;
    Error FileError(const std::string& problem) const;
    void Unmap();

    std::string path_;
    PyramidInfo info_;
    const std::byte* map_ = nullptr;  // the whole file, read-only; owned
    std::size_t fileBytes_ = 0;
    std::size_t indexOffset_ = 0;  // where the index starts (= headerBytes)
    int tileCount_ = 0;
    std::uint32_t version_ = 0;
};

}  // namespace bfv::terrain
