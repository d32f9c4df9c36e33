#include "predict/codec_meter.h"

#include <algorithm>

#include "common/check.h"
#include "common/instrument.h"
#include "common/messages.h"

namespace bfv::predict {

void CodecMeter::Measure(std::span<const common::Pixel> image, int widthPx, int heightPx,
                         int columnsPerMessage) {
    BFV_CHECK_EQ(image.size(), static_cast<std::size_t>(widthPx) * heightPx);
    std::vector<std::vector<std::byte>> messages;
    std::vector<std::byte> scratch;
    for (std::size_t c = 0; c < kMeasured.size(); ++c) {
        Tally& tally = tallies_[c];
        double startS = common::ThreadCpuS();
        messages.clear();
        for (int first = 0; first < widthPx; first += columnsPerMessage) {
            common::ColumnsHeader header;
            header.firstColumn = static_cast<std::uint32_t>(first);
            header.nColumns =
                static_cast<std::uint32_t>(std::min(columnsPerMessage, widthPx - first));
            header.heightPx = static_cast<std::uint32_t>(heightPx);
            auto pixels = image.subspan(static_cast<std::size_t>(first) * heightPx,
                                        static_cast<std::size_t>(header.nColumns) * heightPx);
            common::EncodeColumns(header, pixels, kMeasured[c], messages.emplace_back());
            tally.rawBytes += static_cast<double>(pixels.size_bytes());
            tally.wireBytes += static_cast<double>(messages.back().size() - sizeof(header));
        }
        double encodedS = common::ThreadCpuS();
        for (const std::vector<std::byte>& message : messages) {
            auto header = common::DecodeColumns(message, widthPx, heightPx);
            BFV_CHECK(header.ok());
            BFV_CHECK(common::ColumnsPayload(message, *header, scratch).ok());
        }
        tally.compressCpuS += encodedS - startS;
        tally.decompressCpuS += common::ThreadCpuS() - encodedS;
    }
}

std::vector<CodecCost> CodecMeter::Costs() const {
    std::vector<CodecCost> costs;
    for (std::size_t c = 0; c < kMeasured.size(); ++c) {
        const Tally& t = tallies_[c];
        if (!(t.rawBytes > 0.0)) continue;
        costs.push_back({kMeasured[c], t.rawBytes / t.wireBytes, t.compressCpuS / t.rawBytes,
                         t.decompressCpuS / t.rawBytes});
    }
    return costs;
}

}  // namespace bfv::predict
