#pragma once

// The pixel size a PNG file declares, for tests that check written images without decoding.

#include <fstream>
#include <string>
#include <utility>

namespace bfv::test_support {

/// Width and height from a PNG file's IHDR chunk (big-endian at bytes 16 and 20), or {0, 0}
/// when the file is missing or shorter than a PNG header.
inline std::pair<int, int> PngSize(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char header[24] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    auto be32 = [&](int at) {
        return header[at] << 24 | header[at + 1] << 16 | header[at + 2] << 8 | header[at + 3];
    };
    return in ? std::pair{be32(16), be32(20)} : std::pair{0, 0};
}

}  // namespace bfv::test_support
