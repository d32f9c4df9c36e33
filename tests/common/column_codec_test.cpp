#include "common/column_codec.h"

#include <gtest/gtest.h>

#include <random>

namespace bfv::common {
namespace {

// A column-like payload: long runs (sky) and a slowly varying ramp (smooth terrain).
std::vector<std::byte> Compressible() {
    std::vector<std::byte> raw(21000, std::byte{200});  // whole 3-byte pixels
    for (std::size_t k = 8000; k < raw.size(); ++k) raw[k] = static_cast<std::byte>((k / 40) % 256);
    return raw;
}

std::vector<std::byte> Noise(std::size_t n) {
    std::mt19937 random(7);
    std::vector<std::byte> raw(n);
    for (std::byte& b : raw) b = static_cast<std::byte>(random() & 0xff);
    return raw;
}

TEST(ColumnCodec, EveryCodecRoundTripsAndCompressesColumns) {
    std::vector<std::byte> raw = Compressible();
    for (ColumnCodec codec : kColumnCodecs) {
        std::vector<std::byte> wire{std::byte{1}, std::byte{2}};  // a header to keep
        ColumnCodec used = Compress(codec, raw, wire, 2);
        EXPECT_EQ(used, codec) << ToString(codec);
        EXPECT_EQ(wire[0], std::byte{1}) << "bytes before the offset are kept";
        if (codec != ColumnCodec::None) {
            EXPECT_LT(wire.size(), raw.size() / 4) << ToString(codec);
        }
        std::vector<std::byte> back(raw.size());
        auto ok = Decompress(used, std::span(wire).subspan(2), back);
        ASSERT_TRUE(ok.ok()) << ok.error().message;
        EXPECT_EQ(back, raw) << ToString(codec);
    }
}

// Found by fuzz/columns_message_fuzz.cpp (UBSan): decompressing an empty payload copied from a
// null pointer.
TEST(ColumnCodec, AnEmptyPayloadRoundTrips) {
    for (ColumnCodec codec : kColumnCodecs) {
        std::vector<std::byte> wire;
        ColumnCodec used = Compress(codec, {}, wire);
        EXPECT_EQ(used, ColumnCodec::None) << ToString(codec);
        EXPECT_TRUE(wire.empty()) << ToString(codec);
        EXPECT_TRUE(Decompress(used, wire, {}).ok()) << ToString(codec);
    }
}

TEST(ColumnCodec, IncompressibleDataTravelsRaw) {
    std::vector<std::byte> raw = Noise(4096);
    for (ColumnCodec codec : kColumnCodecs) {
        std::vector<std::byte> wire;
        EXPECT_EQ(Compress(codec, raw, wire), ColumnCodec::None) << ToString(codec);
        EXPECT_EQ(wire, raw);
    }
}

TEST(ColumnCodec, CorruptOrShortDataIsAnError) {
    std::vector<std::byte> raw = Compressible();
    for (ColumnCodec codec : {ColumnCodec::Lz4, ColumnCodec::Zstd}) {
        std::vector<std::byte> wire;
        ASSERT_EQ(Compress(codec, raw, wire), codec);
        std::vector<std::byte> back(raw.size());
        std::vector<std::byte> garbage = Noise(wire.size());
        auto corrupt = Decompress(codec, garbage, back);
        ASSERT_FALSE(corrupt.ok()) << ToString(codec);
        EXPECT_NE(corrupt.error().message.find(ToString(codec)), std::string::npos);
        std::vector<std::byte> tooBig(raw.size() + 10);
        auto wrongSize = Decompress(codec, wire, tooBig);
        ASSERT_FALSE(wrongSize.ok()) << ToString(codec);
    }
    std::vector<std::byte> back(10);
    EXPECT_FALSE(Decompress(ColumnCodec::None, Noise(9), back).ok());
    EXPECT_FALSE(Decompress(static_cast<ColumnCodec>(9), Noise(9), back).ok());
}

TEST(ColumnCodec, ParsesItsNames) {
    for (ColumnCodec codec : kColumnCodecs) EXPECT_EQ(*ParseColumnCodec(ToString(codec)), codec);
    auto bad = ParseColumnCodec("gzip");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'gzip'"), std::string::npos);
}

}  // namespace
}  // namespace bfv::common
