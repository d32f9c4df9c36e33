// libFuzzer harness: a .bfvp tile pyramid file opened and every stored tile read and verified
// (terrain::PyramidFile), as `bfv info` and the terrain server do. A bad file must be an Error,
// never a crash or a read outside the map.
//
// Input: 1 byte of flags, then the file. The file's checksums stop a fuzzer at the header, so
// before writing it the harness recomputes them as the flags say: bit 0 the header's crc32,
// bit 1 each index entry's tile crc32 (for entries whose tile lies inside the file).

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz/fuzz_input_file.h"
#include "terrain/pyramid_file.h"

namespace {

constexpr std::size_t kVersionAt = 8, kNameBytesAt = 152, kNameAt = 156, kIndexEntryBytes = 24;

std::uint32_t LoadU32(const std::vector<std::uint8_t>& file, std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, &file[at], 4);
    return v;
}

std::uint32_t Crc32(const std::uint8_t* bytes, std::size_t n) {
    return static_cast<std::uint32_t>(crc32(0L, bytes, static_cast<uInt>(n)));
}

// Bytes of a header's imagery after the name, as far as the file holds them: none for version
// 1, else (versions 2 and 3: an 8-colour ramp or a palette) u32 count C, C RGB colours, u32
// draped levels.
std::size_t ImageryBytes(const std::vector<std::uint8_t>& file, std::size_t nameEnd) {
    std::uint32_t version = LoadU32(file, kVersionAt);
    if ((version != 2 && version != 3) || nameEnd + 4 > file.size()) return 0;
    return 4 + 3 * std::size_t{LoadU32(file, nameEnd)} + 4;
}

// Where the header's crc32 stands: after the name, and a textured header's colours.
std::size_t HeaderCrcAt(const std::vector<std::uint8_t>& file) {
    std::size_t nameEnd = kNameAt + LoadU32(file, kNameBytesAt);
    return nameEnd + ImageryBytes(file, nameEnd);
}

// Recomputes the crc32 that ends the header (layout in terrain/pyramid_file.h).
void RepairHeaderCrc(std::vector<std::uint8_t>& file) {
    if (file.size() < kNameAt) return;
    std::size_t crcAt = HeaderCrcAt(file);
    if (crcAt + 4 > file.size()) return;
    std::uint32_t crc = Crc32(file.data(), crcAt);
    std::memcpy(&file[crcAt], &crc, 4);
}

// Recomputes every index entry's tile crc32 (over the bytes the entry says) whose tile lies
// inside the file.
void RepairTileCrcs(std::vector<std::uint8_t>& file) {
    if (file.size() < kNameAt) return;
    for (std::size_t entry = HeaderCrcAt(file) + 4; entry + kIndexEntryBytes <= file.size();
         entry += kIndexEntryBytes) {
        std::uint64_t offset;
        std::memcpy(&offset, &file[entry + 8], 8);
        std::uint32_t tileBytes = LoadU32(file, entry + 16);  // the entry's own size
        if (offset > file.size() || file.size() - offset < tileBytes) break;
        std::uint32_t crc = Crc32(&file[offset], tileBytes);
        std::memcpy(&file[entry + 20], &crc, 4);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    std::vector<std::uint8_t> file(data + 1, data + size);
    if (data[0] & 1) RepairHeaderCrc(file);
    if (data[0] & 2) RepairTileCrcs(file);
    std::string path = bfv::fuzz::WriteFuzzInput(file.data(), file.size(), "input.bfvp");
    auto pyramid = bfv::terrain::PyramidFile::Open(path);
    if (!pyramid) return 0;
    for (int index = 0; index < pyramid->TileCount(); ++index) {
        (void)pyramid->ReadTile(pyramid->KeyAt(index));
    }
    (void)pyramid->ReadTile({pyramid->Info().storedLevels, 0, 0});  // not stored: an Error
    (void)pyramid->VerifyAllTiles();
    return 0;
}
