#include "display/frame.h"

#include <xxhash.h>

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
    long long n = 0;
    for (const common::Pixel& p : pixels_) n += p.index >= common::kSkyLevels;
    return n;
}

}  // namespace bfv::display
