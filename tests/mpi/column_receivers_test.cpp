#include "display/column_receivers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

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
    return {static_cast<std::uint8_t>(index % 256), static_cast<std::uint8_t>(x % 5 * 50),
            static_cast<std::uint8_t>(y % 3)};
}

// Every tracer's columns under the options' (static) decomposition.
std::vector<common::ColumnSet> StaticSplit(const common::Group& group,
                                           const common::RenderOptions& options) {
    std::vector<common::ColumnSet> columns;
    for (int t = 0; t < group.tracerCount(); ++t) {
        columns.push_back(common::ColumnsOf(options.pipeline.decomposition, t, group.tracerCount(),
                                            options.view.screen.widthPx));
    }
    return columns;
}

// The trace time tracer `tracer` reports for frame `frame`, microseconds (its tiles' time: half).
std::uint32_t TraceUs(int tracer, std::uint32_t frame) {
    return static_cast<std::uint32_t>(1000 * (tracer + 1) + frame);
}

// A tracer's side: `columns` of frame `frame` (labelled `label`), in messages of
// options.pipeline.columnsPerMessage, each counting its columns as coarser samples and twice
// that as terrain samples.
void SendColumns(const common::Group& group, const common::RenderOptions& options,
                 const common::ColumnSet& columns, std::uint32_t frame, std::uint32_t label) {
    int h = options.view.screen.heightPx;
    int n = common::MessagesPerFrame(columns, options.pipeline.columnsPerMessage);
    std::vector<std::vector<std::byte>> buffers(n);  // owned until the sends complete below
    std::vector<MPI_Request> requests(n, MPI_REQUEST_NULL);
    for (int m = 0; m < n; ++m) {
        int first = m * options.pipeline.columnsPerMessage;
        int count = std::min(options.pipeline.columnsPerMessage, columns.count - first);
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
        header.terrainSamples = static_cast<std::uint32_t>(2 * count);
        header.traceUs = TraceUs(group.tracerIndex(), frame);
        header.tileReceiveUs = TraceUs(group.tracerIndex(), frame) / 2;
        common::EncodeColumns(header, pixels, options.pipeline.columnCodec, buffers[m]);
        BFV_MPI_CHECK(MPI_Isend(buffers[m].data(), static_cast<int>(buffers[m].size()), MPI_BYTE,
                                group.displayRank(), common::tags::kColumns, group.comm,
                                &requests[m]));
    }
    common::WaitAllYielding(n, requests.data());
}

