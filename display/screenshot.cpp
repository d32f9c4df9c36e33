#include "display/screenshot.h"

#include <fmt/format.h>
#include <stb_image_write.h>

#include <filesystem>

#include "common/file_io.h"
#include "common/instrument.h"

namespace bfv::display {

namespace {

void AppendBytes(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<std::byte>*>(context);
    auto* bytes = static_cast<std::byte*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

// Screenshots a session may number; past it the directory is surely not meant for them.
constexpr int kMaxScreenshots = 10000;

}  // namespace

Expected<std::vector<std::byte>> EncodePng(int widthPx, int heightPx,
                                           const std::vector<std::uint8_t>& rgb) {
    std::vector<std::byte> png;
    if (rgb.size() != static_cast<size_t>(widthPx) * heightPx * 3 ||
        !stbi_write_png_to_func(AppendBytes, &png, widthPx, heightPx, 3, rgb.data(), widthPx * 3)) {
        return Error{fmt::format("cannot encode a {}x{} image as PNG", widthPx, heightPx)};
    }
    return png;
}

Expected<std::string> WriteScreenshot(const std::string& dir, int widthPx, int heightPx,
                                      const std::vector<std::uint8_t>& rgb) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error{"cannot create directory '" + dir + "': " + ec.message()};
    auto png = EncodePng(widthPx, heightPx, rgb);
    if (!png) return png.error();
    for (int n = 0; n < kMaxScreenshots; ++n) {
        auto path = std::filesystem::path(dir) / fmt::format("screenshot_{:04d}.png", n);
        if (std::filesystem::exists(path, ec)) continue;
        if (auto ok = common::WriteFileAtomic(path.string(), *png); !ok) return ok.error();
        return path.string();
    }
    return Error{fmt::format("'{}' already holds {} screenshots", dir, kMaxScreenshots)};
}

PngWriter::PngWriter() : thread_([this] { Run(); }) {}

PngWriter::~PngWriter() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

double PngWriter::Submit(std::string path, int widthPx, int heightPx,
                         std::vector<std::uint8_t> rgb) {
    std::unique_lock lock(mutex_);
    double waitedS = 0.0;
    if (queue_.size() >= kMaxQueued) {
        double startS = common::WallClockS();
        changed_.wait(lock, [this] { return queue_.size() < kMaxQueued; });
        waitedS = common::WallClockS() - startS;
    }
    queue_.push_back({std::move(path), widthPx, heightPx, std::move(rgb)});
    changed_.notify_all();
    return waitedS;
}

Expected<void> PngWriter::FirstError() const {
    std::lock_guard lock(mutex_);
    if (firstError_.empty()) return {};
    return Error{firstError_};
}

Expected<void> PngWriter::Drain() {
    {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
    }
    return FirstError();
}

void PngWriter::Run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopped, and everything written
        Job job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        changed_.notify_all();  // room in the queue
        lock.unlock();
        Expected<void> written = [&]() -> Expected<void> {
            auto png = EncodePng(job.widthPx, job.heightPx, job.rgb);
            if (!png) return png.error();
            return common::WriteFileAtomic(job.path, *png);
        }();
        lock.lock();
        busy_ = false;
        if (!written && firstError_.empty()) {
            firstError_ = std::filesystem::path(job.path).filename().string() + ": " +
                          written.error().message;
        }
        changed_.notify_all();
    }
}

}  // namespace bfv::display
