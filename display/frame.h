#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/pixel.h"

namespace bfv::display {

/// One assembled frame as the display receives it: an sRGB colour per pixel (common::Pixel),
/// stored column after column (the order columns arrive in), top row first.
class Frame {
  public:
    Frame(int widthPx, int heightPx)
        : widthPx_(widthPx),
          heightPx_(heightPx),
          pixels_(static_cast<std::size_t>(widthPx) * heightPx) {}

    int WidthPx() const { return widthPx_; }
    int HeightPx() const { return heightPx_; }
    common::Pixel* Column(int x) { return &pixels_[static_cast<std::size_t>(x) * heightPx_]; }
    const common::Pixel* Column(int x) const {
        return &pixels_[static_cast<std::size_t>(x) * heightPx_];
    }

    /// Every pixel, column after column (widthPx * heightPx).
    std::span<const common::Pixel> Pixels() const { return pixels_; }
    /// XXH3-64 (libxxhash) of the pixels' bytes in column order: equal frames, equal checksums.
    /// Computed for every frame, so it must cost little (about 0.1 ms at 1280x720).
    std::uint64_t Checksum() const;
    /// The pixels row after row: `rgb` becomes widthPx*heightPx*3 bytes (red, green, blue),
    /// row-major, top row first, as images and windows take them.
    void ToRgb(std::vector<std::uint8_t>& rgb) const;

  private:
    int widthPx_;
    int heightPx_;
    std::vector<common::Pixel> pixels_;
};

}  // namespace bfv::display
