#pragma once

// Byte counts for people, shared by the commands that report file sizes.

#include <fmt/format.h>

#include <cstddef>
#include <string>

namespace bfv::tools {

/// "N bytes (X KiB)" below 1 MiB, else "N bytes (X.Y MiB)".
inline std::string FormatBytes(std::size_t bytes) {
    double kib = bytes / 1024.0;
    return kib < 1024.0 ? fmt::format("{} bytes ({:.0f} KiB)", bytes, kib)
                        : fmt::format("{} bytes ({:.1f} MiB)", bytes, kib / 1024.0);
}

}  // namespace bfv::tools
