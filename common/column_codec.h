#pragma once

// Compression of the ray tracers' messages of columns (--column-codec). On a cluster the
// display's link is the other half of speed: sky runs and smooth terrain compress well, and a
// tracer that spends a little CPU compressing lets more frames through a link that binds.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"

namespace bfv::common {

/// A codec for the payload of a columns message (3-byte sRGB pixels, column after column). Lz4
/// and Zstd first split the payload into its red, green and blue planes and delta-code each
/// along the columns (as PNG's filters do): sky and haze change slowly down a column and leave
/// mostly zeros. The values travel in ColumnsHeader::codec.
enum class ColumnCodec : std::uint32_t {
    None = 0,  // raw pixels, as the source paper sends them
    Lz4 = 1,   // LZ4 (liblz4), default acceleration: cheap on both sides
    Zstd = 2,  // Zstandard (libzstd) level 1: smaller, more CPU
};

inline constexpr ColumnCodec kColumnCodecs[] = {ColumnCodec::None, ColumnCodec::Lz4,
                                                ColumnCodec::Zstd};

/// "none", "lz4" or "zstd".
std::string ToString(ColumnCodec codec);

/// Inverse of ToString. Errors name the text and the codecs there are.
Expected<ColumnCodec> ParseColumnCodec(const std::string& text);

/// Compresses `raw` (3-byte pixels: a multiple of 3 bytes) with `codec` into `out` from byte
/// `offset` on (the bytes before it are kept; `out` ends with the compressed data) and returns the
/// codec that was used: None, with a copy of `raw`, when compressing would not make it smaller.
ColumnCodec Compress(ColumnCodec codec, std::span<const std::byte> raw, std::vector<std::byte>& out,
                     std::size_t offset = 0);

/// Decompresses `compressed`, made by Compress with `codec`, into `raw`, which has the raw
/// size (a multiple of 3 bytes). Errors: an unknown codec, corrupt data, or data that does not fill
/// `raw` exactly.
Expected<void> Decompress(ColumnCodec codec, std::span<const std::byte> compressed,
                          std::span<std::byte> raw);

}  // namespace bfv::common
