#include "predict/model_validate.h"

#include <fmt/format.h>

#include <cmath>

namespace bfv::predict {

Expected<void> RequirePositive(std::string_view context, std::string_view field, double value) {
    if (std::isfinite(value) && value > 0.0) return {};
    return Error{fmt::format("{}: {} must be positive, got {}", context, field, value)};
}

Expected<void> RequireNonNegative(std::string_view context, std::string_view field, double value) {
    if (std::isfinite(value) && value >= 0.0) return {};
    return Error{fmt::format("{}: {} must be zero or positive, got {}", context, field, value)};
}

Expected<void> RequireFraction(std::string_view context, std::string_view field, double value) {
    if (value >= 0.0 && value <= 1.0) return {};
    return Error{fmt::format("{}: {} must be in [0, 1], got {}", context, field, value)};
}

Expected<void> RequireAtLeast(std::string_view context, std::string_view field, int value,
                              int minimum) {
    if (value >= minimum) return {};
    return Error{fmt::format("{}: {} must be at least {}, got {}", context, field, minimum, value)};
}

Expected<void> FirstError(std::initializer_list<Expected<void>> checks) {
    for (const Expected<void>& check : checks) {
        if (!check) return check;
    }
    return {};
}

}  // namespace bfv::predict
