#include "display/web_access.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <random>

namespace bfv::display {

Expected<ServeAddress> ParseServeAddress(std::string_view text) {
    ServeAddress address;
    std::string_view port = text;
    if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
        std::string_view host = text.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
            host = host.substr(1, host.size() - 2);
        if (host.empty()) return Error{fmt::format("--serve '{}': empty host", text)};
        address.host = host;
        port = text.substr(colon + 1);
    }
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
        return Error{
            fmt::format("--serve '{}': the port is not a number in 0..65535 "
                        "(give [HOST:]PORT, e.g. 8080 or 0.0.0.0:8080)",
                        text)};
    address.port = static_cast<unsigned short>(value);
    return address;
}

std::string NewAccessToken() {
    std::random_device random;  // the system's random source (getrandom on Linux)
    std::string token;
    for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", std::uint32_t{random()});
    return token;
}

RequestTarget ParseRequestTarget(std::string_view target) {
    RequestTarget parsed;
    auto question = target.find('?');
    parsed.path = target.substr(0, question);
    if (question == std::string_view::npos) return parsed;
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        if (pair.starts_with("token=")) parsed.token = pair.substr(6);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    }
    return parsed;
}

bool TokenMatches(std::string_view given, std::string_view token) {
    if (given.size() != token.size() || token.empty()) return false;
    unsigned char difference = 0;
    for (size_t i = 0; i < token.size(); ++i)
        difference |= static_cast<unsigned char>(given[i] ^ token[i]);
    return difference == 0;
}

bool OriginAllowed(std::string_view origin, std::string_view host) {
    return !host.empty() && origin.size() == host.size() + 7 && origin.starts_with("http://") &&
           origin.substr(7) == host;
}

}  // namespace bfv::display
