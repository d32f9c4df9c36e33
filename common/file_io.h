#pragma once

// Whole-file reads and crash-safe whole-file writes. Errors name the path and give the
// operating system's reason (strerror), e.g. "cannot open 'x.bfvt': No such file or directory".

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"

namespace bfv::common {

/// Reads the whole file at `path` into memory and returns its bytes (owned by the caller).
/// Errors: the file cannot be opened ("cannot open 'PATH': <reason>") or read ("cannot read
/// 'PATH': <reason>", e.g. when PATH is a directory).
Expected<std::vector<std::byte>> ReadFileBytes(const std::string& path);

/// Replaces the file at `path` with `bytes`, atomically: the bytes go to PATH.tmp.<pid> in the
/// same directory, which is then renamed over PATH, so a reader (or a crash) sees either the
/// old file or the complete new one, never a half-written file. The temporary file is removed
/// on any failure. No fsync: this protects against a failing process, not against power loss.
/// Errors: "cannot write 'PATH': <what failed>: <reason>" (missing directory, no permission,
/// disk full, ...).
Expected<void> WriteFileAtomic(const std::string& path, std::span<const std::byte> bytes);

}  // namespace bfv::common
