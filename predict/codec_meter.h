#pragma once

#include <array>
#include <span>
#include <vector>

#include "common/pixel.h"
#include "predict/model_cluster.h"

namespace bfv::predict {

/// Measures what each column codec would save and cost on the frames a `bfv render
/// --sequential --profile` run renders: the profile's CodecCost entries, which `bfv predict`
/// charges to the tracers, the link and the display (--column-codec).
class CodecMeter {
  public:
    /// Encodes `image` (widthPx columns of heightPx pixels, column after column) into messages
    /// of `columnsPerMessage` columns with every codec, as a tracer does (EncodeColumns), and
    /// takes them in again, as the display does (ColumnsPayload), timing each side on the
    /// calling thread's CPU.
    void Measure(std::span<const common::Pixel> image, int widthPx, int heightPx,
                 int columnsPerMessage);

    /// Ratio and CPU per raw byte of every compressing codec; empty before any Measure.
    std::vector<CodecCost> Costs() const;

  private:
    struct Tally {
        double rawBytes = 0.0;   // pixel bytes
        double wireBytes = 0.0;  // payload bytes on the wire
        double compressCpuS = 0.0;
        double decompressCpuS = 0.0;
    };
    static constexpr std::array<common::ColumnCodec, 2> kMeasured = {common::ColumnCodec::Lz4,
                                                                     common::ColumnCodec::Zstd};
    std::array<Tally, kMeasured.size()> tallies_{};
};

}  // namespace bfv::predict
