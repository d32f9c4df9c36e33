// Writes the binary seeds of fuzz/corpus/ from bfv's own writers, so that every seed is an input
// bfv makes or accepts: `bfv_write_seed_corpus fuzz/corpus` (the JSON seeds are copies of the
// README's examples and of real `bfv render --profile` / link profile output, kept by hand).

#include <gdal_priv.h>
#include <zip.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/messages.h"
#include "terrain/pyramid_file.h"
#include "terrain/tile_stream.h"
#include "tests/npy_image.h"
#include "tests/pyramid_fixture.h"

namespace {

namespace fs = std::filesystem;
using namespace bfv;
using test_support::Npy;
using test_support::RawBytes;

void WriteBytes(const fs::path& path, const std::vector<std::byte>& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
}

// A little-endian u16 prefix (a harness parameter) followed by `rest`.
std::vector<std::byte> WithU16(std::uint16_t value, std::vector<std::byte> rest) {
    rest.insert(rest.begin(), {std::byte(value & 0xFF), std::byte(value >> 8)});
    return rest;
}

// `pyramid` draped with imagery: a palette of 256 colours, and every tile's indices into it.
terrain::Pyramid Draped(terrain::Pyramid pyramid) {
    pyramid.info.drapedLevels = pyramid.info.storedLevels;
    for (int c = 0; c < terrain::kMaxPaletteColours; ++c) {
        pyramid.info.landColours.push_back({std::uint8_t(c), 120, std::uint8_t(255 - c)});
    }
    for (terrain::TilePosts& tile : pyramid.tiles) {
        tile.materials.resize(terrain::kTilePostCount);
        for (int k = 0; k < terrain::kTilePostCount; ++k) tile.materials[k] = std::uint8_t(k % 224);
    }
    return pyramid;
}

// `pyramid` draped with imagery one level finer than its stored levels: that level's tiles hold
// materials only.
terrain::Pyramid FinelyDraped(const terrain::Pyramid& pyramid) {
    terrain::Pyramid draped = Draped(pyramid);
    int level = draped.info.storedLevels, perSide = 1 << level;
    draped.info.drapedLevels = level + 1;
    for (int t = 0; t < perSide * perSide; ++t) {
        terrain::TilePosts tile{{level, t % perSide, t / perSide}, {}};
        tile.materials.assign(terrain::kTilePostCount, std::uint8_t(40 * t));
        draped.tiles.push_back(std::move(tile));
    }
    return draped;
}

// The test pyramid's root tile as a file, undraped (version 1), draped (version 3) and draped
// a level finer, behind the harness's flags byte: as written (0) and with its checksums to be
// recomputed (3).
void WritePyramidSeeds(const fs::path& dir) {
    fs::create_directories(dir);
    for (const char* kind : {"one_level", "draped", "draped_fine"}) {
        fs::path written = dir / "one_level.bfvp";
        terrain::Pyramid pyramid = test_support::MakeTestPyramid(1, 4);
        std::string k = kind;
        auto ok =
            terrain::WritePyramidFile(written.string(), k == "one_level" ? pyramid
                                                        : k == "draped"  ? Draped(pyramid)
                                                                         : FinelyDraped(pyramid));
        if (!ok) std::fprintf(stderr, "%s\n", ok.error().message.c_str());
        std::ifstream in(written, std::ios::binary);
        std::vector<std::byte> file(fs::file_size(written));
        in.read(reinterpret_cast<char*>(file.data()), static_cast<std::streamsize>(file.size()));
        fs::remove(written);
        for (std::uint8_t flags : {0, 3}) {
            std::vector<std::byte> seed{std::byte(flags)};
            seed.insert(seed.end(), file.begin(), file.end());
            WriteBytes(dir / (k + "_flags" + std::to_string(flags)), seed);
        }
    }
}

void WriteTileStreamSeeds(const fs::path& dir) {
    terrain::Pyramid pyramid = test_support::MakeTestPyramid(2, 4);
    std::vector<std::byte> stream;
    terrain::AppendTileRecord(pyramid.tiles[3], stream);
    terrain::AppendFrameReadyRecord(7, stream);
    terrain::AppendEvictRecord(pyramid.tiles[3].key, stream);
    terrain::AppendEndOfStreamRecord(stream);
    WriteBytes(dir / "tile_frame_evict_end", WithU16(4095, stream));  // messages of 4096 bytes
    std::vector<std::byte> small;
    terrain::AppendEvictRecord({3, 5, 6}, small);
    terrain::AppendFrameReadyRecord(1, small);
    terrain::AppendEndOfStreamRecord(small);
    WriteBytes(dir / "evict_frame_end", WithU16(6, small));  // messages of 7 bytes
    std::vector<std::byte> draped;
    terrain::AppendTileRecord(Draped(pyramid).tiles[2], draped);
    terrain::AppendEndOfStreamRecord(draped);
    WriteBytes(dir / "draped_tile_end", WithU16(999, draped));  // messages of 1000 bytes
}

// A 16 x 8 screen's columns 1, 4, 7, 10 (stride 3) with each codec: sky rows over a ramp.
void WriteColumnsSeeds(const fs::path& dir) {
    constexpr int kWidth = 16, kHeight = 8, kColumns = 4;
    std::vector<common::Pixel> pixels;
    for (int k = 0; k < kColumns * kHeight; ++k) {
        int row = k % kHeight;
        pixels.push_back(row < 3 ? common::Pixel{1, 200}
                                 : common::Pixel{40, std::uint8_t(row * 9)});
    }
    common::ColumnsHeader header;
    header.frame = 12;
    header.firstColumn = 1;
    header.columnStride = 3;
    header.nColumns = kColumns;
    header.heightPx = kHeight;
    header.traceUs = 1500;
    for (common::ColumnCodec codec : common::kColumnCodecs) {
        std::vector<std::byte> message;
        common::EncodeColumns(header, pixels, codec, message);
        WriteBytes(dir / ("columns_" + common::ToString(codec)),
                   WithU16(kWidth - 1, WithU16(kHeight - 1, message)));
    }
}

std::vector<std::byte> CommandBytes(int nTracers, int widthPx, const common::FrameCommand& c) {
    std::vector<std::byte> bytes(sizeof(c));
    std::memcpy(bytes.data(), &c, sizeof(c));
    bytes = WithU16(static_cast<std::uint16_t>(widthPx - 1), bytes);
    bytes.insert(bytes.begin(), std::byte(nTracers - 1));
    return bytes;
}

void WriteFrameCommandSeeds(const fs::path& dir) {
    common::FrameCommand render =
        common::FrameCommand::Render(5, {{5000.0, 5000.0, 900.0}, 0.785, -0.35, 0.2});
    std::vector<int> boundaries{0, 30, 70, 100};
    render.SetSplit(boundaries);
    WriteBytes(dir / "render_split_3", CommandBytes(3, 100, render));
    common::FrameCommand quit;
    quit.kind = common::FrameCommand::kQuit;
    WriteBytes(dir / "quit", CommandBytes(1, 100, quit));
}

using NpyArrays = std::vector<std::pair<std::string, std::string>>;  // name, .npy image

/// Writes `arrays` as an .npz at `path`, stored (not deflated): the fuzzer sees the .npy bytes.
void WriteStoredNpz(const fs::path& path, const NpyArrays& arrays) {
    int error = 0;
    zip_t* archive = zip_open(path.string().c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    for (const auto& [name, image] : arrays) {
        zip_source_t* source = zip_source_buffer(archive, image.data(), image.size(), 0);
        zip_int64_t index = zip_file_add(archive, (name + ".npy").c_str(), source, 0);
        zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
    }
    zip_close(archive);
}

// A 2 x 3 int16 DEM with matplotlib's georeference scalars; and the same heights as `topo`
// with coordinate arrays like topobathy.npz's (0..360 longitudes, increasing latitudes).
void WriteNpzSeeds(const fs::path& dir) {
    fs::create_directories(dir);
    std::string heights = Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6}));
    WriteStoredNpz(dir / "small.npz", {{"xmin", Npy("<f8", "()", RawBytes(std::vector{-84.0}))},
                                       {"xmax", Npy("<f8", "()", RawBytes(std::vector{-83.5}))},
                                       {"ymin", Npy("<f8", "()", RawBytes(std::vector{37.0}))},
                                       {"ymax", Npy("<f8", "()", RawBytes(std::vector{36.5}))},
                                       {"elevation", heights}});
    WriteStoredNpz(dir / "coordinates.npz",
                   {{"topo", heights},
                    {"longitude", Npy("<f4", "(3,)", RawBytes<float>({234.0f, 234.1f, 234.2f}))},
                    {"latitude", Npy("<f4", "(2,)", RawBytes<float>({48.0f, 48.2f}))}});
}

