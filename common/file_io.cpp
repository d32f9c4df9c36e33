#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>

#include "common/check.h"

namespace bfv::common {

Expected<void> CheckFolderCanBeMade(const std::string& option, const std::string& dir) {
    std::error_code error;
    std::filesystem::path existing = std::filesystem::absolute(dir, error);
    if (std::filesystem::exists(existing, error) && !std::filesystem::is_directory(existing)) {
        return Error{option + " '" + dir + "' exists and is not a folder"};
    }
    while (!std::filesystem::exists(existing, error) && existing != existing.parent_path()) {
        existing = existing.parent_path();
    }
    if (!std::filesystem::is_directory(existing, error)) {
        return Error{option + " '" + dir + "': '" + existing.string() +
                     "' is not a folder, so it cannot be made"};
    }
    if (::access(existing.c_str(), W_OK) != 0) {
        return Error{option + " '" + dir + "': its folder '" + existing.string() +
                     "' cannot be written to"};
    }
    return {};
}
namespace {

/// Closes a POSIX file descriptor when it goes out of scope.
class FileDescriptor {
  public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

  private:
    int fd_;
};

std::string Reason() { return std::strerror(errno); }

Error PathError(const char* what, const std::string& path) {
    return Error{std::string(what) + " '" + path + "': " + Reason()};
}

/// Reads exactly bytes.size() bytes; false with errno set on failure or early end of file.
bool ReadAll(int fd, std::span<std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;  // the file shrank while we read it
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

/// Writes all of `bytes` at `offset`; false with errno set on failure.
bool WriteAllAt(int fd, std::uint64_t offset, std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done,
                             static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

Expected<std::vector<std::byte>> ReadFileBytes(const std::string& path) {
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return PathError("cannot open", path);
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) return PathError("cannot read", path);
    if (S_ISDIR(info.st_mode)) {
        errno = EISDIR;
        return PathError("cannot read", path);
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(info.st_size));
    if (!ReadAll(fd.get(), bytes)) return PathError("cannot read", path);
    return bytes;
}

std::string ReadKernelFile(const std::string& path) {
    std::ifstream file(path);
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

Expected<void> WriteFileAtomic(const std::string& path, std::span<const std::byte> bytes) {
    Expected<AtomicFileWriter> file = AtomicFileWriter::Create(path);
    if (!file) return file.error();
    if (auto written = file->WriteAt(0, bytes); !written) return written;
    return file->Commit();
}

Expected<AtomicFileWriter> AtomicFileWriter::Create(const std::string& path) {
    std::string tmpPath = path + ".tmp." + std::to_string(::getpid());
    std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (folder.empty()) folder = ".";
    int fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    bool named = fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR);  // no O_TMPFILE here
    if (named) fd = ::open(tmpPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return Error{"cannot write '" + path + "': cannot create a temporary file in '" +
                     folder.string() + "': " + Reason()};
    }
    return AtomicFileWriter(path, tmpPath, fd, named);
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : path_(std::move(other.path_)),
      tmpPath_(std::move(other.tmpPath_)),
      fd_(std::exchange(other.fd_, -1)),
      named_(other.named_) {}

AtomicFileWriter::~AtomicFileWriter() { Abandon(); }

void AtomicFileWriter::Abandon() {
    if (fd_ < 0) return;
    ::close(std::exchange(fd_, -1));
    if (named_) ::unlink(tmpPath_.c_str());
}

Expected<void> AtomicFileWriter::WriteAt(std::uint64_t offset, std::span<const std::byte> bytes) {
    BFV_CHECK(fd_ >= 0);
    if (!WriteAllAt(fd_, offset, bytes)) return Error{"cannot write '" + path_ + "': " + Reason()};
    return {};
}

Expected<void> AtomicFileWriter::Name() {
    if (named_) return {};
    ::unlink(tmpPath_.c_str());  // a stale one of an earlier process that had our pid
    std::string self = "/proc/self/fd/" + std::to_string(fd_);
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmpPath_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
        return Error{"cannot write '" + path_ + "': cannot link temporary file '" + tmpPath_ +
                     "': " + Reason()};
    }
    named_ = true;
    return {};
}

Expected<void> AtomicFileWriter::Commit() {
    BFV_CHECK(fd_ >= 0);
    if (auto named = Name(); !named) {
        Abandon();
        return named;
    }
    if (::close(std::exchange(fd_, -1)) != 0) {
        Error error{"cannot write '" + path_ + "': " + Reason()};
        ::unlink(tmpPath_.c_str());
        return error;
    }
    if (std::rename(tmpPath_.c_str(), path_.c_str()) != 0) {
        Error error{"cannot write '" + path_ + "': cannot rename temporary file '" + tmpPath_ +
                    "' over it: " + Reason()};
        ::unlink(tmpPath_.c_str());
        return error;
    }
    return {};
}

}  // namespace bfv::common
