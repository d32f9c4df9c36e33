#pragma once

// Range checks of numbers that come from the user (options and files): one helper, so every
// refusal reads the same way, "<name> must be > 0 and <= 100000 m, got -2000".

#include <limits>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace bfv::common {

/// The values a number from the user may take: finite, and between `min` and `max`, each end
/// included or not. An infinite end leaves that side unbounded (the value must still be finite).
struct Range {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool minIncluded = true;
    bool maxIncluded = true;
    std::string_view unit;  // = "" // e.g. "m", "degrees", "columns": follows the bounds

    /// min <= value <= max (or <), both ends included.
    static constexpr Range Closed(double min, double max, std::string_view unit = {}) {
        return {min, max, true, true, unit};
    }
    /// min < value <= max: e.g. a positive size with an upper bound.
    static constexpr Range AboveUpTo(double min, double max, std::string_view unit = {}) {
        return {min, max, false, true, unit};
    }
    /// min < value < max.
    static constexpr Range Open(double min, double max, std::string_view unit = {}) {
        return {min, max, false, false, unit};
    }
    /// Any finite value >= min.
    static constexpr Range AtLeast(double min, std::string_view unit = {}) {
        return {min, std::numeric_limits<double>::infinity(), true, true, unit};
    }
    /// Any finite value > 0.
    static constexpr Range Positive(std::string_view unit = {}) {
        return {0.0, std::numeric_limits<double>::infinity(), false, true, unit};
    }
    /// Any finite value >= 0.
    static constexpr Range NonNegative(std::string_view unit = {}) {
        return {0.0, std::numeric_limits<double>::infinity(), true, true, unit};
    }

    /// True when `value` is finite and within the bounds.
    bool Contains(double value) const;
    /// The bounds in words, e.g. "> 0 and <= 100000 m", ">= 1", "> -90 and < 90 degrees".
    std::string Describe() const;
};

/// Ok when range.Contains(value); otherwise the Error "<name> must be <range>, got <value>"
/// (value printed exactly, e.g. "100000000", "-2000", "inf", "nan"). `name` says where the
/// value came from: an option ("--agl") or a file's field ("flight file 'f.json': pose 3
/// \"pitchDeg\"").
Expected<void> CheckRange(std::string_view name, double value, const Range& range);

}  // namespace bfv::common
