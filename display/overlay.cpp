#include "display/overlay.h"

#include <fmt/format.h>
#include <stb_easy_font.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace bfv::display {

namespace {

using Colour = std::array<std::uint8_t, 3>;
constexpr Colour kWhite = {255, 255, 255};
constexpr Colour kGreen = {80, 220, 90};
constexpr Colour kAmber = {255, 176, 32};
constexpr Colour kRed = {235, 60, 50};
constexpr Colour kCyan = {70, 200, 230};

// The part of the image a rectangle [x0, x1) x [y0, y1) covers, given to `paint` per pixel.
template <typename Paint>
void ForEachPixel(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x0, int y0, int x1,
                  int y1, Paint paint) {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, widthPx);
    y1 = std::min(y1, heightPx);
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) paint(&rgb[(static_cast<size_t>(y) * widthPx + x) * 3]);
    }
}

void FillRect(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x0, int y0, int x1,
              int y1, Colour colour) {
    ForEachPixel(rgb, widthPx, heightPx, x0, y0, x1, y1,
                 [&](std::uint8_t* p) { std::copy(colour.begin(), colour.end(), p); });
}

// Darkens to a third, so that what is drawn on top stands out over any terrain.
void DarkenRect(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x0, int y0, int x1,
                int y1) {
    ForEachPixel(rgb, widthPx, heightPx, x0, y0, x1, y1, [](std::uint8_t* p) {
        for (int c = 0; c < 3; ++c) p[c] /= 3;
    });
}

}  // namespace

void DrawText(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
              const std::string& text, int scale) {
    static thread_local std::vector<char> vertices(64 * 1024);
    std::string copy = text;
    int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, vertices.data(),
                                    static_cast<int>(vertices.size()));
    int boxW = TextWidthPx(text, scale), boxH = stb_easy_font_height(copy.data()) * scale;
    DarkenRect(rgb, widthPx, heightPx, x - 4, y - 4, x + boxW + 4, y + boxH + 2);
    struct Vertex {
        float x, y, z;
        unsigned char color[4];
    };
    const auto* v = reinterpret_cast<const Vertex*>(vertices.data());
    for (int q = 0; q < quads; ++q, v += 4) {
        int qx0 = x + static_cast<int>(v[0].x * scale), qy0 = y + static_cast<int>(v[0].y * scale);
        int qx1 = x + static_cast<int>(v[2].x * scale), qy1 = y + static_cast<int>(v[2].y * scale);
        FillRect(rgb, widthPx, heightPx, qx0, qy0, qx1, qy1, kWhite);
    }
}

int TextWidthPx(const std::string& text, int scale) {
    std::string copy = text;
    return stb_easy_font_width(copy.data()) * scale;
}

FittedText FitTextToWidth(const std::string& text, int maxWidthPx) {
    if (TextWidthPx(text, 2) <= maxWidthPx) return {text, 2};
    std::string fitted;
    std::size_t lineStart = 0;
    while (lineStart <= text.size()) {
        std::size_t lineEnd = std::min(text.find('\n', lineStart), text.size());
        std::string line = text.substr(lineStart, lineEnd - lineStart), out;
        // Greedy: words (and the spaces before them) join the output line while it fits.
        std::size_t pos = 0;
        while (pos < line.size()) {
            std::size_t wordStart = line.find_first_not_of(' ', pos);
            if (wordStart == std::string::npos) break;
            std::size_t wordEnd = std::min(line.find(' ', wordStart), line.size());
            std::string joined = out + line.substr(pos, wordEnd - pos);
            if (!out.empty() && TextWidthPx(joined, 1) > maxWidthPx) {
                fitted += out + '\n';
                out = line.substr(wordStart, wordEnd - wordStart);
            } else {
                out = joined;
            }
            pos = wordEnd;
        }
        fitted += out;
        if (lineEnd == text.size()) break;
        fitted += '\n';
        lineStart = lineEnd + 1;
    }
    return {fitted, 1};
}

