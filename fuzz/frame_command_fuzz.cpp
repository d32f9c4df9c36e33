// libFuzzer harness: a frame command as a ray tracer receives it, its column split checked
// against the job (common::FrameCommand::Split) and, when accepted, each tracer's slice taken
// (common::SliceOf). A damaged command must be an Error, never a crash; an accepted split must
// give every tracer at least one column, the slices covering the screen exactly.
//
// Input: 1 byte of ray tracers (1 + value), 2 of screen width (1 + value % 4096,
// little-endian), then the command's bytes (zero-padded to its size).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/decomposition.h"
#include "common/messages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace bfv::common;
    if (size < 3) return 0;
    int nTracers = 1 + data[0];
    int widthPx = 1 + (data[1] | data[2] << 8) % 4096;
    FrameCommand command;
    std::memset(&command, 0, sizeof(command));
    std::memcpy(&command, data + 3, std::min(size - 3, sizeof(command)));
    (void)command.Pose();
    auto split = command.Split(nTracers, widthPx);
    if (!split) return 0;
    int covered = 0;
    for (int t = 0; t < nTracers; ++t) {
        ColumnSet slice = SliceOf(*split, t);
        if (slice.count < 1 || slice.first != covered) std::abort();
        covered += slice.count;
    }
    if (covered != widthPx) std::abort();
    return 0;
}
