#include "display/frame.h"

#include <cstring>

namespace bfv::display {

std::uint64_t Frame::Checksum() const {
    constexpr std::uint64_t kOffset = 14695981039346656037ull;
    constexpr std::uint64_t kPrime = 1099511628211ull;
    std::uint64_t hash = kOffset;
    const auto* bytes = reinterpret_cast<const unsigned char*>(pixels_.data());
    size_t n = pixels_.size() * sizeof(common::Pixel);
    for (size_t k = 0; k < n; ++k) {
        hash = (hash ^ bytes[k]) * kPrime;
    }
    return hash;
}

void Frame::ToRgb(std::vector<std::uint8_t>& rgb) const {
    rgb.resize(pixels_.size() * 3);
    for (int x = 0; x < widthPx_; ++x) {
        const common::Pixel* column = Column(x);
        for (int y = 0; y < heightPx_; ++y) {
            common::Rgb c = common::ToRgb(column[y]);
            std::uint8_t* out = &rgb[(static_cast<size_t>(y) * widthPx_ + x) * 3];
            out[0] = c.r;
            out[1] = c.g;
            out[2] = c.b;
        }
    }
}

long long Frame::TerrainPixelCount() const {
    long long n = 0;
    for (const common::Pixel& p : pixels_) n += p.index >= common::kSkyLevels;
    return n;
}

}  // namespace bfv::display
