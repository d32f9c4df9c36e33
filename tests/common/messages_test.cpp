#include "common/messages.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace bfv::common {
namespace {

constexpr int kWidth = 100, kHeight = 6;

std::vector<Pixel> SomePixels(int nColumns) {
    std::vector<Pixel> pixels;
    for (int k = 0; k < nColumns * kHeight; ++k) {
        pixels.push_back({static_cast<std::uint8_t>(k * 7), static_cast<std::uint8_t>(255 - k),
                          static_cast<std::uint8_t>(k * k)});
    }
    return pixels;
}

std::vector<std::byte> ColumnsMessage(std::uint32_t first, std::uint32_t stride, int nColumns) {
    ColumnsHeader header;
    header.frame = 42;
    header.firstColumn = first;
    header.columnStride = stride;
    header.nColumns = static_cast<std::uint32_t>(nColumns);
    header.heightPx = kHeight;
    header.traceUs = 12345;
    std::vector<std::byte> out;
    EncodeColumns(header, SomePixels(nColumns), ColumnCodec::None, out);
    return out;
}

// Overwrites the 32-bit header field at byte `offset` (little-endian hosts only, like bfv).
void SetU32(std::vector<std::byte>& message, std::size_t offset, std::uint32_t v) {
    std::memcpy(message.data() + offset, &v, sizeof(v));
}

std::string ColumnsError(std::span<const std::byte> message) {
    Expected<ColumnsHeader> h = DecodeColumns(message, kWidth, kHeight);
    return h.ok() ? "" : h.error().message;
}

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

TEST(Messages, ColumnsRoundTrip) {
    std::vector<std::byte> message = ColumnsMessage(3, 4, 5);  // columns 3, 7, ..., 19
    EXPECT_EQ(message.size(), ColumnsMessageBytes(5, kHeight));
    Expected<ColumnsHeader> h = DecodeColumns(message, kWidth, kHeight);
    ASSERT_TRUE(h.ok()) << h.error().message;
    EXPECT_EQ(h->frame, 42u);
    EXPECT_EQ(h->firstColumn, 3u);
    EXPECT_EQ(h->columnStride, 4u);
    EXPECT_EQ(h->nColumns, 5u);
    EXPECT_EQ(h->payloadBytes, 5u * kHeight * sizeof(Pixel));
    EXPECT_EQ(h->traceUs, 12345u);
    std::vector<Pixel> pixels(5 * kHeight), expected = SomePixels(5);
    std::memcpy(pixels.data(), message.data() + sizeof(ColumnsHeader), h->payloadBytes);
    for (size_t k = 0; k < pixels.size(); ++k) {
        EXPECT_EQ(pixels[k], expected[k]) << "pixel " << k;
    }
}

TEST(Messages, ColumnsRejectTruncation) {
    std::vector<std::byte> message = ColumnsMessage(0, 1, 3);
    for (size_t n = 0; n < sizeof(ColumnsHeader); ++n) {
        EXPECT_TRUE(Contains(ColumnsError(std::span(message).first(n)), "truncated")) << n;
    }
    for (size_t n = sizeof(ColumnsHeader); n < message.size(); n += 5) {
        EXPECT_TRUE(Contains(ColumnsError(std::span(message).first(n)), "header says")) << n;
    }
}

TEST(Messages, ColumnsRejectBadHeaders) {
    std::vector<std::byte> badMagic = ColumnsMessage(0, 1, 2);
    SetU32(badMagic, 0, 0x12345678);
    EXPECT_TRUE(Contains(ColumnsError(badMagic), "bad magic"));

    std::vector<std::byte> tall = ColumnsMessage(0, 1, 2);
    EXPECT_TRUE(
        Contains(DecodeColumns(tall, kWidth, kHeight + 1).error().message, "column height"));

    EXPECT_TRUE(Contains(ColumnsError(ColumnsMessage(98, 1, 3)), "column 100 is off"));
    EXPECT_TRUE(Contains(ColumnsError(ColumnsMessage(4, 32, 4)), "column 100 is off"));
    EXPECT_EQ(ColumnsError(ColumnsMessage(97, 1, 3)), "");  // the last column is on screen

    EXPECT_TRUE(Contains(ColumnsError(ColumnsMessage(0, 1, 0)), "disagree"));
    std::vector<std::byte> zeroStride = ColumnsMessage(0, 0, 2);
    EXPECT_TRUE(Contains(ColumnsError(zeroStride), "disagree"));

    std::vector<std::byte> miscounted = ColumnsMessage(0, 1, 4);
    SetU32(miscounted, offsetof(ColumnsHeader, nColumns), 3);
    EXPECT_TRUE(Contains(ColumnsError(miscounted), "disagree"));
}

// A message of `nColumns` columns of one colour: compressible.
std::vector<std::byte> SkyMessage(ColumnCodec codec, int nColumns) {
    ColumnsHeader header;
    header.nColumns = static_cast<std::uint32_t>(nColumns);
    header.heightPx = kHeight;
    std::vector<std::byte> out;
    EncodeColumns(header, std::vector<Pixel>(nColumns * kHeight, Pixel{3, 255, 40}), codec, out);
    return out;
}

TEST(Messages, CompressedColumnsRoundTrip) {
    for (ColumnCodec codec : {ColumnCodec::Lz4, ColumnCodec::Zstd}) {
        std::vector<std::byte> message = SkyMessage(codec, 50);
        EXPECT_LT(message.size(), ColumnsMessageBytes(50, kHeight) / 4) << ToString(codec);
        Expected<ColumnsHeader> h = DecodeColumns(message, kWidth, kHeight);
        ASSERT_TRUE(h.ok()) << h.error().message;
        EXPECT_EQ(h->codec, static_cast<std::uint32_t>(codec));
        std::vector<std::byte> scratch;
        auto payload = ColumnsPayload(message, *h, scratch);
        ASSERT_TRUE(payload.ok()) << payload.error().message;
        ASSERT_EQ(payload->size(), 50u * kHeight * sizeof(Pixel));
        for (std::size_t k = 0; k < payload->size(); k += 3) {
            ASSERT_EQ((*payload)[k], std::byte{3});
            ASSERT_EQ((*payload)[k + 1], std::byte{255});
            ASSERT_EQ((*payload)[k + 2], std::byte{40});
        }
    }
    std::vector<std::byte> raw = ColumnsMessage(0, 1, 2), scratch;
    auto payload = ColumnsPayload(raw, *DecodeColumns(raw, kWidth, kHeight), scratch);
    EXPECT_EQ(payload->data(), raw.data() + sizeof(ColumnsHeader)) << "raw payloads are not copied";
}

TEST(Messages, CorruptCompressedColumnsAreRefused) {
    std::vector<std::byte> message = SkyMessage(ColumnCodec::Lz4, 50);
    for (std::size_t k = sizeof(ColumnsHeader); k < message.size(); ++k)
        message[k] = std::byte{0xff};
    Expected<ColumnsHeader> h = DecodeColumns(message, kWidth, kHeight);
    ASSERT_TRUE(h.ok()) << "the header is sound";
    std::vector<std::byte> scratch;
    auto payload = ColumnsPayload(message, *h, scratch);
    ASSERT_FALSE(payload.ok());
    EXPECT_TRUE(Contains(payload.error().message, "lz4 payload is corrupt"));

    std::vector<std::byte> unknown = SkyMessage(ColumnCodec::Zstd, 50);
    SetU32(unknown, offsetof(ColumnsHeader, codec), 7);
    EXPECT_TRUE(Contains(ColumnsError(unknown), "unknown codec 7"));
    std::vector<std::byte> claimsRaw = SkyMessage(ColumnCodec::Zstd, 50);
    SetU32(claimsRaw, offsetof(ColumnsHeader, codec), 0);
    EXPECT_TRUE(Contains(ColumnsError(claimsRaw), "disagree"));
}

std::vector<std::byte> SomeFile(std::size_t n) {
    std::vector<std::byte> file(n);
    for (std::size_t k = 0; k < n; ++k) file[k] = static_cast<std::byte>((k * 31 + 7) & 0xff);
    return file;
}

TEST(Messages, TerrainChunksRoundTripTheFile) {
    std::vector<std::byte> file = SomeFile(1000), rebuilt(file.size());
    std::vector<std::byte> message;
    constexpr std::size_t kChunk = 300;
    std::uint64_t offset = 0;
    for (std::uint32_t seq = 0; offset < file.size(); ++seq) {
        EncodeTerrainChunk(file, seq, kChunk, message);
        Expected<TerrainChunkHeader> h = DecodeTerrainChunk(message, seq, offset, file.size());
        ASSERT_TRUE(h.ok()) << h.error().message;
        EXPECT_EQ(h->payloadBytes, seq < 3 ? kChunk : 100u);
        std::memcpy(rebuilt.data() + h->offsetBytes, message.data() + sizeof(TerrainChunkHeader),
                    h->payloadBytes);
        offset += h->payloadBytes;
    }
    EXPECT_EQ(rebuilt, file);
}

TEST(Messages, TerrainChunksRejectCorruption) {
    std::vector<std::byte> file = SomeFile(1000), message;
    EncodeTerrainChunk(file, 1, 300, message);
    auto error = [&](std::span<const std::byte> m, std::uint32_t seq, std::uint64_t offset) {
        Expected<TerrainChunkHeader> h = DecodeTerrainChunk(m, seq, offset, file.size());
        return h.ok() ? std::string() : h.error().message;
    };
    EXPECT_EQ(error(message, 1, 300), "");
    EXPECT_TRUE(Contains(error(message, 2, 600), "chunk 1 arrived, expected 2"));
    EXPECT_TRUE(Contains(error(std::span(message).first(20), 1, 300), "truncated"));
    EXPECT_TRUE(
        Contains(error(std::span(message).first(message.size() - 1), 1, 300), "payload size"));
    std::vector<std::byte> flipped = message;
    flipped[sizeof(TerrainChunkHeader) + 17] ^= std::byte{0x04};
    EXPECT_TRUE(Contains(error(flipped, 1, 300), "checksum mismatch"));
    std::vector<std::byte> badMagic = message;
    badMagic[0] ^= std::byte{0xff};
    EXPECT_TRUE(Contains(error(badMagic, 1, 300), "bad magic"));
}

TEST(Messages, FrameCommandCarriesThePose) {
    CameraPose pose{{1.5, -2.0, 300.25}, 0.75, -0.5, 12.5};
    FrameCommand command = FrameCommand::Render(9, pose);
    EXPECT_EQ(command.kind, FrameCommand::kRender);
    EXPECT_EQ(command.frame, 9u);
    CameraPose back = command.Pose();
    EXPECT_EQ(back.eyeM, pose.eyeM);
    EXPECT_EQ(back.headingRad, pose.headingRad);
    EXPECT_EQ(back.pitchRad, pose.pitchRad);
    EXPECT_EQ(back.timeS, pose.timeS);
    EXPECT_EQ(command.nSlices, 0u) << "no split unless one is set";
    auto none = command.Split(2, 100);
    ASSERT_FALSE(none.ok());
    EXPECT_TRUE(Contains(none.error().message, "split for 0 ray tracers, the job has 2"));
}

// The split survives the trip as bytes, as the tracers receive it.
TEST(Messages, FrameCommandCarriesTheSplit) {
    FrameCommand command = FrameCommand::Render(4, {});
    std::vector<int> boundariesPx{0, 1, 60, 99, 100};
    command.SetSplit(boundariesPx);
    FrameCommand received;
    std::memcpy(&received, &command, sizeof(command));
    auto split = received.Split(4, 100);
    ASSERT_TRUE(split.ok()) << split.error().message;
    EXPECT_EQ(*split, boundariesPx);
    std::vector<int> most(kMaxDynamicTracers + 1);
    for (int t = 0; t <= kMaxDynamicTracers; ++t) most[t] = 3 * t;
    command.SetSplit(most);
    split = command.Split(kMaxDynamicTracers, 3 * kMaxDynamicTracers);
    ASSERT_TRUE(split.ok()) << split.error().message;
    EXPECT_EQ(*split, most);
}

// A split that does not fit the job is an error naming the problem, never a crash.
TEST(Messages, FrameCommandRefusesABadSplit) {
    auto error = [](std::uint32_t nSlices, std::vector<std::uint32_t> ends, int nTracers) {
        FrameCommand command = FrameCommand::Render(4, {});
        command.nSlices = nSlices;
        std::copy(ends.begin(), ends.end(), command.sliceEndPx);
        auto split = command.Split(nTracers, 100);
        return split.ok() ? std::string() : split.error().message;
    };
    EXPECT_EQ(error(3, {10, 50, 100}, 3), "");
    EXPECT_TRUE(Contains(error(3, {10, 50, 100}, 4), "split for 3 ray tracers, the job has 4"));
    EXPECT_TRUE(Contains(error(1000, {}, 1000), "split for 1000 ray tracers"));
    EXPECT_TRUE(Contains(error(3, {10, 50, 101}, 3), "slice ends at column 101, off a screen"));
    EXPECT_TRUE(Contains(error(3, {10, 50, 0xffffffffu}, 3), "ends at column 4294967295"));
    EXPECT_TRUE(Contains(error(3, {10, 50, 99}, 3), "to 99, the screen from 0 to 100"));
    EXPECT_TRUE(Contains(error(3, {50, 50, 100}, 3), "ray tracer 1 gets columns 50..50"));
    EXPECT_TRUE(Contains(error(3, {0, 50, 100}, 3), "frame command 4: "));
}

}  // namespace
}  // namespace bfv::common
