// The file formats' little-endian writer and reader, and their crc32, against known bytes.

#include "terrain/byte_io.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace bfv::terrain {
namespace {

/// `text` as bytes.
std::vector<std::byte> Bytes(const std::string& text) {
    std::vector<std::byte> out;
    for (char c : text) out.push_back(static_cast<std::byte>(c));
    return out;
}

TEST(ByteIo, WriterPutsTheLeastSignificantByteFirst) {
    std::vector<std::byte> out;
    ByteWriter w(out);
    w.U8(0xAB);
    w.U16(0x1234);
    w.U32(0x01020304u);
    w.U64(0x1122334455667788ull);
    w.F32(1.0f);  // 0x3F800000
    w.F64(-2.0);  // 0xC000000000000000
    w.Bytes("ok");
    std::vector<std::byte> expected =
        Bytes(std::string("\xAB"
                          "\x34\x12"
                          "\x04\x03\x02\x01"
                          "\x88\x77\x66\x55\x44\x33\x22\x11"
                          "\x00\x00\x80\x3F"
                          "\x00\x00\x00\x00\x00\x00\x00\xC0"
                          "ok",
                          1 + 2 + 4 + 8 + 4 + 8 + 2));
    EXPECT_EQ(out, expected);
}

TEST(ByteIo, ReaderReadsBackWhatTheWriterWrote) {
    std::vector<std::byte> bytes = Bytes("head");  // the reader starts after these
    ByteWriter w(bytes);
    w.U8(200);
    w.U16(0xFFFE);  // -2 as an int16
    w.U32(4000000000u);
    w.U64(std::numeric_limits<std::uint64_t>::max() - 1);
    w.F32(-0.375f);
    w.F64(6.02214076e23);
    w.Bytes("name");
    ByteReader r(bytes, 4);
    EXPECT_EQ(r.U8(), 200);
    EXPECT_EQ(r.I16(), -2);
    EXPECT_EQ(r.U32(), 4000000000u);
    EXPECT_EQ(r.U64(), std::numeric_limits<std::uint64_t>::max() - 1);
    EXPECT_EQ(r.F32(), -0.375f);
    EXPECT_EQ(r.F64(), 6.02214076e23);
    EXPECT_EQ(r.Pos(), bytes.size() - 4);
    EXPECT_EQ(r.String(4), "name");
    EXPECT_EQ(r.Pos(), bytes.size());
}

// Reading past the end is a programming error: the check names it and aborts.
TEST(ByteIoDeathTest, ReadingPastTheEndAborts) {
    std::vector<std::byte> bytes = Bytes("abc");
    EXPECT_DEATH(ByteReader(bytes, 0).U32(), "check failed.*pos_ \\+ nBytes <= bytes_.size\\(\\)");
    EXPECT_DEATH(ByteReader(bytes, 2).String(2), "check failed.*\\(4 vs 3\\)");
}

// Known answers of zlib's crc32 (the CRC-32 of ISO-HDLC: "123456789" gives 0xCBF43926).
TEST(ByteIo, Crc32MatchesTheStandardCheckValue) {
    EXPECT_EQ(Crc32(Bytes("123456789")), 0xCBF43926u);
    EXPECT_EQ(Crc32(Bytes("")), 0u);
    EXPECT_EQ(Crc32(Bytes("The quick brown fox jumps over the lazy dog")), 0x414FA339u);
}

}  // namespace
}  // namespace bfv::terrain
