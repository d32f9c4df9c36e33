#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/expected.h"

namespace bfv::display {

/// A libjpeg-turbo (TurboJPEG API) compressor that keeps its state between frames: one per
/// encoding thread, not shared.
class JpegEncoder {
  public:
    /// `quality` 1..100 (libjpeg's scale); chroma subsampled 4:2:0 as web JPEGs are.
    explicit JpegEncoder(int quality);
    ~JpegEncoder();
    JpegEncoder(const JpegEncoder&) = delete;
    JpegEncoder& operator=(const JpegEncoder&) = delete;

    /// Compresses a row-major RGB image (`rgb`: widthPx*heightPx*3 bytes, top row first) into
    /// `jpeg` (replaced; its capacity is reused between frames). Errors: TurboJPEG's message.
    Expected<void> Encode(std::span<const std::uint8_t> rgb, int widthPx, int heightPx,
                          std::string& jpeg);

  private:
    void* compressor_;  // tjhandle
    int quality_;
};

}  // namespace bfv::display
