#include "terrain/png_import.h"

#include <fmt/format.h>
#include <stb_image.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "common/file_io.h"

namespace bfv::terrain {
namespace {

struct StbiFree {
    void operator()(std::uint16_t* pixels) const { stbi_image_free(pixels); }
};

Expected<void> CheckScale(const PngHeightmapScale& scale) {
    if (auto ok = common::CheckRange("post spacing", scale.spacingM, kPostSpacingRangeM); !ok) {
        return ok;
    }
    if (auto ok = common::CheckRange("height scale", scale.heightScaleM, kHeightScaleRangeM); !ok) {
        return ok;
    }
    return common::CheckRange("height offset", scale.heightOffsetM, kPostHeightRangeM);
}

/// Checks the header: a 16-bit, one-channel PNG of 2..65536 pixels per side, kMaxPngPosts at
/// most.
Expected<void> CheckHeader(const std::string& path) {
    int nx = 0, ny = 0, channels = 0;
    if (stbi_info(path.c_str(), &nx, &ny, &channels) == 0) {
        return Error{fmt::format("cannot read it as a PNG ({})", stbi_failure_reason())};
    }
    if (stbi_is_16_bit(path.c_str()) == 0) return Error{"is 8-bit; a heightmap needs 16 bits"};
    if (channels != 1) {
        return Error{
            fmt::format("has {} channels; a heightmap is greyscale, one channel", channels)};
    }
    auto bad = [](int n) { return n < 2 || n > kMaxPostsPerSide; };
    if (bad(nx) || bad(ny)) {
        return Error{
            fmt::format("is {} x {} pixels; each side must be 2..{}", nx, ny, kMaxPostsPerSide)};
    }
    // stb_image decodes the whole image at once and sizes its buffers in int: past about 2^30
    // pixels of 16 bits those sizes overflow (fuzzing found a 20224 x 53092 header asking for
    // 2^64 - 2 GiB).
    if (static_cast<long long>(nx) * ny > kMaxPngPosts) {
        return Error{fmt::format(
            "is {} x {} pixels ({} posts); a PNG heightmap holds at most {} posts (it is decoded "
            "whole): import a larger DEM as GeoTIFF",
            nx, ny, static_cast<long long>(nx) * ny, kMaxPngPosts)};
    }
    return {};
}

/// Checks each chunk's length (up to IEND) against the bytes the file holds: stb_image sizes its
/// buffers from the lengths before it reads, so a few bytes claiming a 1 GiB chunk would cost
/// gigabytes. Requires a PNG signature (CheckHeader).
Expected<void> CheckChunkLengths(const std::string& path) {
    Expected<std::vector<std::byte>> bytes = common::ReadFileBytes(path);
    if (!bytes) return bytes.error();
    constexpr std::size_t signatureBytes = 8, chunkOverheadBytes = 12;  // length, type, crc32
    // Every chunk whose length and type are there, the last one too even if cut short.
    for (std::size_t at = signatureBytes; at + 8 <= bytes->size();) {
        std::uint32_t length = 0;
        for (int k = 0; k < 4; ++k)
            length = length << 8 | std::to_integer<std::uint32_t>((*bytes)[at + k]);
        std::string type(reinterpret_cast<const char*>(bytes->data() + at + 4), 4);
        if (bytes->size() - at < chunkOverheadBytes ||
            length > bytes->size() - at - chunkOverheadBytes) {
            return Error{fmt::format(
                "chunk {} at byte {} claims {} bytes, more than the file holds", type, at, length)};
        }
        if (type == "IEND") break;
        at += chunkOverheadBytes + length;
    }
    return {};
}

Expected<Terrain> ReadPng16(const std::string& path, const PngHeightmapScale& scale) {
    if (Expected<void> ok = CheckScale(scale); !ok) return ok.error();
    if (Expected<void> ok = CheckHeader(path); !ok) return ok.error();
    if (Expected<void> ok = CheckChunkLengths(path); !ok) return ok.error();
    int nx = 0, ny = 0, channels = 0;
    std::unique_ptr<std::uint16_t, StbiFree> pixels(
        stbi_load_16(path.c_str(), &nx, &ny, &channels, 1));
    if (!pixels) return Error{fmt::format("cannot decode it ({})", stbi_failure_reason())};
    Terrain t;
    t.name = std::filesystem::path(path).stem().string();
    t.nx = nx;
    t.ny = ny;
    t.spacingXM = scale.spacingM;
    t.spacingYM = scale.spacingM;
    std::vector<float> imageHeightsM(static_cast<std::size_t>(nx) * ny);  // top row first
    for (std::size_t k = 0; k < imageHeightsM.size(); ++k) {
        imageHeightsM[k] =
            static_cast<float>(scale.heightOffsetM + pixels.get()[k] * scale.heightScaleM);
    }
    if (auto ok = CheckPostHeights(imageHeightsM, nx, NanHeights::Refused); !ok) return ok.error();
    t.heightsM.resize(imageHeightsM.size());
    for (int j = 0; j < ny; ++j) {
        std::copy_n(imageHeightsM.begin() + static_cast<std::ptrdiff_t>(ny - 1 - j) * nx, nx,
                    t.heightsM.begin() + static_cast<std::ptrdiff_t>(j) * nx);
    }
    return t;
}

}  // namespace

Expected<Terrain> ImportPng16(const std::string& path, const PngHeightmapScale& scale) {
    Expected<Terrain> terrain = ReadPng16(path, scale);
    if (!terrain) return Error{fmt::format("png '{}': {}", path, terrain.error().message)};
    return terrain;
}

}  // namespace bfv::terrain
