#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "common/ranges.h"

namespace bfv::common {

/// Reads and parses the JSON file at `path`. Errors name what the file is meant to be:
/// "<what> 'PATH': cannot open it" or "<what> 'PATH': not valid JSON".
Expected<nlohmann::json> ReadJsonFile(const std::string& path, const std::string& what);

/// `value` as a number within `range`, named `field` in errors: "<field> must be a number", or
/// CheckRange's "<field> must be > 0 and <= 1000, got -3". (JSON has no NaN or infinity, and
/// ReadJsonFile refuses a number too large for a double, 1e999, as not valid JSON; a parsed
/// document may still hold them.)
Expected<double> JsonNumberIn(const nlohmann::json& value, std::string_view field,
                              const Range& range);

/// `value` as a whole number within `range` (which must lie within int's), named `field` in
/// errors: "<field> must be a whole number", or CheckRange's message.
Expected<int> JsonIntegerIn(const nlohmann::json& value, std::string_view field,
                            const Range& range);

/// The one of `keys` nearest `key` by edit distance (ignoring case) when it is near enough to be
/// a slip, at most max(2, half the key's length) edits away ("speedMph" -> "speedMPerS");
/// else "".
std::string ClosestKey(std::string_view key, std::initializer_list<std::string_view> keys);

/// Success when every key of `object` is one of `keys` (or `object` is no JSON object); else
/// "<where> has an unknown key \"speedMph\" (did you mean \"speedMPerS\"?); the keys are:
/// waypoints, loop, ..." naming the first other key and, when there is one, its ClosestKey.
Expected<void> JsonKnownKeys(const nlohmann::json& object, std::string_view where,
                             std::initializer_list<std::string_view> keys);

}  // namespace bfv::common
