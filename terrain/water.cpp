#include "terrain/water.h"

namespace bfv::terrain {

double WaterLevelM(std::optional<double> seaLevelM, bool water, const PyramidInfo& info) {
    if (!water) return kNoWaterM;
    if (seaLevelM) return *seaLevelM;
    return info.minHeightM < 0.0f ? 0.0 : kNoWaterM;
}

}  // namespace bfv::terrain
