// libFuzzer harness: a control message as a viewer of `bfv render --serve` sends it over the
// WebSocket (display::ParseControlMessage). Anything must be an Error or a message within the
// schema's ranges, never a crash.
//
// Input: the message's text.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "display/control_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace bfv::display;
    auto message = ParseControlMessage({reinterpret_cast<const char*>(data), size});
    if (!message) return 0;
    if (size > kMaxControlMessageBytes) std::abort();
    if (const auto* steer = std::get_if<SteerMessage>(&*message)) {
        if (!(std::abs(steer->turn) <= 1.0 && std::abs(steer->climb) <= 1.0)) std::abort();
    }
    if (const auto* look = std::get_if<LookMessage>(&*message)) {
        if (!(std::abs(look->rightPx) <= kMaxLookPx && std::abs(look->downPx) <= kMaxLookPx))
            std::abort();
    }
    return 0;
}
