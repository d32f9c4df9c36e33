#include "terrain/pyramid_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/check.h"
#include "common/file_io.h"
#include "terrain/byte_io.h"

namespace bfv::terrain {
namespace {

constexpr std::string_view magic = "BFVPYRM1";
constexpr std::string_view terrainFileMagic = "BFVTERR1";  // the v1 single-grid .bfvt
constexpr std::size_t fixedHeaderBytes = 160;              // the header without the name
constexpr std::size_t nameOffset = 156;                    // where the name starts
constexpr std::size_t indexEntryBytes = 24;  // u64 key, u64 offset, u32 bytes, u32 crc32

/// Colours of a version 2 file's ramp, and its codes per step of the ramp.
constexpr std::uint32_t rampColours = 8;
constexpr float rampCodesPerStep = 255.0f / rampColours;

/// Bytes the header gives the imagery (versions 2 and 3) of `colours` colours: their count and
/// colours, and the draped level count; 0 without imagery.
constexpr std::size_t ImageryHeaderBytes(std::size_t colours) {
    return colours > 0 ? 4 + 3 * colours + 4 : 0;
}

/// Where the tiles of a pyramid file lie: those of the stored levels first, each its height
/// codes (and with imagery its material codes), then those of the draped fractal levels, each
/// its material codes only; all in Pyramid order.
struct TileLayout {
    explicit TileLayout(const PyramidInfo& info)
        : storedLevels(info.storedLevels),
          fileLevels(info.FileLevels()),
          storedTiles(TilesBelowLevel(info.storedLevels)),
          fileTiles(TilesBelowLevel(info.FileLevels())),
          storedTileBytes((info.Textured() ? 3 : 2) * kTilePostCount),
          textured(info.Textured()),
          colours(info.landColours.size()) {}

    /// Bytes of the tile at `index`.
    std::size_t Bytes(std::uint64_t index) const {
        return index < storedTiles ? storedTileBytes : kTilePostCount;
    }
    /// Where the tile at `index` starts, in bytes from the first tile.
    std::uint64_t Offset(std::uint64_t index) const {
        return index < storedTiles
                   ? index * storedTileBytes
                   : storedTiles * storedTileBytes + (index - storedTiles) * kTilePostCount;
    }
    /// Bytes of all the tiles.
    std::uint64_t TotalBytes() const { return Offset(fileTiles); }

