// libFuzzer harness: the tile stream a ray tracer receives from the terrain server, cut into
// messages of a size the input chooses and applied to a tile cache (terrain::TileStreamReader,
// raytracer::ApplyTileStream), and the same bytes as --sequential's in-process stream
// (raytracer::ApplyLocalStream). A corrupt stream must be an Error, never a crash.
//
// Input: 2 bytes of message size (1 + value % 16384, little-endian), then the stream.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "raytracer/tile_cache.h"
#include "terrain/tile_stream.h"
#include "tests/pyramid_fixture.h"

namespace {

using bfv::raytracer::TileCache;

// A cache of the test pyramid (4 levels) with its root tile pinned, as a tracer starts.
TileCache StartingCache() {
    static const bfv::terrain::Pyramid pyramid = bfv::test_support::MakeTestPyramid(1, 4);
    TileCache cache(pyramid.info);
    cache.Insert(pyramid.tiles[0], true, 0);
    return cache;
}

// Feeds `stream` in messages of `messageBytes` and applies every record, as the tracer rank
// does between frames; stops at the end of the stream or an Error.
void ApplyInMessages(std::span<const std::byte> stream, std::size_t messageBytes) {
    TileCache cache = StartingCache();
    bfv::terrain::TileStreamReader reader;
    bfv::raytracer::StreamProgress progress;
    for (std::size_t at = 0; at < stream.size() && !progress.endOfStream; at += messageBytes) {
        reader.Feed(stream.subspan(at, std::min(messageBytes, stream.size() - at)));
        do {  // ApplyTileStream stops at each frame-ready record: go on past it
            progress.lastFrameReady = -1;
            if (!bfv::raytracer::ApplyTileStream(reader, cache, 2, progress)) return;
            cache.AdvanceFrame();
        } while (progress.lastFrameReady != -1 && !progress.endOfStream);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    std::size_t messageBytes = 1 + (data[0] | data[1] << 8) % 16384;
    auto stream = std::as_bytes(std::span(data + 2, size - 2));
    ApplyInMessages(stream, messageBytes);
    TileCache cache = StartingCache();
    (void)bfv::raytracer::ApplyLocalStream(stream, cache, 2);
    return 0;
}
