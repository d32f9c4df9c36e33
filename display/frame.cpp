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

void Frame::ToRgb(std::vector<std::uint8_t>& rgb) const {
    rgb.resize(pixels_.size() * 3);
    auto* out = reinterpret_cast<common::Pixel*>(rgb.data());
    for (int x = 0; x < widthPx_; ++x) {
        const common::Pixel* column = Column(x);
        for (int y = 0; y < heightPx_; ++y) out[static_cast<size_t>(y) * widthPx_ + x] = column[y];
    }
}

}  // namespace bfv::display
