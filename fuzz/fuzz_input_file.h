#pragma once

// For harnesses of readers that take a path: the fuzz input written to a file in a temporary
// directory of this process, which is removed (with everything in it) when the process exits,
// and also when a sanitizer reports a crash (its death callback). Nothing is written anywhere
// else.

#include <sanitizer/common_interface_defs.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace bfv::fuzz {

/// The process's temporary directory: created under the system temp directory on first use
/// (mkdtemp, so fresh and private), removed at exit or when a sanitizer ends the process.
class FuzzTempDir {
  public:
    FuzzTempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "bfv_fuzz_XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) return;
        Path() = pattern;
        __sanitizer_set_death_callback(&Remove);
    }
    ~FuzzTempDir() { Remove(); }
    FuzzTempDir(const FuzzTempDir&) = delete;
    FuzzTempDir& operator=(const FuzzTempDir&) = delete;

    /// The directory, or "" if it could not be made.
    static std::string& Path() {
        static std::string path;
        return path;
    }

  private:
    static void Remove() {
        std::error_code ignored;
        if (!Path().empty()) std::filesystem::remove_all(Path(), ignored);
    }
};

/// Writes `size` bytes of `data` to the file `name` in the process's temporary directory,
/// replacing it, and returns its path ("" if the directory could not be made).
inline std::string WriteFuzzInput(const std::uint8_t* data, std::size_t size,
                                  const std::string& name) {
    static FuzzTempDir dir;
    if (FuzzTempDir::Path().empty()) return "";
    std::string path = FuzzTempDir::Path() + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace bfv::fuzz