    int storedLevels;
    int fileLevels;
    std::uint64_t storedTiles;  // tiles of the stored levels
    std::uint64_t fileTiles;    // tiles in the file
    std::size_t storedTileBytes;
    bool textured;        // every tile carries material codes
    std::size_t colours;  // in the palette they index
};

/// The key of tile `index` in Pyramid order (level, then ty, then tx).
TileKey KeyOfIndex(std::uint64_t index) {
    int level = 0;
    while (index >= TilesBelowLevel(level + 1)) ++level;
    std::uint64_t inLevel = index - TilesBelowLevel(level);
    std::uint64_t perSide = std::uint64_t{1} << level;
    return {level, static_cast<int>(inLevel % perSide), static_cast<int>(inLevel / perSide)};
}

std::string CountsProblem(long long levelCount, long long storedLevels) {
    if (levelCount < 1 || levelCount > kMaxLevels) {
        return fmt::format("level count {} outside 1..{}", levelCount, kMaxLevels);
    }
    if (storedLevels < 1 || storedLevels > levelCount) {
        return fmt::format("stored levels {} outside 1..{} (the level count)", storedLevels,
                           levelCount);
    }
    return {};
}

bool Finite(std::initializer_list<double> values) {
    return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

std::string ExtentProblem(const PyramidInfo& info) {
    double rootM = info.geometry.rootSizeM;
    if (!Finite({rootM}) || rootM <= 0.0) return fmt::format("bad root size {} m", rootM);
    double slackM = rootM * 1e-9;  // the builder's rounding
    auto badSide = [&](double m) { return !Finite({m}) || m <= 0.0 || m > rootM + slackM; };
    if (badSide(info.dataWidthM) || badSide(info.dataDepthM)) {
        return fmt::format("bad data extent {} x {} m (each must be in (0, root size {} m])",
                           info.dataWidthM, info.dataDepthM, rootM);
    }
    if (!Finite({info.sourceSpacingM}) || info.sourceSpacingM <= 0.0) {
        return fmt::format("bad source post spacing {} m", info.sourceSpacingM);
    }
    const GeoExtent& g = info.geo;
    if (!Finite({g.lonMinDeg, g.lonMaxDeg, g.latMinDeg, g.latMaxDeg})) {
        return "geographic extent is not finite";
    }
    return {};
}

std::string ValueProblem(const PyramidInfo& info) {
    const HeightCoding& c = info.coding;
    if (!Finite({c.scaleM, c.offsetM}) || c.scaleM <= 0.0) {
        return fmt::format("bad height coding: scale {} m, offset {} m", c.scaleM, c.offsetM);
    }
    const Roughness& r = info.roughness;
    if (!Finite({r.sigmaM, r.referenceSpacingM, r.hurst}) || r.sigmaM < 0.0 ||
        r.referenceSpacingM <= 0.0) {
        return fmt::format("bad roughness: sigma {} m at {} m, hurst {}", r.sigmaM,
                           r.referenceSpacingM, r.hurst);
    }
    if (!Finite({info.minHeightM, info.maxHeightM}) || info.minHeightM > info.maxHeightM) {
        return fmt::format("bad height range {} to {} m", info.minHeightM, info.maxHeightM);
    }
    if (info.name.size() > pyramidFileMaxNameBytes) {
        return fmt::format("name too long ({} bytes, at most {})", info.name.size(),
                           pyramidFileMaxNameBytes);
    }
    if (info.name.find('\0') != std::string::npos) return "name contains a NUL byte";
    if (info.landColours.size() > std::size_t(kMaxPaletteColours)) {
        return fmt::format("palette of {} colours, at most {}", info.landColours.size(),
                           kMaxPaletteColours);
    }
    if (info.Textured() &&
        (info.drapedLevels < info.storedLevels || info.drapedLevels > info.geometry.levelCount)) {
        return fmt::format("draped levels {} outside {}..{} (the stored levels to the level count)",
                           info.drapedLevels, info.storedLevels, info.geometry.levelCount);
    }
    if (!info.Textured() && info.drapedLevels != 0) {
        return fmt::format("draped levels {} without imagery", info.drapedLevels);
    }
    return {};
}

/// What makes `info` unstorable (or a file holding it invalid); empty if nothing.
std::string InfoProblem(const PyramidInfo& info) {
    for (const std::string& problem : {CountsProblem(info.geometry.levelCount, info.storedLevels),
                                       ExtentProblem(info), ValueProblem(info)}) {
        if (!problem.empty()) return problem;
    }
    return {};
}

/// A material code of `tile` that is not an index into a palette of `colours` colours; empty if
/// none.
std::string IndexProblem(const TilePosts& tile, std::size_t colours) {
    for (std::uint8_t code : tile.materials) {
        if (code >= colours) {
            return fmt::format("tile {}: colour index {} beyond the palette's {} colours",
                               tile.key.ToString(), code, colours);
        }
    }
    return {};
}

std::string TilesProblem(const Pyramid& pyramid) {
    const PyramidInfo& info = pyramid.info;
    std::uint64_t count = TilesBelowLevel(info.FileLevels());
    if (pyramid.tiles.size() != count) {
        return fmt::format("{} tiles, expected {} for {} stored levels{}", pyramid.tiles.size(),
                           count, info.storedLevels,
                           info.Textured() ? fmt::format(" and {} draped", info.drapedLevels) : "");
    }
    for (std::size_t i = 0; i < pyramid.tiles.size(); ++i) {
        const TilePosts& tile = pyramid.tiles[i];
        if (tile.key != KeyOfIndex(i)) {
            return fmt::format("tile {} is {}, expected {} (order: level, then ty, then tx)", i,
                               tile.key.ToString(), KeyOfIndex(i).ToString());
        }
        bool stored = tile.key.level < info.storedLevels;
        std::size_t codes = stored ? kTilePostCount : 0;
        if (tile.codes.size() != codes) {
            return fmt::format("tile {} has {} codes, expected {}", tile.key.ToString(),
                               tile.codes.size(), codes);
        }
        std::size_t materials = info.Textured() ? kTilePostCount : 0;
        if (tile.materials.size() != materials) {
            return fmt::format("tile {} has {} material codes, expected {}", tile.key.ToString(),
                               tile.materials.size(), materials);
        }
        if (std::string problem = IndexProblem(tile, info.landColours.size()); !problem.empty()) {
            return problem;
        }
    }
    return {};
}

/// Header fields from offset 16 up to and including the tile constants (not the counts).
void EncodeFixedFields(const PyramidInfo& info, ByteWriter& w) {
    w.F64(info.geometry.rootSizeM);
    w.U32(static_cast<std::uint32_t>(info.geometry.levelCount));
    w.U32(static_cast<std::uint32_t>(info.storedLevels));
    const GeoExtent& g = info.geo;
    for (double v :
         {info.dataWidthM, info.dataDepthM, info.sourceSpacingM, g.lonMinDeg, g.lonMaxDeg,
          g.latMinDeg, g.latMaxDeg, info.coding.scaleM, info.coding.offsetM, info.roughness.sigmaM,
          info.roughness.referenceSpacingM, info.roughness.hurst}) {
        w.F64(v);
    }
    w.U64(info.roughness.seed);
    w.F32(info.minHeightM);
    w.F32(info.maxHeightM);
    w.U32(kTileCells);
    w.U32(kTileBorder);
}

}  // namespace

std::vector<common::Rgb> ExpandRamp(const common::LandColours& ramp) {
    std::vector<common::Rgb> palette(kMaxPaletteColours);
    for (int c = 0; c < kMaxPaletteColours; ++c) {
        palette[c] = common::RampColour(ramp, static_cast<float>(c) / rampCodesPerStep);
    }
    return palette;
}

std::vector<std::byte> EncodePyramidHeader(const PyramidInfo& info) {
    std::vector<std::byte> out;
    ByteWriter w(out);
    w.Bytes(magic);
    w.U32(PyramidFileVersionOf(info));
    w.U32(static_cast<std::uint32_t>(fixedHeaderBytes + info.name.size() +
                                     ImageryHeaderBytes(info.landColours.size())));
    EncodeFixedFields(info, w);
    w.U32(static_cast<std::uint32_t>(info.name.size()));
    w.Bytes(info.name);
    if (info.Textured()) {
        w.U32(static_cast<std::uint32_t>(info.landColours.size()));
        for (const common::Rgb& c : info.landColours) {
            w.U8(c.r);
            w.U8(c.g);
            w.U8(c.b);
        }
        w.U32(static_cast<std::uint32_t>(info.drapedLevels));
    }
    w.U32(Crc32(out));
    return out;
}

namespace {

/// Writes a pyramid file a row of tiles at a time, each tile and its index entry at their
/// places, so tile rows may come in any order (BuildPyramidFromRows interleaves the levels').
class PyramidFileSink final : public TileSink {
  public:
    /// Writes into `file`; `stop`, when set, is asked before each tile row.
    PyramidFileSink(common::AtomicFileWriter& file, std::function<bool()> stop = {})
        : file_(file), stop_(std::move(stop)) {}

