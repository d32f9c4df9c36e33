#include "terrain/byte_io.h"

#include <zlib.h>

namespace bfv::terrain {

std::uint32_t Crc32(std::span<const std::byte> bytes) {
    return static_cast<std::uint32_t>(
        crc32_z(0L, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

}  // namespace bfv::terrain