common::RenderOptions Options(common::Decomposition decomposition, int receiveThreads,
                              int columnsPerMessage) {
    common::RenderOptions options;
    options.view.screen.widthPx = 37;  // shares unevenly among 1 or 2 tracers and K threads
    options.view.screen.heightPx = 11;
    options.pipeline.decomposition = decomposition;
    options.pipeline.receiveThreads = receiveThreads;
    options.pipeline.columnsPerMessage = columnsPerMessage;
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
    options.pipeline.columnCodec = codec;
    std::vector<common::ColumnSet> split = StaticSplit(group, options);
    if (group.role() == common::Role::RayTracer) {
        for (std::uint32_t f = 0; f < 2; ++f)
            SendColumns(group, options, split[group.tracerIndex()], f, f);
        return;
    }
    if (group.role() != common::Role::Display) return;
    ColumnReceivers receivers(group, options);
    Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    for (std::uint32_t f = 0; f < 2; ++f) {
        auto ok = receivers.Receive(f, split, image);
        ASSERT_TRUE(ok.ok()) << ok.error().message;
        for (int x = 0; x < image.WidthPx(); ++x) {
            for (int y = 0; y < image.HeightPx(); ++y) {
                ASSERT_EQ(image.Column(x)[y], Expected(x, y, f)) << x << "," << y;
            }
        }
        EXPECT_EQ(receivers.Samples().coarser,
                  static_cast<std::uint64_t>(options.view.screen.widthPx));
        EXPECT_EQ(receivers.Samples().terrain,
                  static_cast<std::uint64_t>(2 * options.view.screen.widthPx));
    }
    common::ActivityStats received = receivers.Stats().Get(common::Activity::Receive);
    EXPECT_GT(received.messages, 0.0);
    double rawBytes =
        2.0 * options.view.screen.widthPx * options.view.screen.heightPx * sizeof(common::Pixel) +
        received.messages * sizeof(common::ColumnsHeader);
    EXPECT_EQ(receivers.RawBytes(), rawBytes);
    if (options.pipeline.columnCodec == common::ColumnCodec::None) {
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

// A split of the 37 columns that moves every frame, as --decomposition dynamic's does.
std::vector<int> MovingSplit(int nTracers, std::uint32_t frame) {
    std::vector<int> boundariesPx = common::ContiguousBoundaries(nTracers, 37);
    if (nTracers > 1) boundariesPx[1] = 3 + 7 * static_cast<int>(frame);
    return boundariesPx;
}

std::vector<common::ColumnSet> SlicesOf(const std::vector<int>& boundariesPx) {
    std::vector<common::ColumnSet> columns;
    for (size_t t = 0; t + 1 < boundariesPx.size(); ++t)
        columns.push_back(common::SliceOf(boundariesPx, static_cast<int>(t)));
    return columns;
}

// A split that changes every frame: each frame's columns (and message count per tracer) follow
// its own split, and every tracer's trace time of the frame arrives with them.
TEST_P(ColumnReceive, FollowsASplitThatChangesEveryFrame) {
    const common::Group& group = World();
    auto [decomposition, threads, columnsPerMessage, codec] = GetParam();
    if (decomposition != common::Decomposition::Contiguous) GTEST_SKIP();
    common::RenderOptions options =
        Options(common::Decomposition::Dynamic, threads, columnsPerMessage);
    options.pipeline.columnCodec = codec;
    constexpr std::uint32_t kFrames = 3;
    if (group.role() == common::Role::RayTracer) {
        for (std::uint32_t f = 0; f < kFrames; ++f) {
            auto split = SlicesOf(MovingSplit(group.tracerCount(), f));
            SendColumns(group, options, split[group.tracerIndex()], f, f);
        }
        return;
    }
    if (group.role() != common::Role::Display) return;
    ColumnReceivers receivers(group, options);
    Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    for (std::uint32_t f = 0; f < kFrames; ++f) {
        auto ok = receivers.Receive(f, SlicesOf(MovingSplit(group.tracerCount(), f)), image);
        ASSERT_TRUE(ok.ok()) << ok.error().message;
        for (int x = 0; x < image.WidthPx(); ++x) {
            ASSERT_EQ(image.Column(x)[0], Expected(x, 0, f)) << x;
        }
        ASSERT_EQ(receivers.TraceTimesS().size(), static_cast<size_t>(group.tracerCount()));
        ASSERT_EQ(receivers.TileReceiveTimesS().size(), receivers.TraceTimesS().size());
        for (int t = 0; t < group.tracerCount(); ++t) {
            EXPECT_DOUBLE_EQ(receivers.TraceTimesS()[t], TraceUs(t, f) * 1e-6);
            EXPECT_DOUBLE_EQ(receivers.TileReceiveTimesS()[t], TraceUs(t, f) / 2 * 1e-6);
        }
    }
}

// A tracer that sends other columns than the display's split gives it is an error saying
// that the two disagree, after every message of the frame has been taken; with K = 2, from
// whichever thread took the message (tools/run-tsan-tests.sh runs it under ThreadSanitizer).
class ColumnsRefused : public testing::TestWithParam<int> {};

TEST_P(ColumnsRefused, ColumnsOutsideTheSplitAreRefused) {
    const common::Group& group = World();
    if (group.tracerCount() < 2) GTEST_SKIP() << "one tracer has only one split";
    common::RenderOptions options = Options(common::Decomposition::Dynamic, GetParam(), 64);
    std::vector<int> sent = common::ContiguousBoundaries(group.tracerCount(), 37);
    if (group.role() == common::Role::RayTracer) {
        SendColumns(group, options, SlicesOf(sent)[group.tracerIndex()], 0, 0);
        return;
    }
    if (group.role() != common::Role::Display) return;
    std::vector<int> expected = sent;
    expected[1] += 1;  // one message per tracer either way (64 columns per message)
    ColumnReceivers receivers(group, options);
    Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    auto ok = receivers.Receive(0, SlicesOf(expected), image);
    ASSERT_FALSE(ok.ok());
    EXPECT_NE(ok.error().message.find("disagree on the split"), std::string::npos)
        << ok.error().message;
}

// Columns labelled with another frame are an error naming both frames, after every message
// of the frame has been taken (so no tracer is left waiting).
TEST_P(ColumnsRefused, ColumnsOfAnotherFrameAreRefused) {
    const common::Group& group = World();
    common::RenderOptions options = Options(common::Decomposition::Contiguous, GetParam(), 8);
    std::vector<common::ColumnSet> split = StaticSplit(group, options);
    if (group.role() == common::Role::RayTracer) {
        SendColumns(group, options, split[group.tracerIndex()], 0, 7);
        return;
    }
    if (group.role() != common::Role::Display) return;
    ColumnReceivers receivers(group, options);
    Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    auto ok = receivers.Receive(0, split, image);
    ASSERT_FALSE(ok.ok());
    EXPECT_NE(ok.error().message.find("columns of frame 7 arrived while assembling frame 0"),
              std::string::npos)
        << ok.error().message;
}

INSTANTIATE_TEST_SUITE_P(ReceiveThreads, ColumnsRefused, testing::Values(1, 2));

// While the display waits for late columns (every tracer sends 0.3 s late), Receive calls the
// keep-alive from the waiting thread every keepAliveS and still assembles the frame; a failing
// keep-alive is not called again, and its error is Receive's once the columns are in.
class ColumnsKeepAlive : public testing::TestWithParam<int> {};

TEST_P(ColumnsKeepAlive, LateColumnsAreWaitedForWithHeartbeats) {
    const common::Group& group = World();
    common::RenderOptions options = Options(common::Decomposition::Contiguous, GetParam(), 8);
    std::vector<common::ColumnSet> split = StaticSplit(group, options);
    if (group.role() == common::Role::RayTracer) {
        for (std::uint32_t f = 0; f < 2; ++f) {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            SendColumns(group, options, split[group.tracerIndex()], f, f);
        }
        return;
    }
    if (group.role() != common::Role::Display) return;
    ColumnReceivers receivers(group, options);
    Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    int calls = 0;
    auto alive = [&]() -> bfv::Expected<void> {
        ++calls;
        return {};
    };
    auto ok = receivers.Receive(0, split, image, alive, 0.05);
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_GE(calls, 1);
    for (int x = 0; x < image.WidthPx(); ++x) ASSERT_EQ(image.Column(x)[3], Expected(x, 3, 0));
    calls = 0;
    auto failing = [&]() -> bfv::Expected<void> {
        ++calls;
        return Error{"a rank did not take the heartbeat"};
    };
    ok = receivers.Receive(1, split, image, failing, 0.05);
    ASSERT_FALSE(ok.ok());
    EXPECT_EQ(ok.error().message, "a rank did not take the heartbeat");
    EXPECT_EQ(calls, 1);
    for (int x = 0; x < image.WidthPx(); ++x) ASSERT_EQ(image.Column(x)[3], Expected(x, 3, 1));
}

INSTANTIATE_TEST_SUITE_P(ReceiveThreads, ColumnsKeepAlive, testing::Values(1, 2));

}  // namespace
}  // namespace bfv::display
