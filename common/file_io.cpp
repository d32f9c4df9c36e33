#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace bfv::common {
namespace {

/// Closes a POSIX file descriptor when it goes out of scope (unless released).
class FileDescriptor {
  public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    /// Closes now and reports whether close succeeded (it can report a deferred write error).
    bool Close() {
        int fd = fd_;
        fd_ = -1;
        return ::close(fd) == 0;
    }

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

/// Writes all of `bytes`; false with errno set on failure.
bool WriteAll(int fd, std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

/// Writes `bytes` into a new file at `tmpPath`; the caller removes it if this fails.
Expected<void> WriteNewFile(const std::string& path, const std::string& tmpPath,
                            std::span<const std::byte> bytes) {
    FileDescriptor fd(::open(tmpPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    std::string prefix = "cannot write '" + path + "': ";
    if (fd.get() < 0) {
        return Error{prefix + "cannot create temporary file '" + tmpPath + "': " + Reason()};
    }
    if (!WriteAll(fd.get(), bytes) || !fd.Close()) return Error{prefix + Reason()};
    return {};
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

Expected<void> WriteFileAtomic(const std::string& path, std::span<const std::byte> bytes) {
    std::string tmpPath = path + ".tmp." + std::to_string(::getpid());
    Expected<void> written = WriteNewFile(path, tmpPath, bytes);
    if (written && std::rename(tmpPath.c_str(), path.c_str()) != 0) {
        written = Error{"cannot write '" + path + "': cannot rename temporary file '" + tmpPath +
                        "' over it: " + Reason()};
    }
    if (!written) ::unlink(tmpPath.c_str());
    return written;
}

}  // namespace bfv::common
