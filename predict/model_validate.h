#pragma once

// Input checks shared by the predictor's model files (predict/model_*.h): each returns an
// Error whose message names the offending field, "<context>: <field> must be ..., got <value>"
// (common::CheckRange's wording).

#include <initializer_list>
#include <string_view>

#include "common/expected.h"

namespace bfv::predict {

/// Ok when value is finite and > 0; otherwise "<context>: <field> must be > 0, got <v>".
Expected<void> RequirePositive(std::string_view context, std::string_view field, double value);

/// Ok when value is finite and >= 0; otherwise "... must be >= 0, got <v>".
Expected<void> RequireNonNegative(std::string_view context, std::string_view field, double value);

/// Ok when value is in [0, 1]; otherwise "<context>: <field> must be >= 0 and <= 1, got <v>".
Expected<void> RequireFraction(std::string_view context, std::string_view field, double value);

/// Ok when value >= minimum; otherwise "<context>: <field> must be >= <min>, got <v>".
Expected<void> RequireAtLeast(std::string_view context, std::string_view field, int value,
                              int minimum);

/// The first failed check of a list, or ok: FirstError({RequirePositive(...), ...}). Every
/// check is evaluated; only the first error is kept.
Expected<void> FirstError(std::initializer_list<Expected<void>> checks);

}  // namespace bfv::predict
