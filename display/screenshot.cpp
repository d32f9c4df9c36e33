#include "display/screenshot.h"

#include <fmt/format.h>
#include <stb_image_write.h>

#include <filesystem>

#include "common/file_io.h"

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

}  // namespace bfv::display