    /// Checks `info` (InfoProblem) and writes the header.
    Expected<void> Start(const PyramidInfo& info) override {
        if (std::string problem = InfoProblem(info); !problem.empty()) {
            return Error{"pyramid '" + info.name + "': " + problem};
        }
        std::vector<std::byte> header = EncodePyramidHeader(info);
        layout_.emplace(info);
        indexOffset_ = header.size();
        tilesOffset_ = indexOffset_ + layout_->fileTiles * indexEntryBytes;
        return file_.WriteAt(0, header);
    }

    /// Writes consecutive tiles (in index order) and their index entries: a tile of a stored
    /// level its codes (and materials with imagery), one of a draped fractal level its
    /// materials only.
    Expected<void> PutTileRow(std::span<const TilePosts> tiles) override {
        if (stop_ && stop_()) return Error{kWriteStopped};
        if (tiles.empty()) return {};
        const TileLayout& layout = *layout_;
        auto first = static_cast<std::uint64_t>(TileIndex(layout.fileLevels, tiles.front().key));
        std::vector<std::byte> tileImage, index;
        tileImage.reserve(layout.Offset(first + tiles.size()) - layout.Offset(first));
        ByteWriter tileWriter(tileImage), indexWriter(index);
        for (std::size_t k = 0; k < tiles.size(); ++k) {
            const TilePosts& tile = tiles[k];
            BFV_CHECK(TileIndex(layout.fileLevels, tile.key) == static_cast<long long>(first + k));
            bool stored = tile.key.level < layout.storedLevels;
            BFV_CHECK(tile.codes.size() == (stored ? std::size_t(kTilePostCount) : 0));
            BFV_CHECK(tile.materials.size() == (layout.textured ? std::size_t(kTilePostCount) : 0));
            BFV_CHECK(IndexProblem(tile, layout.colours).empty());
            std::size_t start = tileImage.size();
            for (std::int16_t code : tile.codes) tileWriter.U16(static_cast<std::uint16_t>(code));
            for (std::uint8_t code : tile.materials) tileWriter.U8(code);
            indexWriter.U64(tile.key.Packed());
            indexWriter.U64(tilesOffset_ + layout.Offset(first + k));
            indexWriter.U32(static_cast<std::uint32_t>(layout.Bytes(first + k)));
            indexWriter.U32(Crc32(std::span(tileImage).subspan(start)));
        }
        if (auto ok = file_.WriteAt(tilesOffset_ + layout.Offset(first), tileImage); !ok) return ok;
        return file_.WriteAt(indexOffset_ + first * indexEntryBytes, index);
    }

