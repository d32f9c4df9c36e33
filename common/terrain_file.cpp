#include "common/terrain_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include "common/byte_io.h"
#include "common/check.h"
#include "common/file_io.h"

namespace bfv::common {
namespace {

constexpr std::string_view magic = "BFVTERR1";
constexpr std::size_t fixedHeaderBytes = 96;  // the header without the name
constexpr std::size_t nameOffset = 92;        // where the name starts
constexpr std::size_t bytesPerPost = 2;
constexpr int postMax = 32767;  // posts use [-32767, 32767] when stretched over [min, max]

/// How heights map to int16 posts: heightM = offsetM + scaleM * post.
struct Quantisation {
    float scaleM = 1.0f;
    float offsetM = 0.0f;
};

bool AllInt16Integers(const std::vector<float>& heightsM) {
    return std::all_of(heightsM.begin(), heightsM.end(), [](float h) {
        return h == std::nearbyint(h) && h >= -32768.0f && h <= 32767.0f;
    });
}

/// Scale 1 and offset 0 for integer heights (exact); otherwise [-postMax, postMax] stretched
/// over [min, max] around the float-rounded midpoint, the scale rounded up so no post clips.
Quantisation ChooseQuantisation(const std::vector<float>& heightsM, HeightRange range) {
    if (AllInt16Integers(heightsM)) return {};
    auto offsetM = static_cast<float>(0.5 * (double(range.minM) + double(range.maxM)));
    double halfSpanM = std::max(double(range.maxM) - offsetM, offsetM - double(range.minM));
    auto scaleM = static_cast<float>(halfSpanM / postMax);
    scaleM = std::nextafter(scaleM, INFINITY);
    if (!(scaleM > 0.0f) || !std::isfinite(scaleM)) scaleM = 1.0f;  // all heights equal
    return {scaleM, offsetM};
}

std::int16_t Quantise(float heightM, Quantisation q) {
    double post = std::nearbyint((double(heightM) - q.offsetM) / q.scaleM);
    return static_cast<std::int16_t>(std::clamp(post, -32768.0, 32767.0));
}

/// The name as stored: NUL bytes dropped, cut to 255 bytes at a UTF-8 character boundary.
std::string StorableName(const std::string& name) {
    std::string s;
    std::copy_if(name.begin(), name.end(), std::back_inserter(s), [](char c) { return c != 0; });
    if (s.size() <= terrainFileMaxNameBytes) return s;
    std::size_t cut = terrainFileMaxNameBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return s.substr(0, cut);
}

std::vector<std::byte> EncodePosts(const Terrain& terrain, Quantisation q) {
    std::vector<std::byte> posts;
    posts.reserve(terrain.heightsM.size() * bytesPerPost);
    ByteWriter writer(posts);
    for (float h : terrain.heightsM) writer.U16(static_cast<std::uint16_t>(Quantise(h, q)));
    return posts;
}

void EncodeHeader(const Terrain& terrain, Quantisation q, std::span<const std::byte> posts,
                  std::vector<std::byte>& out) {
    std::string name = StorableName(terrain.name);
    HeightRange range = ComputeHeightRange(terrain);
    ByteWriter w(out);
    w.Bytes(magic);
    w.U32(terrainFileVersion);
    w.U32(static_cast<std::uint32_t>(fixedHeaderBytes + name.size()));
    w.U32(static_cast<std::uint32_t>(terrain.nx));
    w.U32(static_cast<std::uint32_t>(terrain.ny));
    for (double v : {terrain.spacingXM, terrain.spacingYM, terrain.geo.lonMinDeg,
                     terrain.geo.lonMaxDeg, terrain.geo.latMinDeg, terrain.geo.latMaxDeg}) {
        w.F64(v);
    }
    for (float v : {q.scaleM, q.offsetM, range.minM, range.maxM}) w.F32(v);
    w.U32(static_cast<std::uint32_t>(name.size()));
    w.Bytes(name);
    w.U32(Crc32(posts));
}

Error FileError(const std::string& sourceName, const std::string& problem) {
    return Error{"terrain file '" + sourceName + "': " + problem};
}

/// Magic, version and minimum length; empty if they are fine, else the problem.
std::string PreambleProblem(std::span<const std::byte> bytes) {
    if (bytes.empty()) return "empty file";
    std::size_t nMagic = std::min(bytes.size(), magic.size());
    if (std::memcmp(bytes.data(), magic.data(), nMagic) != 0) {
        return "not a bfv terrain file (bad magic); convert DEMs with `bfv import`";
    }
    if (bytes.size() < magic.size() + 4) {
        return fmt::format("too short ({} bytes) to be a bfv terrain file", bytes.size());
    }
    std::uint32_t version = ByteReader(bytes, magic.size()).U32();
    if (version != terrainFileVersion) {
        return fmt::format("version {}, this bfv reads version {}", version, terrainFileVersion);
    }
    if (bytes.size() < fixedHeaderBytes) {
        return fmt::format("truncated header: {} bytes, a header needs at least {}", bytes.size(),
                           fixedHeaderBytes);
    }
    return {};
}

/// The counts of the header, read before they are validated and narrowed to int.
struct RawCounts {
    std::uint32_t nx = 0;
    std::uint32_t ny = 0;
    std::uint32_t nameBytes = 0;
};

/// Reads the fixed fields from offset 8 up to and including nameBytes.
RawCounts ReadFixedFields(ByteReader& r, TerrainFileInfo& info) {
    RawCounts raw;
    info.version = r.U32();
    info.headerBytes = r.U32();
    raw.nx = r.U32();
    raw.ny = r.U32();
    info.spacingXM = r.F64();
    info.spacingYM = r.F64();
    info.geo = {r.F64(), r.F64(), r.F64(), r.F64()};
    info.heightScaleM = r.F32();
    info.heightOffsetM = r.F32();
    info.minHeightM = r.F32();
    info.maxHeightM = r.F32();
    raw.nameBytes = r.U32();
    return raw;
}

std::string GridProblem(std::int64_t nx, std::int64_t ny, double spacingXM, double spacingYM) {
    auto bad = [](std::int64_t n) { return n < 1 || n > terrainFileMaxPostsPerSide; };
    if (bad(nx) || bad(ny)) {
        return fmt::format("bad grid size nx={} ny={} (each must be 1..{})", nx, ny,
                           terrainFileMaxPostsPerSide);
    }
    auto badSpacing = [](double s) { return !std::isfinite(s) || s <= 0.0; };
    if (badSpacing(spacingXM) || badSpacing(spacingYM)) {
        return fmt::format("bad post spacing {} m x {} m (must be finite and positive)", spacingXM,
                           spacingYM);
    }
    return {};
}

std::string ValueProblem(const TerrainFileInfo& info) {
    const GeoExtent& g = info.geo;
    for (double v : {g.lonMinDeg, g.lonMaxDeg, g.latMinDeg, g.latMaxDeg}) {
        if (!std::isfinite(v)) return "geographic extent is not finite";
    }
    if (!std::isfinite(info.heightScaleM) || info.heightScaleM <= 0.0f ||
        !std::isfinite(info.heightOffsetM)) {
        return fmt::format("bad height scale {} m / offset {} m", info.heightScaleM,
                           info.heightOffsetM);
    }
    if (!std::isfinite(info.minHeightM) || !std::isfinite(info.maxHeightM)) {
        return "height range is not finite";
    }
    return {};
}

/// Reads the name and the checksum after the fixed fields; empty if fine, else the problem.
std::string ReadNameAndCrc(std::span<const std::byte> bytes, std::uint32_t nameBytes,
                           TerrainFileInfo& info) {
    if (nameBytes > terrainFileMaxNameBytes) {
        return fmt::format("name too long ({} bytes, at most {})", nameBytes,
                           terrainFileMaxNameBytes);
    }
    std::size_t headerBytes = fixedHeaderBytes + nameBytes;
    if (info.headerBytes != headerBytes) {
        return fmt::format("header size field says {} bytes, expected {}", info.headerBytes,
                           headerBytes);
    }
    if (bytes.size() < headerBytes) {
        return fmt::format("truncated header: {} bytes, expected at least {}", bytes.size(),
                           headerBytes);
    }
    ByteReader r(bytes, nameOffset);
    info.name = r.String(nameBytes);
    info.postsCrc32 = r.U32();
    if (info.name.find('\0') != std::string::npos) return "name contains a NUL byte";
    return {};
}

Terrain TerrainFromPosts(const TerrainFileInfo& info, std::span<const std::byte> posts) {
    Terrain t{info.name, info.nx, info.ny, info.spacingXM, info.spacingYM, info.geo, {}};
    std::size_t n = posts.size() / bytesPerPost;
    t.heightsM.resize(n);
    ByteReader r(posts, 0);
    for (std::size_t k = 0; k < n; ++k) {
        std::int16_t post = r.I16();
        t.heightsM[k] =
            static_cast<float>(double(info.heightOffsetM) + double(info.heightScaleM) * post);
    }
    return t;
}

}  // namespace

std::vector<std::byte> EncodeTerrain(const Terrain& terrain) {
    Expected<void> storable = CheckTerrainStorable(terrain);
    if (!storable) BFV_CHECK_EQ(storable.error().message, std::string());
    Quantisation q = ChooseQuantisation(terrain.heightsM, ComputeHeightRange(terrain));
    std::vector<std::byte> posts = EncodePosts(terrain, q);
    std::vector<std::byte> out;
    out.reserve(fixedHeaderBytes + terrainFileMaxNameBytes + posts.size());
    EncodeHeader(terrain, q, posts, out);
    out.insert(out.end(), posts.begin(), posts.end());
    return out;
}

Expected<TerrainFileInfo> ReadTerrainHeader(std::span<const std::byte> bytes,
                                            const std::string& sourceName) {
    if (std::string problem = PreambleProblem(bytes); !problem.empty()) {
        return FileError(sourceName, problem);
    }
    TerrainFileInfo info;
    ByteReader r(bytes, magic.size());
    RawCounts raw = ReadFixedFields(r, info);
    for (const std::string& problem :
         {ReadNameAndCrc(bytes, raw.nameBytes, info),
          GridProblem(raw.nx, raw.ny, info.spacingXM, info.spacingYM), ValueProblem(info)}) {
        if (!problem.empty()) return FileError(sourceName, problem);
    }
    info.nx = static_cast<int>(raw.nx);
    info.ny = static_cast<int>(raw.ny);
    return info;
}

Expected<Terrain> DecodeTerrain(std::span<const std::byte> bytes, const std::string& sourceName) {
    Expected<TerrainFileInfo> info = ReadTerrainHeader(bytes, sourceName);
    if (!info) return info.error();
    std::uint64_t postsBytes = std::uint64_t(info->nx) * std::uint64_t(info->ny) * bytesPerPost;
    std::uint64_t expected = info->headerBytes + postsBytes;
    if (bytes.size() != expected) {
        return FileError(sourceName,
                         fmt::format("size mismatch: expected {} bytes for {} x {} "
                                     "posts, got {} ({})",
                                     expected, info->nx, info->ny, bytes.size(),
                                     bytes.size() < expected ? "truncated" : "trailing bytes"));
    }
    std::span<const std::byte> posts = bytes.subspan(info->headerBytes);
    if (Crc32(posts) != info->postsCrc32) {
        return FileError(sourceName, "posts checksum mismatch: file is corrupt");
    }
    return TerrainFromPosts(*info, posts);
}

Expected<Terrain> ReadTerrainFile(const std::string& path) {
    Expected<std::vector<std::byte>> bytes = ReadFileBytes(path);
    if (!bytes) return bytes.error();
    return DecodeTerrain(*bytes, path);
}

Expected<void> WriteTerrainFile(const std::string& path, const Terrain& terrain) {
    if (Expected<void> storable = CheckTerrainStorable(terrain); !storable) return storable;
    return WriteFileAtomic(path, EncodeTerrain(terrain));
}

Expected<void> CheckTerrainStorable(const Terrain& terrain) {
    auto fail = [&](const std::string& problem) {
        return Error{"terrain '" + terrain.name + "': " + problem};
    };
    TerrainFileInfo info;
    info.geo = terrain.geo;
    for (const std::string& problem :
         {GridProblem(terrain.nx, terrain.ny, terrain.spacingXM, terrain.spacingYM),
          ValueProblem(info)}) {
        if (!problem.empty()) return fail(problem);
    }
    if (terrain.heightsM.size() != std::size_t(terrain.nx) * std::size_t(terrain.ny)) {
        return fail(fmt::format("{} heights for {} x {} posts", terrain.heightsM.size(), terrain.nx,
                                terrain.ny));
    }
    auto notFinite = [](float h) { return !std::isfinite(h); };
    if (std::any_of(terrain.heightsM.begin(), terrain.heightsM.end(), notFinite)) {
        return fail("a height is NaN or infinite");
    }
    return {};
}

}  // namespace bfv::common
