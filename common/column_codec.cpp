#include "common/column_codec.h"

#include <lz4.h>
#include <zstd.h>

#include <cstring>

#include "common/pixel.h"

namespace bfv::common {

namespace {

constexpr int kZstdLevel = 1;  // the fastest level: the tracer compresses every frame

// Compresses into `out` with the codec's own call; returns the compressed size, or 0 when it
// did not fit in `capacity` (the raw size: anything larger is not worth sending).
std::size_t CompressInto(ColumnCodec codec, std::span<const std::byte> raw, std::byte* out,
                         std::size_t capacity) {
    if (codec == ColumnCodec::Lz4) {
        int n = LZ4_compress_default(reinterpret_cast<const char*>(raw.data()),
                                     reinterpret_cast<char*>(out), static_cast<int>(raw.size()),
                                     static_cast<int>(capacity));
        return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    std::size_t n = ZSTD_compress(out, capacity, raw.data(), raw.size(), kZstdLevel);
    return ZSTD_isError(n) ? 0 : n;
}

constexpr int kChannels = sizeof(Pixel);  // red, green, blue

// The filter before the compressor: planes[c n .. (c + 1) n) = deltas of the pixels' channel c
// (red, green, blue), n = pixels.
void SplitAndDelta(std::span<const std::byte> raw, std::vector<std::byte>& planes) {
    std::size_t n = raw.size() / kChannels;
    planes.resize(raw.size());
    std::byte previous[kChannels] = {};
    for (std::size_t k = 0; k < n; ++k) {
        for (int p = 0; p < kChannels; ++p) {
            std::byte value = raw[kChannels * k + p];
            planes[p * n + k] = static_cast<std::byte>(static_cast<std::uint8_t>(value) -
                                                       static_cast<std::uint8_t>(previous[p]));
            previous[p] = value;
        }
    }
}

// Inverse of SplitAndDelta, in place of `raw`.
void UndeltaAndMerge(std::span<const std::byte> planes, std::span<std::byte> raw) {
    std::size_t n = raw.size() / kChannels;
    std::uint8_t value[kChannels] = {};
    for (std::size_t k = 0; k < n; ++k) {
        for (int p = 0; p < kChannels; ++p) {
            value[p] =
                static_cast<std::uint8_t>(value[p] + static_cast<std::uint8_t>(planes[p * n + k]));
            raw[kChannels * k + p] = static_cast<std::byte>(value[p]);
        }
    }
}

// Per-thread buffer for the filtered planes (compress side) or the decompressed planes.
std::vector<std::byte>& Planes() {
    thread_local std::vector<std::byte> planes;
    return planes;
}

}  // namespace

std::string ToString(ColumnCodec codec) {
    switch (codec) {
        case ColumnCodec::None:
            return "none";
        case ColumnCodec::Lz4:
            return "lz4";
        case ColumnCodec::Zstd:
            return "zstd";
    }
    return "unknown";
}

Expected<ColumnCodec> ParseColumnCodec(const std::string& text) {
    for (ColumnCodec codec : kColumnCodecs) {
        if (text == ToString(codec)) return codec;
    }
    return Error{"--column-codec: unknown codec '" + text + "'; use none, lz4 or zstd"};
}

ColumnCodec Compress(ColumnCodec codec, std::span<const std::byte> raw, std::vector<std::byte>& out,
                     std::size_t offset) {
    out.resize(offset + raw.size());
    if (codec != ColumnCodec::None && !raw.empty()) {
        std::vector<std::byte>& planes = Planes();
        SplitAndDelta(raw, planes);
        std::size_t n = CompressInto(codec, planes, out.data() + offset, raw.size() - 1);
        if (n > 0) {
            out.resize(offset + n);
            return codec;
        }
    }
    if (!raw.empty()) std::memcpy(out.data() + offset, raw.data(), raw.size());
    return ColumnCodec::None;
}

Expected<void> Decompress(ColumnCodec codec, std::span<const std::byte> compressed,
                          std::span<std::byte> raw) {
    std::vector<std::byte>& planes = Planes();
    planes.resize(raw.size());
    std::size_t n = 0;
    switch (codec) {
        case ColumnCodec::None:
            if (compressed.size() != raw.size()) return Error{"raw payload has the wrong size"};
            if (!raw.empty()) std::memcpy(raw.data(), compressed.data(), raw.size());
            return {};
        case ColumnCodec::Lz4: {
            int got = LZ4_decompress_safe(reinterpret_cast<const char*>(compressed.data()),
                                          reinterpret_cast<char*>(planes.data()),
                                          static_cast<int>(compressed.size()),
                                          static_cast<int>(raw.size()));
            if (got < 0) return Error{"lz4 payload is corrupt"};
            n = static_cast<std::size_t>(got);
            break;
        }
        case ColumnCodec::Zstd:
            n = ZSTD_decompress(planes.data(), planes.size(), compressed.data(), compressed.size());
            if (ZSTD_isError(n))
                return Error{std::string("zstd payload is corrupt: ") + ZSTD_getErrorName(n)};
            break;
        default:
            return Error{"unknown codec " + std::to_string(static_cast<std::uint32_t>(codec))};
    }
    if (n != raw.size()) {
        return Error{ToString(codec) + " payload decompresses to " + std::to_string(n) +
                     " bytes, expected " + std::to_string(raw.size())};
    }
    UndeltaAndMerge(planes, raw);
    return {};
}

}  // namespace bfv::common
