#include "display/jpeg_encoder.h"

#include <turbojpeg.h>

namespace bfv::display {

JpegEncoder::JpegEncoder(int quality) : compressor_(tjInitCompress()), quality_(quality) {}

JpegEncoder::~JpegEncoder() {
    if (compressor_) tjDestroy(compressor_);
}

Expected<void> JpegEncoder::Encode(std::span<const std::uint8_t> rgb, int widthPx, int heightPx,
                                   std::string& jpeg) {
    if (!compressor_) return Error{"cannot start the JPEG compressor"};
    unsigned char* out = nullptr;
    unsigned long outBytes = 0;
    // TurboJPEG allocates the output (tjAlloc); copied out and freed, as its API asks.
    int status = tjCompress2(compressor_, rgb.data(), widthPx, widthPx * 3, heightPx, TJPF_RGB,
                             &out, &outBytes, TJSAMP_420, quality_, TJFLAG_FASTDCT);
    if (status != 0) {
        tjFree(out);
        return Error{std::string("JPEG: ") + tjGetErrorStr2(compressor_)};
    }
    jpeg.assign(reinterpret_cast<const char*>(out), outBytes);
    tjFree(out);
    return {};
}

}  // namespace bfv::display