// A 3 x 2 16-bit greyscale PNG (GDAL's PNG driver: stb_image_write has no 16-bit output).
void WritePngSeeds(const fs::path& dir) {
    fs::create_directories(dir);
    GDALAllRegister();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    GDALDriver* png = GetGDALDriverManager()->GetDriverByName("PNG");
    GDALDatasetUniquePtr image(mem->Create("", 3, 2, 1, GDT_UInt16, nullptr));
    std::vector<double> values{0, 1000, 65535, 1, 2, 3};
    (void)image->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 3, 2, values.data(), 3, 2, GDT_Float64,
                                            0, 0);
    GDALDatasetUniquePtr written(png->CreateCopy((dir / "island.png").string().c_str(), image.get(),
                                                 FALSE, nullptr, nullptr, nullptr));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bfv_write_seed_corpus CORPUS_DIR\n");
        return 2;
    }
    fs::path corpus = argv[1];
    WritePyramidSeeds(corpus / "pyramid_file");
    WriteTileStreamSeeds(corpus / "tile_stream");
    WriteColumnsSeeds(corpus / "columns_message");
    WriteFrameCommandSeeds(corpus / "frame_command");
    WriteNpzSeeds(corpus / "npz_import");
    WritePngSeeds(corpus / "png_import");
    return 0;
}
