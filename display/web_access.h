#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"

namespace bfv::display {

/// Where `--serve [HOST:]PORT` listens: HOST defaults to 127.0.0.1 (this machine only).
struct ServeAddress {
    std::string host = "127.0.0.1";  // = "127.0.0.1" // an IPv4 or IPv6 address
    unsigned short port = 0;         // = 0 // 0: any free port (tests)
};

/// Parses `--serve`'s value: PORT, HOST:PORT or [IPv6]:PORT, PORT 0..65535. Errors: an empty
/// value, a port that is not a number in range, an empty host.
Expected<ServeAddress> ParseServeAddress(std::string_view text);

/// A fresh random token (32 hex digits: 128 bits from the system's random source), required
/// in every request's ?token= as Jupyter does, so that only whoever saw the printed URL gets
/// in.
std::string NewAccessToken();

/// An HTTP request target split into its path and its token query parameter ("" if none).
struct RequestTarget {
    std::string path;
    std::string token;
};

/// Splits a request target such as "/ws?token=abc" (other query parameters are ignored).
RequestTarget ParseRequestTarget(std::string_view target);

/// Whether `given` equals `token`, in time independent of where they differ.
bool TokenMatches(std::string_view given, std::string_view token);

/// Whether a WebSocket's Origin header names the page this server served: "http://" followed
/// by the request's Host header (so a page from another site, which a browser lets open
/// WebSockets anywhere, is refused). A missing Origin is refused too.
bool OriginAllowed(std::string_view origin, std::string_view host);

}  // namespace bfv::display
