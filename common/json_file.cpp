#include "common/json_file.h"

#include <fstream>

namespace bfv::common {

Expected<nlohmann::json> ReadJsonFile(const std::string& path, const std::string& what) {
    std::ifstream in(path);
    if (!in) return Error{what + " '" + path + "': cannot open it"};
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) return Error{what + " '" + path + "': not valid JSON"};
    return doc;
}

}  // namespace bfv::common
