#include "common/json_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace bfv::common {

Expected<nlohmann::json> ReadJsonFile(const std::string& path, const std::string& what) {
    std::ifstream in(path);
    if (!in) return Error{what + " '" + path + "': cannot open it"};
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) return Error{what + " '" + path + "': not valid JSON"};
    return doc;
}

Expected<double> JsonNumberIn(const nlohmann::json& value, std::string_view field,
                              const Range& range) {
    if (!value.is_number()) return Error{std::string(field) + " must be a number"};
    if (auto ok = CheckRange(field, value.get<double>(), range); !ok) return ok.error();
    return value.get<double>();
}

Expected<int> JsonIntegerIn(const nlohmann::json& value, std::string_view field,
                            const Range& range) {
    auto number = JsonNumberIn(value, field, range);
    if (!number) return number.error();
    if (*number != std::floor(*number)) {
        return Error{std::string(field) + " must be a whole number, got " + value.dump()};
    }
    return static_cast<int>(*number);
}

Expected<void> JsonKnownKeys(const nlohmann::json& object, std::string_view where,
                             std::initializer_list<std::string_view> keys) {
    for (const auto& item : object.items()) {
        if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
        std::string known;
        for (std::string_view key : keys) known += (known.empty() ? "" : ", ") + std::string(key);
        return Error{std::string(where) + " has an unknown key \"" + item.key() +
                     "\"; the keys are: " + known};
    }
    return {};
}

}  // namespace bfv::common
