#include "predict/model_validate.h"

#include <fmt/format.h>

#include "common/ranges.h"

namespace bfv::predict {

namespace {

Expected<void> Require(std::string_view context, std::string_view field, double value,
                       const common::Range& range) {
    return common::CheckRange(fmt::format("{}: {}", context, field), value, range);
}

}  // namespace

Expected<void> RequirePositive(std::string_view context, std::string_view field, double value) {
    return Require(context, field, value, common::Range::Positive());
}

Expected<void> RequireNonNegative(std::string_view context, std::string_view field, double value) {
    return Require(context, field, value, common::Range::NonNegative());
}

Expected<void> RequireFraction(std::string_view context, std::string_view field, double value) {
    return Require(context, field, value, common::Range::Closed(0.0, 1.0));
}

Expected<void> RequireAtLeast(std::string_view context, std::string_view field, int value,
                              int minimum) {
    return Require(context, field, value, common::Range::AtLeast(minimum));
}

Expected<void> FirstError(std::initializer_list<Expected<void>> checks) {
    for (const Expected<void>& check : checks) {
        if (!check) return check;
    }
    return {};
}

}  // namespace bfv::predict
