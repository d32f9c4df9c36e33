#pragma once

// Little-endian encoding for bfv's file formats (.bfvt, .bfvp): a writer that appends numbers
// to a byte vector, a reader that takes them from a borrowed byte span, and the zlib crc32 the
// formats use for their checksums.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/check.h"

namespace bfv::terrain {

/// Appends little-endian numbers to `out`, which must outlive the writer.
class ByteWriter {
  public:
    explicit ByteWriter(std::vector<std::byte>& out) : out_(out) {}
    void U8(std::uint8_t v) { Put(v, 1); }
    void U16(std::uint16_t v) { Put(v, 2); }
    void U32(std::uint32_t v) { Put(v, 4); }
    void U64(std::uint64_t v) { Put(v, 8); }
    void F32(float v) { Put(std::bit_cast<std::uint32_t>(v), 4); }
    void F64(double v) { Put(std::bit_cast<std::uint64_t>(v), 8); }
    void Bytes(std::string_view s) {
        for (char c : s) out_.push_back(static_cast<std::byte>(c));
    }

  private:
    void Put(std::uint64_t v, int nBytes) {
        for (int k = 0; k < nBytes; ++k) out_.push_back(static_cast<std::byte>(v >> (8 * k)));
    }
    std::vector<std::byte>& out_;
};

/// Reads little-endian numbers from `bytes` (borrowed; must outlive the reader) starting at
/// byte `pos`. The caller checks the length first: reading past the end is a programming error
/// (BFV_CHECK aborts).
class ByteReader {
  public:
    ByteReader(std::span<const std::byte> bytes, std::size_t pos) : bytes_(bytes), pos_(pos) {}
    std::uint8_t U8() { return static_cast<std::uint8_t>(Get(1)); }
    std::int16_t I16() { return static_cast<std::int16_t>(static_cast<std::uint16_t>(Get(2))); }
    std::uint32_t U32() { return static_cast<std::uint32_t>(Get(4)); }
    std::uint64_t U64() { return Get(8); }
    float F32() { return std::bit_cast<float>(U32()); }
    double F64() { return std::bit_cast<double>(Get(8)); }
    std::string String(std::size_t n) {
        BFV_CHECK_LE(pos_ + n, bytes_.size());
        std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
        pos_ += n;
        return s;
    }
    /// The offset of the next byte to read.
    std::size_t Pos() const { return pos_; }

  private:
    std::uint64_t Get(int nBytes) {
        BFV_CHECK_LE(pos_ + nBytes, bytes_.size());
        std::uint64_t v = 0;
        for (int k = 0; k < nBytes; ++k) {
            v |= static_cast<std::uint64_t>(bytes_[pos_ + k]) << (8 * k);
        }
        pos_ += nBytes;
        return v;
    }
    std::span<const std::byte> bytes_;
    std::size_t pos_;
};

/// zlib's crc32 of `bytes` (any length).
std::uint32_t Crc32(std::span<const std::byte> bytes);

}  // namespace bfv::terrain
