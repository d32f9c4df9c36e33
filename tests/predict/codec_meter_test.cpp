#include "predict/codec_meter.h"

#include <gtest/gtest.h>

#include "common/messages.h"

namespace bfv::predict {
namespace {

TEST(CodecMeter, MeasuresRatioAndCpuOfEveryCodec) {
    CodecMeter meter;
    EXPECT_TRUE(meter.Costs().empty()) << "nothing measured yet";
    int width = 64, height = 90;
    std::vector<common::Pixel> image;
    for (int x = 0; x < width; ++x) {
        for (int y = 0; y < height; ++y) {
            // Sky in the top half, a smooth ramp of shade below: what frames look like.
            image.push_back(y < 45 ? common::Pixel{2, 255}
                                   : common::Pixel{40, static_cast<std::uint8_t>(100 + y)});
        }
    }
    for (int f = 0; f < 3; ++f) meter.Measure(image, width, height, 16);
    std::vector<CodecCost> costs = meter.Costs();
    ASSERT_EQ(costs.size(), 2u);
    EXPECT_EQ(costs[0].codec, common::ColumnCodec::Lz4);
    EXPECT_EQ(costs[1].codec, common::ColumnCodec::Zstd);
    for (const CodecCost& c : costs) {
        // The ratio is the pipeline's own: the image's pixel bytes over the payloads that
        // EncodeColumns makes of its four messages of 16 columns.
        double wireBytes = 0.0;
        for (int first = 0; first < width; first += 16) {
            common::ColumnsHeader header;
            header.nColumns = 16;
            header.heightPx = static_cast<std::uint32_t>(height);
            std::vector<std::byte> message;
            common::EncodeColumns(header, std::span(image).subspan(first * height, 16 * height),
                                  c.codec, message);
            wireBytes += static_cast<double>(message.size() - sizeof(header));
        }
        EXPECT_DOUBLE_EQ(c.compressionRatio, width * height * sizeof(common::Pixel) / wireBytes)
            << common::ToString(c.codec);
        EXPECT_GT(c.compressionRatio, 4.0) << common::ToString(c.codec);
        EXPECT_GT(c.compressCpuSPerRawByte, 0.0) << "compressing took CPU";
        EXPECT_GE(c.decompressCpuSPerRawByte, 0.0);
    }
}

}  // namespace
}  // namespace bfv::predict
