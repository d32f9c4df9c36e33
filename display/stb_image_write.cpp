// The one translation unit that compiles stb_image_write's implementation. stb's own deflate
// takes about 150 ms for a 1280x720 frame on one core at any level, a tenth of a tracer's CPU on
// the demo; its PNGs are deflated by zlib at its fastest level instead (STBIW_ZLIB_COMPRESS).
#include <zlib.h>

#include <cstdlib>

namespace {

// stb's compress hook: `dataLen` bytes deflated into a buffer allocated with malloc (stb frees
// it with free), its size in *outLen; nullptr if zlib fails. stb's quality is not used.
unsigned char* ZlibCompress(unsigned char* data, int dataLen, int* outLen, int /*quality*/) {
    uLongf sizeBytes = compressBound(static_cast<uLong>(dataLen));
    auto* out = static_cast<unsigned char*>(std::malloc(sizeBytes));
    if (out == nullptr) return nullptr;
    if (compress2(out, &sizeBytes, data, static_cast<uLong>(dataLen), Z_BEST_SPEED) != Z_OK) {
        std::free(out);
        return nullptr;
    }
    *outLen = static_cast<int>(sizeBytes);
    return out;
}

}  // namespace

#define STBIW_ZLIB_COMPRESS ZlibCompress
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
