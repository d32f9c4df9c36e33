#pragma once

// For harnesses of readers that take a path: the fuzz input written to a file in a temporary
// directory of this process, which is removed (with everything in it) when the process exits.
// Nothing is written anywhere else. A crash ends the process without running destructors (the
// death callback is libFuzzer's, which saves the input), so the directory stays behind then:
// tools/run-fuzz.sh points TMPDIR into build-fuzz/ and removes it after every harness.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace bfv::fuzz {

/// The process's temporary directory: created under the system temp directory ($TMPDIR, else
/// /tmp) on first use (mkdtemp, so fresh and private), removed at exit.
class FuzzTempDir {
  public:
    FuzzTempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "bfv_fuzz_XXXXXX").string();
        if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    }
    ~FuzzTempDir() {
        std::error_code ignored;
        if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
    }
    FuzzTempDir(const FuzzTempDir&) = delete;
    FuzzTempDir& operator=(const FuzzTempDir&) = delete;

    /// The directory, or "" if it could not be made.
    const std::string& Path() const { return path_; }

  private:
    std::string path_;
};

/// Writes `size` bytes of `data` to the file `name` in the process's temporary directory,
/// replacing it, and returns its path ("" if the directory could not be made).
inline std::string WriteFuzzInput(const std::uint8_t* data, std::size_t size,
                                  const std::string& name) {
    static FuzzTempDir dir;
    if (dir.Path().empty()) return "";
    std::string path = dir.Path() + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace bfv::fuzz