  private:
    common::AtomicFileWriter& file_;
    std::function<bool()> stop_;        // when set and true, no more tile rows
    std::optional<TileLayout> layout_;  // set by Start
    std::uint64_t indexOffset_ = 0;     // where the index starts
    std::uint64_t tilesOffset_ = 0;     // where tile 0 starts
};

/// Magic, version and the fixed header's length; empty if they are fine, else the problem.
std::string PreambleProblem(std::span<const std::byte> bytes) {
    auto startsWith = [&](std::string_view m) {
        return bytes.size() >= m.size() && std::memcmp(bytes.data(), m.data(), m.size()) == 0;
    };
    if (startsWith(terrainFileMagic)) {
        return "this is an old single-grid terrain file (.bfvt, BFVTERR1), not a tile pyramid; "
               "re-import its DEM with `bfv import` to make a .bfvp";
    }
    if (!startsWith(magic)) return "not a bfv pyramid file (bad magic)";
    if (bytes.size() < magic.size() + 4) {
        return fmt::format("truncated: {} bytes, shorter than the header", bytes.size());
    }
    std::uint32_t version = ByteReader(bytes, magic.size()).U32();
    if (version < pyramidFileUntexturedVersion || version > pyramidFileVersion) {
        return fmt::format("unsupported version {} (this bfv reads {} to {})", version,
                           pyramidFileUntexturedVersion, pyramidFileVersion);
    }
    if (bytes.size() < fixedHeaderBytes) {
        return fmt::format("truncated: {} bytes, shorter than the {}-byte header", bytes.size(),
                           fixedHeaderBytes);
    }
    return {};
}

/// The header's counts, read before they are validated and narrowed to int.
struct RawCounts {
    std::uint32_t version = 0;
    std::uint32_t headerBytes = 0;
    std::uint32_t levelCount = 0;
    std::uint32_t storedLevels = 0;
    std::uint32_t tileCells = 0;
    std::uint32_t tileBorder = 0;
    std::uint32_t nameBytes = 0;
};

/// Reads the fixed fields from offset 8 up to and including nameBytes.
RawCounts ReadFixedFields(ByteReader& r, PyramidInfo& info) {
    RawCounts raw;
    raw.version = r.U32();
    raw.headerBytes = r.U32();
    info.geometry.rootSizeM = r.F64();
    raw.levelCount = r.U32();
    raw.storedLevels = r.U32();
    info.dataWidthM = r.F64();
    info.dataDepthM = r.F64();
    info.sourceSpacingM = r.F64();
    info.geo = {r.F64(), r.F64(), r.F64(), r.F64()};
    info.coding = {r.F64(), r.F64()};
    info.roughness.sigmaM = r.F64();
    info.roughness.referenceSpacingM = r.F64();
    info.roughness.hurst = r.F64();
    info.roughness.seed = r.U64();
    info.minHeightM = r.F32();
    info.maxHeightM = r.F32();
    raw.tileCells = r.U32();
    raw.tileBorder = r.U32();
    raw.nameBytes = r.U32();
    return raw;
}

/// Reads the colour count C of a textured header (versions 2 and 3, at 156 + n) and checks it;
/// empty if fine, else the problem.
std::string ReadColourCount(std::span<const std::byte> bytes, const RawCounts& raw,
                            std::uint32_t& colours) {
    colours = 0;
    if (raw.version == pyramidFileUntexturedVersion) return {};
    std::size_t at = nameOffset + raw.nameBytes;
    if (bytes.size() < at + 4) {
        return fmt::format("truncated: {} bytes, shorter than the header", bytes.size());
    }
    colours = ByteReader(bytes, at).U32();
    if (raw.version == pyramidFileRampVersion && colours != rampColours) {
        return fmt::format("version 2 ramp of {} colours, expected {}", colours, rampColours);
    }
    if (colours < 1 || colours > std::uint32_t(kMaxPaletteColours)) {
        return fmt::format("palette of {} colours, expected 1 to {}", colours, kMaxPaletteColours);
    }
    return {};
}

/// Reads a textured header's colours (a version 2 ramp expanded, ExpandRamp) and draped level
/// count from `r`, at the colour count.
std::string ReadImagery(ByteReader& r, std::uint32_t version, PyramidInfo& info) {
    info.landColours.resize(r.U32());
    for (common::Rgb& c : info.landColours) c = {r.U8(), r.U8(), r.U8()};
    if (version == pyramidFileRampVersion) {
        common::LandColours ramp;
        std::copy(info.landColours.begin(), info.landColours.end(), ramp.begin());
        info.landColours = ExpandRamp(ramp);
    }
    std::uint32_t drapedLevels = r.U32();
    if (drapedLevels > std::uint32_t(kMaxLevels)) {
        return fmt::format("draped levels {} outside 1..{}", drapedLevels, kMaxLevels);
    }
    info.drapedLevels = static_cast<int>(drapedLevels);
    return {};
}

/// Reads the name (and a textured header's colours and draped level count) and checks the
/// header's size and checksum; empty if fine, else the problem.
std::string ReadNameAndCheckCrc(std::span<const std::byte> bytes, const RawCounts& raw,
                                PyramidInfo& info) {
    if (raw.nameBytes > pyramidFileMaxNameBytes) {
        return fmt::format("name too long ({} bytes, at most {})", raw.nameBytes,
                           pyramidFileMaxNameBytes);
    }
    std::uint32_t colours = 0;
    if (std::string problem = ReadColourCount(bytes, raw, colours); !problem.empty()) {
        return problem;
    }
    std::size_t headerBytes = fixedHeaderBytes + raw.nameBytes + ImageryHeaderBytes(colours);
    if (raw.headerBytes != headerBytes) {
        return fmt::format("header size field says {} bytes, expected {}", raw.headerBytes,
                           headerBytes);
    }
    if (bytes.size() < headerBytes) {
        return fmt::format("truncated: {} bytes, shorter than the {}-byte header", bytes.size(),
                           headerBytes);
    }
    ByteReader r(bytes, nameOffset);
    info.name = r.String(raw.nameBytes);
    info.landColours.clear();
    if (colours > 0) {
        if (std::string problem = ReadImagery(r, raw.version, info); !problem.empty()) {
            return problem;
        }
    }
    if (r.U32() != Crc32(bytes.first(headerBytes - 4))) {
        return "header checksum mismatch: the file is corrupt";
    }
    return {};
}

std::string TileConstantsProblem(const RawCounts& raw) {
    if (raw.tileCells == std::uint32_t(kTileCells) &&
        raw.tileBorder == std::uint32_t(kTileBorder)) {
        return {};
    }
    return fmt::format(
        "written for tiles of {} cells with a {}-post border, this bfv uses {} and {}; rebuild "
        "the file with this bfv",
        raw.tileCells, raw.tileBorder, kTileCells, kTileBorder);
}

/// Checks index entry `i` (in bounds: the caller has checked the file size).
std::string IndexEntryProblem(std::span<const std::byte> bytes, std::size_t indexOffset,
                              std::size_t tilesOffset, const TileLayout& layout, std::uint64_t i) {
    ByteReader r(bytes, indexOffset + i * indexEntryBytes);
    TileKey key = TileKey::Unpack(r.U64()), expectedKey = KeyOfIndex(i);
    std::uint64_t offset = r.U64(), expectedOffset = tilesOffset + layout.Offset(i);
    std::uint32_t nBytes = r.U32();
    std::size_t tileBytes = layout.Bytes(i);
    if (key != expectedKey) {
        return fmt::format("index entry {} is tile {}, expected {}", i, key.ToString(),
                           expectedKey.ToString());
    }
    if (offset != expectedOffset || nBytes != tileBytes) {
        return fmt::format("index entry {} ({}) says {} bytes at offset {}, expected {} at {}", i,
                           key.ToString(), nBytes, offset, tileBytes, expectedOffset);
    }
    return {};
}

}  // namespace

Expected<void> WritePyramidFile(const std::string& path, const Pyramid& pyramid) {
    std::string problem = InfoProblem(pyramid.info);
    if (problem.empty()) problem = TilesProblem(pyramid);  // needs valid counts
    if (!problem.empty()) return Error{"pyramid '" + pyramid.info.name + "': " + problem};
    Expected<common::AtomicFileWriter> file = common::AtomicFileWriter::Create(path);
    if (!file) return file.error();
    PyramidFileSink sink(*file);
    if (auto ok = sink.Start(pyramid.info); !ok) return ok;
    if (auto ok = sink.PutTileRow(pyramid.tiles); !ok) return ok;
    return file->Commit();
}

namespace {

/// `source`, but a read fails with kWriteStopped once `stop` says so.
class StoppableRows final : public PostRowSource {
  public:
    StoppableRows(PostRowSource& source, const std::function<bool()>& stop)
        : source_(source), stop_(stop) {}
    const SourceGrid& Grid() const override { return source_.Grid(); }
    int StripRows(int j0) const override { return source_.StripRows(j0); }
    Expected<void> ReadRows(int j0, int count, std::span<float> heightsM) override {
        if (stop_ && stop_()) return Error{kWriteStopped};
        return source_.ReadRows(j0, count, heightsM);
    }

