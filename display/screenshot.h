#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/expected.h"

namespace bfv::display {

/// A row-major RGB image (`widthPx` * `heightPx` * 3 bytes) encoded as PNG bytes. Errors when
/// stb_image_write cannot encode it (an image of the wrong size, or no memory).
Expected<std::vector<std::byte>> EncodePng(int widthPx, int heightPx,
                                           const std::vector<std::uint8_t>& rgb);

/// Writes `rgb` (row-major RGB, `widthPx` x `heightPx`) as DIR/screenshot_NNNN.png with the
/// first free number from 0000, creating `dir` when needed, and returns the path written.
/// Errors name the directory or file that could not be made (the caller goes on without it).
Expected<std::string> WriteScreenshot(const std::string& dir, int widthPx, int heightPx,
                                      const std::vector<std::uint8_t>& rgb);

/// Encodes and writes PNG images on a thread of its own, so that the frame loop does not wait
/// for the encoder (22-30 ms for a 1280x720 frame). Each file is written atomically
/// (common::WriteFileAtomic). At most kMaxQueued images wait; Submit blocks beyond that, so
/// memory stays bounded when every frame is written. Not thread-safe: one thread submits.
class PngWriter {
  public:
    static constexpr std::size_t kMaxQueued = 4;

    PngWriter();
    ~PngWriter();  // writes what is queued, then stops
    PngWriter(const PngWriter&) = delete;
    PngWriter& operator=(const PngWriter&) = delete;

    /// Queues `rgb` (row-major RGB, `widthPx` x `heightPx`) to be written as the PNG `path`.
    /// Returns the seconds it waited for room in a full queue (0 when there was room).
    double Submit(std::string path, int widthPx, int heightPx, std::vector<std::uint8_t> rgb);
    /// The first error of the images written so far ("frame_00100.png: cannot ..."), if any.
    Expected<void> FirstError() const;
    /// Waits until every queued image is written; then FirstError.
    Expected<void> Drain();

  private:
    struct Job {
        std::string path;
        int widthPx = 0;
        int heightPx = 0;
        std::vector<std::uint8_t> rgb;
    };
    void Run();

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Job> queue_;
    bool busy_ = false;  // a job taken from the queue is being written
    bool stop_ = false;
    std::string firstError_;
    std::thread thread_;
};

}  // namespace bfv::display
