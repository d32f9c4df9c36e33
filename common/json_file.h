#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/expected.h"

namespace bfv::common {

/// Reads and parses the JSON file at `path`. Errors name what the file is meant to be:
/// "<what> 'PATH': cannot open it" or "<what> 'PATH': not valid JSON".
Expected<nlohmann::json> ReadJsonFile(const std::string& path, const std::string& what);

}  // namespace bfv::common
