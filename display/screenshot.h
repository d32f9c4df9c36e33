#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/expected.h"

namespace bfv::display {

/// A row-major RGB image (`widthPx` * `heightPx` * 3 bytes) encoded as PNG bytes. Errors when
/// stb_image_write cannot encode it (an image of the wrong size, or no memory).
Expected<std::vector<std::byte>> EncodePng(int widthPx, int heightPx,
                                           const std::vector<std::uint8_t>& rgb);

/// Writes `rgb` (row-major RGB, `widthPx` x `heightPx`) as DIR/screenshot_NNNN.png with the
/// first free number from 0000, creating `dir` when needed, and returns the path written.
/// Errors name the directory or file that could not be made (the caller goes on without it).
Expected<std::string> WriteScreenshot(const std::string& dir, int widthPx, int heightPx,
                                      const std::vector<std::uint8_t>& rgb);

}  // namespace bfv::display
