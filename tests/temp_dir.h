#pragma once

// A per-test temporary directory for tests that write files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace bfv::test_support {

namespace fs = std::filesystem;

/// A fresh directory under the system temp directory, named after the running test (if any)
/// and removed with everything in it.
class TempDir {
  public:
    TempDir() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = test ? std::string(test->test_suite_name()) + "_" + test->name()
                                : "suite_setup";  // SetUpTestSuite runs outside any test
        path_ = fs::temp_directory_path() / ("bfv_" + name + "_" + std::to_string(::getpid()));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string File(const std::string& name) const { return (path_ / name).string(); }
    int EntryCount() const {
        return static_cast<int>(std::distance(fs::directory_iterator(path_), {}));
    }

  private:
    fs::path path_;
};

}  // namespace bfv::test_support
