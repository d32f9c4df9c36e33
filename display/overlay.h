#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bfv::display {

/// Draws `text` (ASCII, '\n' for new lines) in white on a dark box at pixel (x, y) of a
/// row-major RGB image `widthPx` wide, with stb_easy_font's glyphs scaled by `scale`.
/// Parts outside the image are clipped.
void DrawText(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
              const std::string& text, int scale = 2);

}  // namespace bfv::display
