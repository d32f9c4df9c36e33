#include "common/json_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

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

namespace {

// The Levenshtein distance between `a` and `b`, ignoring case: the fewest single-character
// insertions, deletions and substitutions that turn one into the other (Wagner-Fischer, one
// row at a time).
std::size_t EditDistance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
            std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = row[j];
            row[j] = next;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string ClosestKey(std::string_view key, std::initializer_list<std::string_view> keys) {
    std::string_view best;
    std::size_t bestDistance = std::max<std::size_t>(2, key.size() / 2) + 1;
    for (std::string_view candidate : keys) {
        std::size_t distance = EditDistance(key, candidate);
        if (distance < bestDistance) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return std::string(best);
}

Expected<void> JsonKnownKeys(const nlohmann::json& object, std::string_view where,
                             std::initializer_list<std::string_view> keys) {
    if (!object.is_object()) return {};
    for (const auto& item : object.items()) {
        if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
        std::string known;
        for (std::string_view key : keys) known += (known.empty() ? "" : ", ") + std::string(key);
        std::string closest = ClosestKey(item.key(), keys);
        std::string meant = closest.empty() ? "" : " (did you mean \"" + closest + "\"?)";
        return Error{std::string(where) + " has an unknown key \"" + item.key() + "\"" + meant +
                     "; the keys are: " + known};
    }
    return {};
}

}  // namespace bfv::common