  private:
    PostRowSource& source_;
    const std::function<bool()>& stop_;
};

}  // namespace

Expected<PyramidBuild> WritePyramidFileFromRows(const std::string& path, PostRowSource& source,
                                                const PyramidBuildOptions& options,
                                                Imagery* imagery, const PyramidWriteWatch& watch) {
    Expected<common::AtomicFileWriter> file = common::AtomicFileWriter::Create(path);
    if (!file) return file.error();
    PyramidFileSink fileSink(*file, watch.stop);
    std::optional<DrapeSink> drape;
    if (imagery != nullptr) drape.emplace(*imagery, fileSink, watch.drapeProgress);
    TileSink& sink = drape ? static_cast<TileSink&>(*drape) : fileSink;
    StoppableRows rows(source, watch.stop);
    Expected<PyramidBuild> built = BuildPyramidFromRows(rows, options, sink, watch.progress);
    if (!built) return built;
    if (drape) {
        if (auto ok = drape->PutDrapedLevels(); !ok) return ok.error();
        built->info = drape->Info();
    }
    if (watch.stop && watch.stop()) return Error{kWriteStopped};
    if (auto committed = file->Commit(); !committed) return committed.error();
    return built;
}

Expected<PyramidFile> PyramidFile::Open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{fmt::format("cannot open '{}': {}", path, std::strerror(errno))};
    struct stat st {};
    std::string problem;
    if (::fstat(fd, &st) != 0) {
        problem = fmt::format("cannot read '{}': {}", path, std::strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        problem = fmt::format("cannot read '{}': {}", path,
                              S_ISDIR(st.st_mode) ? std::strerror(EISDIR) : "not a regular file");
    }
    PyramidFile file;
    file.path_ = path;
    if (problem.empty() && st.st_size == 0) problem = file.FileError("empty file").message;
    if (problem.empty()) {
        void* map = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            problem = fmt::format("cannot map '{}': {}", path, std::strerror(errno));
        } else {
            file.map_ = static_cast<const std::byte*>(map);
            file.fileBytes_ = std::size_t(st.st_size);
        }
    }
    ::close(fd);  // the map keeps the file open
    if (!problem.empty()) return Error{problem};
    if (Expected<void> valid = file.Validate(); !valid) return valid.error();
    return file;
}

Expected<PyramidHeader> DecodePyramidHeader(std::span<const std::byte> bytes) {
    if (std::string problem = PreambleProblem(bytes); !problem.empty()) return Error{problem};
    PyramidHeader header;
    PyramidInfo& info = header.info;
    ByteReader r(bytes, magic.size());
    RawCounts raw = ReadFixedFields(r, info);
    for (const std::string& problem :
         {ReadNameAndCheckCrc(bytes, raw, info), TileConstantsProblem(raw),
          CountsProblem(raw.levelCount, raw.storedLevels)}) {
        if (!problem.empty()) return Error{problem};
    }
    info.geometry.levelCount = static_cast<int>(raw.levelCount);
    info.storedLevels = static_cast<int>(raw.storedLevels);
    if (std::string problem = InfoProblem(info); !problem.empty()) return Error{problem};
    header.headerBytes = raw.headerBytes;
    header.version = raw.version;
    return header;
}

Expected<void> PyramidFile::Validate() {
    std::span<const std::byte> bytes(map_, fileBytes_);
    auto header = DecodePyramidHeader(bytes);
    if (!header) return FileError(header.error().message);
    info_ = std::move(header->info);
    version_ = header->version;
    TileLayout layout(info_);
    std::uint64_t count = layout.fileTiles;
    indexOffset_ = header->headerBytes;
    std::uint64_t tilesOffset = indexOffset_ + count * indexEntryBytes;
    std::uint64_t expectedBytes = tilesOffset + layout.TotalBytes();
    if (fileBytes_ != expectedBytes || count > INT_MAX) {
        return FileError(fmt::format("{}: {} bytes, expected {} for {} stored tiles",
                                     fileBytes_ < expectedBytes ? "truncated" : "trailing bytes",
                                     fileBytes_, expectedBytes, count));
    }
    for (std::uint64_t i = 0; i < count; ++i) {
        std::string problem = IndexEntryProblem(bytes, indexOffset_, tilesOffset, layout, i);
        if (!problem.empty()) return FileError(problem);
    }
    tileCount_ = static_cast<int>(count);
    return {};
}

PyramidFile::PyramidFile(PyramidFile&& other) noexcept
    : path_(std::move(other.path_)),
      info_(std::move(other.info_)),
      map_(std::exchange(other.map_, nullptr)),
      fileBytes_(std::exchange(other.fileBytes_, 0)),
      indexOffset_(other.indexOffset_),
      tileCount_(std::exchange(other.tileCount_, 0)),
      version_(other.version_) {}

PyramidFile& PyramidFile::operator=(PyramidFile&& other) noexcept {
    if (this != &other) {
        Unmap();
        path_ = std::move(other.path_);
        info_ = std::move(other.info_);
        map_ = std::exchange(other.map_, nullptr);
        fileBytes_ = std::exchange(other.fileBytes_, 0);
        indexOffset_ = other.indexOffset_;
        tileCount_ = std::exchange(other.tileCount_, 0);
        version_ = other.version_;
    }
    return *this;
}

PyramidFile::~PyramidFile() { Unmap(); }

void PyramidFile::Unmap() {
    if (map_ != nullptr) ::munmap(const_cast<std::byte*>(map_), fileBytes_);
    map_ = nullptr;
}

Error PyramidFile::FileError(const std::string& problem) const {
    return Error{"pyramid file '" + path_ + "': " + problem};
}

TileKey PyramidFile::KeyAt(int index) const {
    BFV_CHECK_GE(index, 0);
    BFV_CHECK_LT(index, tileCount_);
    return KeyOfIndex(static_cast<std::uint64_t>(index));
}

Expected<void> PyramidFile::CheckTile(int index) const {
    std::span<const std::byte> bytes(map_, fileBytes_);
    ByteReader entry(bytes, indexOffset_ + std::size_t(index) * indexEntryBytes + 8);
    std::uint64_t offset = entry.U64();
    std::uint32_t nBytes = entry.U32();  // checked by Open
    if (entry.U32() != Crc32(bytes.subspan(offset, nBytes))) {
        return FileError(
            fmt::format("tile {} is corrupt (checksum mismatch)", KeyAt(index).ToString()));
    }
    return {};
}

Expected<TilePosts> PyramidFile::ReadTile(const TileKey& key) const {
    const TileLayout layout(info_);
    long long index = TileIndex(layout.fileLevels, key);
    if (index < 0) {
        return FileError(fmt::format(
            "tile {} is not stored (stored levels are 0..{}, level L has tx and ty in 0..2^L-1)",
            key.ToString(), layout.fileLevels - 1));
    }
    if (Expected<void> ok = CheckTile(static_cast<int>(index)); !ok) return ok.error();
    std::span<const std::byte> bytes(map_, fileBytes_);
    ByteReader r(bytes, indexOffset_ + std::size_t(tileCount_) * indexEntryBytes +
                            layout.Offset(static_cast<std::uint64_t>(index)));
    TilePosts tile{key, {}};
    if (key.level < info_.storedLevels) {
        tile.codes.resize(kTilePostCount);
        for (std::int16_t& code : tile.codes) code = r.I16();
    }
    if (info_.Textured()) {
        tile.materials.resize(kTilePostCount);
        for (std::uint8_t& code : tile.materials) code = r.U8();
        if (std::string problem = IndexProblem(tile, info_.landColours.size()); !problem.empty()) {
            return FileError(problem);
        }
    }
    return tile;
}

Expected<void> PyramidFile::VerifyAllTiles(
    const std::function<void(int done, int total)>& progress) const {
    for (int i = 0; i < tileCount_; ++i) {
        if (Expected<void> ok = CheckTile(i); !ok) return ok;
        if (progress) progress(i + 1, tileCount_);
    }
    return {};
}

}  // namespace bfv::terrain