void DrawFrameTimeGraph(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
                        int barWidthPx, int graphHeightPx, std::span<const double> frameTimesS,
                        double referenceS) {
    int bottom = y + graphHeightPx;
    DarkenRect(rgb, widthPx, heightPx, x, y, x + kGraphFrames * barWidthPx, bottom);
    size_t shown = std::min(frameTimesS.size(), static_cast<size_t>(kGraphFrames));
    std::span<const double> last = frameTimesS.last(shown);
    int left = x + (kGraphFrames - static_cast<int>(shown)) * barWidthPx;  // newest at the right
    for (size_t i = 0; i < shown; ++i) {
        double share = last[i] / (2.0 * referenceS);  // of the graph's height
        int barPx = static_cast<int>(std::lround(std::min(share, 1.0) * graphHeightPx));
        Colour colour = share > 1.0 ? kRed : (share > 0.5 ? kAmber : kGreen);
        int barX = left + static_cast<int>(i) * barWidthPx;
        FillRect(rgb, widthPx, heightPx, barX, bottom - std::max(barPx, 1), barX + barWidthPx,
                 bottom, colour);
    }
    int referenceY = bottom - graphHeightPx / 2;
    FillRect(rgb, widthPx, heightPx, x, referenceY, x + kGraphFrames * barWidthPx, referenceY + 1,
             kWhite);
}

void DrawLoadBars(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
                  int barsWidthPx, int boxHeightPx, std::span<const double> traceTimesS) {
    if (traceTimesS.empty()) return;
    auto slowest = std::max_element(traceTimesS.begin(), traceTimesS.end());
    if (*slowest <= 0.0) return;
    int n = static_cast<int>(traceTimesS.size());
    int gapPx = boxHeightPx >= 2 * n ? 1 : 0;
    int barPx = std::max((boxHeightPx - gapPx * (n + 1)) / n, 1);
    DarkenRect(rgb, widthPx, heightPx, x, y, x + barsWidthPx + 2 * gapPx,
               y + gapPx + n * (barPx + gapPx));
    for (int i = 0; i < n; ++i) {
        int lengthPx = static_cast<int>(std::lround(traceTimesS[i] / *slowest * barsWidthPx));
        int barY = y + gapPx + i * (barPx + gapPx);
        Colour colour = traceTimesS.begin() + i == slowest ? kAmber : kCyan;
        FillRect(rgb, widthPx, heightPx, x + gapPx, barY, x + gapPx + lengthPx, barY + barPx,
                 colour);
    }
}

void DrawHud(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, const HudContent& content) {
    constexpr int kMarginPx = 12, kLabelPx = 10;  // a label line at scale 1 is 7 px high
    FittedText text = FitTextToWidth(content.text, widthPx - 2 * kMarginPx);
    DrawText(rgb, widthPx, heightPx, kMarginPx, kMarginPx, text.text, text.scale);
    int barWidthPx = widthPx >= 4 * kGraphFrames ? 2 : 1;
    int graphHeightPx = std::clamp(heightPx / 6, 24, 80);
    int graphY = heightPx - kMarginPx - graphHeightPx;
    DrawText(rgb, widthPx, heightPx, kMarginPx, graphY - kLabelPx,
             fmt::format("ms per frame, line {:.0f} ms", 1e3 * content.referenceFrameS), 1);
    DrawFrameTimeGraph(rgb, widthPx, heightPx, kMarginPx, graphY, barWidthPx, graphHeightPx,
                       content.frameTimesS, content.referenceFrameS);
    if (content.traceTimesS.empty()) return;
    int barsX = 2 * kMarginPx + kGraphFrames * barWidthPx;
    int barsWidthPx = std::min(160, widthPx - barsX - kMarginPx);
    if (barsWidthPx < 16) return;  // no room beside the graph
    double slowestS = *std::max_element(content.traceTimesS.begin(), content.traceTimesS.end());
    DrawText(rgb, widthPx, heightPx, barsX, graphY - kLabelPx,
             fmt::format("trace per tracer, slowest {:.1f} ms", 1e3 * slowestS), 1);
    DrawLoadBars(rgb, widthPx, heightPx, barsX, graphY, barsWidthPx, graphHeightPx,
                 content.traceTimesS);
}

}  // namespace bfv::display
