#pragma once

#include <string_view>

namespace bfv::display {

/// The page `bfv render --serve` serves (assets/serve/index.html, built into the binary).
std::string_view WebPageHtml();

}  // namespace bfv::display
