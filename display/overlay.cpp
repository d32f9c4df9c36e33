#include "display/overlay.h"

#include <stb_easy_font.h>

#include <algorithm>

namespace bfv::display {

namespace {

void FillRect(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x0, int y0, int x1,
              int y1, std::uint8_t value, bool darken) {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, widthPx);
    y1 = std::min(y1, heightPx);
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
            std::uint8_t* p = &rgb[(static_cast<size_t>(y) * widthPx + x) * 3];
            for (int c = 0; c < 3; ++c) p[c] = darken ? p[c] / 3 : value;
        }
    }
}

}  // namespace

void DrawText(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
              const std::string& text, int scale) {
    static thread_local std::vector<char> vertices(64 * 1024);
    std::string copy = text;
    int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, vertices.data(),
                                    static_cast<int>(vertices.size()));
    int boxW = stb_easy_font_width(copy.data()) * scale,
        boxH = stb_easy_font_height(copy.data()) * scale;
    FillRect(rgb, widthPx, heightPx, x - 4, y - 4, x + boxW + 4, y + boxH + 2, 0, true);
    struct Vertex {
        float x, y, z;
        unsigned char color[4];
    };
    const auto* v = reinterpret_cast<const Vertex*>(vertices.data());
    for (int q = 0; q < quads; ++q, v += 4) {
        int qx0 = x + static_cast<int>(v[0].x * scale), qy0 = y + static_cast<int>(v[0].y * scale);
        int qx1 = x + static_cast<int>(v[2].x * scale), qy1 = y + static_cast<int>(v[2].y * scale);
        FillRect(rgb, widthPx, heightPx, qx0, qy0, qx1, qy1, 255, false);
    }
}

}  // namespace bfv::display
