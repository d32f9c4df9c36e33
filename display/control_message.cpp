#include "display/control_message.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace bfv::display {

namespace {

using nlohmann::json;

// Errors unless `message` has exactly the members `names`.
Expected<void> HasExactly(const json& message, std::initializer_list<const char*> names) {
    for (const char* name : names) {
        if (!message.contains(name)) return Error{fmt::format("no member \"{}\"", name)};
    }
    if (message.size() != names.size()) return Error{"unexpected members"};
    return {};
}

// Member `name` of `message` as a finite number within +-`limit`.
Expected<double> NumberWithin(const json& message, const char* name, double limit) {
    const json& value = message.at(name);
    if (!value.is_number()) return Error{fmt::format("\"{}\" is not a number", name)};
    double x = value.get<double>();
    if (!std::isfinite(x) || std::abs(x) > limit)
        return Error{fmt::format("\"{}\" is outside -{:g}..{:g}", name, limit, limit)};
    return x;
}

Expected<ControlMessage> ParseSteer(const json& message) {
    if (auto ok = HasExactly(message, {"type", "turn", "climb"}); !ok) return ok.error();
    auto turn = NumberWithin(message, "turn", 1.0);
    if (!turn) return turn.error();
    auto climb = NumberWithin(message, "climb", 1.0);
    if (!climb) return climb.error();
    return ControlMessage{SteerMessage{*turn, *climb}};
}

Expected<ControlMessage> ParseLook(const json& message) {
    if (auto ok = HasExactly(message, {"type", "rightPx", "downPx"}); !ok) return ok.error();
    auto rightPx = NumberWithin(message, "rightPx", kMaxLookPx);
    if (!rightPx) return rightPx.error();
    auto downPx = NumberWithin(message, "downPx", kMaxLookPx);
    if (!downPx) return downPx.error();
    return ControlMessage{LookMessage{*rightPx, *downPx}};
}

Expected<ControlMessage> ParseKey(const json& message) {
    constexpr std::array<std::pair<const char*, KeyMessage::Key>, 6> kKeys = {{
        {"faster", KeyMessage::kFaster},
        {"slower", KeyMessage::kSlower},
        {"higher", KeyMessage::kHigher},
        {"lower", KeyMessage::kLower},
        {"pause", KeyMessage::kPause},
        {"quit", KeyMessage::kQuit},
    }};
    if (auto ok = HasExactly(message, {"type", "key"}); !ok) return ok.error();
    const json& key = message.at("key");
    if (key.is_string()) {
        for (const auto& [name, value] : kKeys) {
            if (key.get_ref<const std::string&>() == name) return ControlMessage{KeyMessage{value}};
        }
    }
    return Error{"\"key\" is not one of faster, slower, higher, lower, pause, quit"};
}

}  // namespace

Expected<ControlMessage> ParseControlMessage(std::string_view text) {
    if (text.size() > kMaxControlMessageBytes)
        return Error{
            fmt::format("message of {} bytes (at most {})", text.size(), kMaxControlMessageBytes)};
    json message = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) return Error{"message is not JSON"};
    if (!message.is_object() || !message.contains("type") || !message.at("type").is_string())
        return Error{"message is not an object with a string \"type\""};
    const std::string& type = message.at("type").get_ref<const std::string&>();
    if (type == "steer") return ParseSteer(message);
    if (type == "look") return ParseLook(message);
    if (type == "key") return ParseKey(message);
    if (type == "take" || type == "shown") {
        if (auto ok = HasExactly(message, {"type"}); !ok) return ok.error();
        return type == "take" ? ControlMessage{TakeControlsMessage{}}
                              : ControlMessage{ShownMessage{}};
    }
    return Error{fmt::format("unknown message type \"{}\"", type)};
}

}  // namespace bfv::display
