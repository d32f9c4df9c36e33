#include "display/frame.h"

#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bfv::display {

std::uint64_t Frame::Checksum() const {
    return XXH3_64bits(pixels_.data(), pixels_.size() * sizeof(common::Pixel));
}

void Frame::ToRgb(const common::Palette& palette, std::vector<std::uint8_t>& rgb) const {
    rgb.resize(pixels_.size() * 3);
    for (int x = 0; x < widthPx_; ++x) {
        const common::Pixel* column = Column(x);
        for (int y = 0; y < heightPx_; ++y) {
            common::Rgb c = common::ToRgb(column[y], palette);
            std::uint8_t* out = &rgb[(static_cast<size_t>(y) * widthPx_ + x) * 3];
            out[0] = c.r;
            out[1] = c.g;
            out[2] = c.b;
        }
    }
}

long long Frame::TerrainPixelCount() const {
    // Counted in 32-bit blocks, which the compiler vectorises four lanes to a register (a
    // 64-bit count gets two): every frame is counted, on the display's critical path.
    constexpr std::size_t kBlock = std::size_t{1} << 30;
    long long n = 0;
    for (std::size_t begin = 0; begin < pixels_.size(); begin += kBlock) {
        std::size_t end = std::min(pixels_.size(), begin + kBlock);
        std::uint32_t block = 0;
        for (std::size_t i = begin; i < end; ++i) block += pixels_[i].index >= common::kSkyLevels;
        n += block;
    }
    return n;
}

}  // namespace bfv::display
