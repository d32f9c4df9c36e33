#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace bfv::test_support {

/// The lines of `text`, without their newlines.
inline std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace bfv::test_support
