#pragma once

// Whole-file reads and crash-safe whole-file writes. Errors name the path and give the
// operating system's reason (strerror), e.g. "cannot open 'x.bfvt': No such file or directory".

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/expected.h"

namespace bfv::common {

/// Success when `dir` is a folder this process may write in, or can be made as one (with
/// create_directories): its nearest existing ancestor is a writable folder. Errors name
/// `option` and `dir`: "--out 'DIR' exists and is not a folder", "--out 'DIR': 'A' is not a
/// folder, so it cannot be made", "--out 'DIR': its folder 'A' cannot be written to".
Expected<void> CheckFolderCanBeMade(const std::string& option, const std::string& dir);

/// Reads the whole file at `path` into memory and returns its bytes (owned by the caller).
/// Errors: the file cannot be opened ("cannot open 'PATH': <reason>") or read ("cannot read
/// 'PATH': <reason>", e.g. when PATH is a directory).
Expected<std::vector<std::byte>> ReadFileBytes(const std::string& path);

/// The text of a small kernel file (/proc, /sys, a cgroup's files: they report a size of 0, so
/// ReadFileBytes reads nothing of them), read to its end; "" when it cannot be opened (a
/// process gone, a controller not mounted).
std::string ReadKernelFile(const std::string& path);

/// Replaces the file at `path` with `bytes`, atomically (AtomicFileWriter): a reader (or a
/// crash) sees either the old file or the complete new one, never a half-written file, and no
/// temporary file is left behind. No fsync: this protects against a failing process, not
/// against power loss. Errors: "cannot write 'PATH': <what failed>: <reason>" (missing
/// directory, no permission, disk full, ...).
Expected<void> WriteFileAtomic(const std::string& path, std::span<const std::byte> bytes);

/// WriteFileAtomic for a file too large to build in memory: written piece by piece, at any
/// offsets, into a temporary file in PATH's folder, which Commit puts in place of PATH. The
/// temporary file has no name (Linux's O_TMPFILE) until Commit links it as PATH.tmp.<pid> and
/// renames that over PATH at once, so a process killed at any other moment (SIGKILL, a crash)
/// leaves nothing behind. Where the file system has no O_TMPFILE it is PATH.tmp.<pid> from the
/// start. Until Commit succeeds, the temporary file goes when the writer dies, so a failure
/// (or an early return) leaves no half-written file and keeps an old one. Move-only.
class AtomicFileWriter {
  public:
    /// Creates the temporary file. Errors: "cannot write 'PATH': cannot create a temporary file
    /// in 'FOLDER': <reason>".
    static Expected<AtomicFileWriter> Create(const std::string& path);

    AtomicFileWriter(AtomicFileWriter&& other) noexcept;
    AtomicFileWriter& operator=(AtomicFileWriter&& other) = delete;
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
    ~AtomicFileWriter();

    /// Writes `bytes` at byte `offset` of the file (pwrite; a gap reads as zeros).
    /// Errors: "cannot write 'PATH': <reason>" (e.g. disk full).
    Expected<void> WriteAt(std::uint64_t offset, std::span<const std::byte> bytes);
    /// Closes the file and puts it in place of PATH; the writer is done either way. Errors:
    /// "cannot write 'PATH': <reason>" for a failed close or link, "cannot write 'PATH': cannot
    /// rename temporary file 'TMP' over it: <reason>".
    Expected<void> Commit();

  private:
    AtomicFileWriter(std::string path, std::string tmpPath, int fd, bool named)
        : path_(std::move(path)), tmpPath_(std::move(tmpPath)), fd_(fd), named_(named) {}
    /// Gives the nameless file its temporary name, tmpPath_ (linkat through /proc/self/fd).
    Expected<void> Name();
    /// Closes the file (if open) and removes the temporary file (if it has a name).
    void Abandon();

    std::string path_;
    std::string tmpPath_;  // PATH.tmp.<pid>: the file's name before the rename over PATH
    int fd_ = -1;          // -1 once committed or abandoned
    bool named_ = false;   // whether tmpPath_ exists (no O_TMPFILE, or linked by Commit)
};

}  // namespace bfv::common
