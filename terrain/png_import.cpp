#include "terrain/png_import.h"

#include <fmt/format.h>
#include <stb_image.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

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

/// Checks the header: a 16-bit, one-channel PNG of 2..65536 pixels per side.
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
    return {};
}

Expected<Terrain> ReadPng16(const std::string& path, const PngHeightmapScale& scale) {
    if (Expected<void> ok = CheckScale(scale); !ok) return ok.error();
    if (Expected<void> ok = CheckHeader(path); !ok) return ok.error();
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
