#include "common/ranges.h"

#include <fmt/format.h>

#include <cmath>

namespace bfv::common {

bool Range::Contains(double value) const {
    if (!std::isfinite(value)) return false;
    bool aboveMin = minIncluded ? value >= min : value > min;
    bool belowMax = maxIncluded ? value <= max : value < max;
    return aboveMin && belowMax;
}

std::string Range::Describe() const {
    std::string lower =
        std::isfinite(min) ? fmt::format("{} {}", minIncluded ? ">=" : ">", min) : "";
    std::string upper =
        std::isfinite(max) ? fmt::format("{} {}", maxIncluded ? "<=" : "<", max) : "";
    std::string bounds = lower.empty()   ? (upper.empty() ? "finite" : upper)
                         : upper.empty() ? lower
                                         : lower + " and " + upper;
    return unit.empty() ? bounds : bounds + " " + std::string(unit);
}

Expected<void> CheckRange(std::string_view name, double value, const Range& range) {
    if (range.Contains(value)) return {};
    return Error{fmt::format("{} must be {}, got {}", name, range.Describe(), value)};
}

}  // namespace bfv::common
