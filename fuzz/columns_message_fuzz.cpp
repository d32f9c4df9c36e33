// libFuzzer harness: a message of columns as the display's receive threads take it
// (common::DecodeColumns, then common::ColumnsPayload, which decompresses with the header's
// codec), its columns copied into a frame of the screen's size; and the column codecs alone:
// each codec's Decompress on the bytes, and a Compress/Decompress round trip that must give
// the bytes back. A corrupt message must be an Error, never a crash or a write off the frame.
//
// Input: 2 bytes of screen width (1 + value % 2048), 2 of height (1 + value % 512), both
// little-endian, then the message.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "common/column_codec.h"
#include "common/messages.h"

namespace {

using namespace bfv::common;

// The display's frame assembly: every column of an accepted message into a W x H frame.
void DecodeIntoFrame(std::span<const std::byte> message, int widthPx, int heightPx) {
    auto header = DecodeColumns(message, widthPx, heightPx);
    if (!header) return;
    std::vector<std::byte> scratch;
    auto payload = ColumnsPayload(message, *header, scratch);
    if (!payload) return;
    std::size_t columnBytes = static_cast<std::size_t>(heightPx) * sizeof(Pixel);
    if (payload->size() != header->nColumns * columnBytes) std::abort();
    std::vector<Pixel> frame(static_cast<std::size_t>(widthPx) * heightPx);
    for (std::uint32_t k = 0; k < header->nColumns; ++k) {
        std::size_t x = header->firstColumn + k * header->columnStride;
        if (x >= static_cast<std::size_t>(widthPx)) std::abort();
        std::memcpy(&frame[x * heightPx], payload->data() + k * columnBytes, columnBytes);
    }
}

// Each codec on `bytes` as compressed data of a raw size of whole pixels, then round trips.
void ExerciseCodecs(std::span<const std::byte> bytes) {
    std::vector<std::byte> raw(bytes.size() / sizeof(Pixel) * sizeof(Pixel));
    for (ColumnCodec codec : kColumnCodecs) (void)Decompress(codec, bytes, raw);
    (void)Decompress(static_cast<ColumnCodec>(3), bytes, raw);
    auto original = bytes.first(raw.size());
    for (ColumnCodec codec : kColumnCodecs) {
        std::vector<std::byte> compressed;
        ColumnCodec used = Compress(codec, original, compressed);
        if (!Decompress(used, compressed, raw) ||
            !std::equal(raw.begin(), raw.end(), original.begin()))
            std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    int widthPx = 1 + (data[0] | data[1] << 8) % 2048;
    int heightPx = 1 + (data[2] | data[3] << 8) % 512;
    auto message = std::as_bytes(std::span(data + 4, size - 4));
    DecodeIntoFrame(message, widthPx, heightPx);
    ExerciseCodecs(message);
    return 0;
}
