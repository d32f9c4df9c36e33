#include "display/column_receivers.h"

#include <gtest/gtest.h>

#include <tuple>

#include "common/decomposition.h"
#include "common/messages.h"
#include "common/mpi_wait.h"
#include "common/tags.h"
#include "tests/mpi/mpi_world.h"

namespace bfv::display {
namespace {

using test_support::World;

// The pixel every test expects at column x, row y of frame f: runs down the column, as sky
// and smooth terrain make them (so codecs have something to compress), rows told apart.
common::Pixel Expected(int x, int y, std::uint32_t f) {
    int index = y < 8 ? static_cast<int>(x * 7 + f) : y;
    return {static_cast<std::uint8_t>(index % 256), static_cast<std::uint8_t>(x % 5 * 50)};
}

// A tracer's side: its columns of frame `frame` (labelled `label`), in messages of
// options.columnsPerMessage, each counting its columns as coarser samples.
void SendColumns(const common::Group& group, const common::RenderOptions& options,
                 std::uint32_t frame, std::uint32_t label) {
    int h = options.screen.heightPx;
    common::ColumnSet columns = common::ColumnsOf(options.decomposition, group.tracerIndex(),
                                                  group.tracerCount(), options.screen.widthPx);
    int n = common::MessagesPerFrame(columns, options.columnsPerMessage);
    std::vector<std::vector<std::byte>> buffers(n);  // owned until the sends complete below
    std::vector<MPI_Request> requests(n, MPI_REQUEST_NULL);
    for (int m = 0; m < n; ++m) {
        int first = m * options.columnsPerMessage;
        int count = std::min(options.columnsPerMessage, columns.count - first);
        std::vector<common::Pixel> pixels;
        for (int k = first; k < first + count; ++k) {
            for (int y = 0; y < h; ++y) pixels.push_back(Expected(columns.At(k), y, frame));
        }
        common::ColumnsHeader header;
        header.frame = label;
        header.firstColumn = static_cast<std::uint32_t>(columns.At(first));
        header.columnStride = static_cast<std::uint32_t>(columns.stride);
        header.nColumns = static_cast<std::uint32_t>(count);
        header.heightPx = static_cast<std::uint32_t>(h);
        header.coarserSamples = static_cast<std::uint32_t>(count);
        common::EncodeColumns(header, pixels, options.columnCodec, buffers[m]);
        BFV_MPI_CHECK(MPI_Isend(buffers[m].data(), static_cast<int>(buffers[m].size()), MPI_BYTE,
                                group.displayRank(), common::tags::kColumns, group.comm,
                                &requests[m]));
    }
    common::WaitAllYielding(n, requests.data());
}

common::RenderOptions Options(common::Decomposition decomposition, int receiveThreads,
                              int columnsPerMessage) {
    common::RenderOptions options;
    options.screen.widthPx = 37;  // shares unevenly among 1 or 2 tracers and K threads
    options.screen.heightPx = 11;
    options.decomposition = decomposition;
    options.receiveThreads = receiveThreads;
    options.columnsPerMessage = columnsPerMessage;
    return options;
}

class ColumnReceive : public testing::TestWithParam<
                          std::tuple<common::Decomposition, int, int, common::ColumnCodec>> {};

// Two frames: every column lands where its header says, from every tracer, whatever the
// decomposition, the receive threads and the message size.
TEST_P(ColumnReceive, AssemblesEveryTracersColumns) {
    const common::Group& group = World();
    auto [decomposition, threads, columnsPerMessage, codec] = GetParam();
    common::RenderOptions options = Options(decomposition, threads, columnsPerMessage);
    options.columnCodec = codec;
    if (group.role() == common::Role::RayTracer) {
        for (std::uint32_t f = 0; f < 2; ++f) SendColumns(group, options, f, f);
        return;
    }
    if (group.role() != common::Role::Display) return;
    ColumnReceivers receivers(group, options);
    Frame image(options.screen.widthPx, options.screen.heightPx);
    for (std::uint32_t f = 0; f < 2; ++f) {
        auto ok = receivers.Receive(f, image);
        ASSERT_TRUE(ok.ok()) << ok.error().message;
        for (int x = 0; x < image.WidthPx(); ++x) {
            for (int y = 0; y < image.HeightPx(); ++y) {
                ASSERT_EQ(image.Column(x)[y].index, Expected(x, y, f).index) << x << "," << y;
                ASSERT_EQ(image.Column(x)[y].intensity, Expected(x, y, f).intensity)
                    << x << "," << y;
            }
        }
        EXPECT_EQ(receivers.CoarserSamples(), static_cast<std::uint64_t>(options.screen.widthPx));
    }
    common::ActivityStats received = receivers.Stats().Get(common::Activity::Receive);
    EXPECT_GT(received.messages, 0.0);
    double rawBytes =
        2.0 * options.screen.widthPx * options.screen.heightPx * sizeof(common::Pixel) +
        received.messages * sizeof(common::ColumnsHeader);
    EXPECT_EQ(receivers.RawBytes(), rawBytes);
    if (options.columnCodec == common::ColumnCodec::None) {
        EXPECT_EQ(received.bytes, rawBytes);
    } else {
        EXPECT_LT(received.bytes, rawBytes);
    }
}

INSTANTIATE_TEST_SUITE_P(DecompositionsThreadsMessageSizes, ColumnReceive,
                         testing::Combine(testing::Values(common::Decomposition::Contiguous,
                                                          common::Decomposition::Interleaved),
                                          testing::Values(1, 2), testing::Values(1, 5, 64),
                                          testing::Values(common::ColumnCodec::None)));

// Compressed columns arrive as they were rendered, and the raw bytes count what the link saved.
INSTANTIATE_TEST_SUITE_P(Codecs, ColumnReceive,
                         testing::Combine(testing::Values(common::Decomposition::Interleaved),
                                          testing::Values(2), testing::Values(64),
                                          testing::Values(common::ColumnCodec::Lz4,
                                                          common::ColumnCodec::Zstd)));

// Columns labelled with another frame are an error naming both frames, after every message
// of the frame has been taken (so no tracer is left waiting).
TEST(ColumnReceivers, ColumnsOfAnotherFrameAreRefused) {
    const common::Group& group = World();
    common::RenderOptions options = Options(common::Decomposition::Contiguous, 1, 8);
    if (group.role() == common::Role::RayTracer) {
        SendColumns(group, options, 0, 7);
        return;
    }
    if (group.role() != common::Role::Display) return;
    ColumnReceivers receivers(group, options);
    Frame image(options.screen.widthPx, options.screen.heightPx);
    auto ok = receivers.Receive(0, image);
    ASSERT_FALSE(ok.ok());
    EXPECT_NE(ok.error().message.find("columns of frame 7 arrived while assembling frame 0"),
              std::string::npos)
        << ok.error().message;
}

}  // namespace
}  // namespace bfv::display
