#include "display/overlay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace bfv::display {
namespace {

constexpr int kW = 300, kH = 100;

using Pixel = std::array<int, 3>;

Pixel At(const std::vector<std::uint8_t>& rgb, int x, int y) {
    const std::uint8_t* p = &rgb[(static_cast<size_t>(y) * kW + x) * 3];
    return {p[0], p[1], p[2]};
}

TEST(Overlay, FrameTimeGraphScalesToTwiceTheReferenceWithTheNewestAtTheRight) {
    std::vector<std::uint8_t> rgb(kW * kH * 3, 90);
    // Two frames on a 60 px graph spanning 0..2/30 s: 1/60 s (a quarter) and 1/10 s (cut).
    std::vector<double> times = {1.0 / 60.0, 1.0 / 10.0};
    DrawFrameTimeGraph(rgb, kW, kH, 0, 0, 1, 60, times, 1.0 / 30.0);
    EXPECT_EQ(At(rgb, 0, 59), (Pixel{30, 30, 30})) << "no frame yet: darkened background";
    int older = kGraphFrames - 2, newest = kGraphFrames - 1;
    EXPECT_EQ(At(rgb, older, 59), (Pixel{80, 220, 90})) << "under the reference: green";
    EXPECT_EQ(At(rgb, older, 45), (Pixel{80, 220, 90}));
    EXPECT_EQ(At(rgb, older, 44), (Pixel{30, 30, 30})) << "15 px = a quarter of 60";
    EXPECT_EQ(At(rgb, newest, 0), (Pixel{235, 60, 50})) << "past twice the reference: red, cut";
    EXPECT_EQ(At(rgb, 5, 30), (Pixel{255, 255, 255})) << "the reference line at half height";
    EXPECT_EQ(At(rgb, kGraphFrames, 59), (Pixel{90, 90, 90})) << "nothing right of the graph";
}

TEST(Overlay, LoadBarsGiveTheSlowestTracerTheFullWidth) {
    std::vector<std::uint8_t> rgb(kW * kH * 3, 90);
    std::vector<double> traceS = {0.010, 0.020};
    DrawLoadBars(rgb, kW, kH, 10, 10, 100, 21, traceS);
    // 1 px gaps: bars of 9 px at y 11..19 and 21..29, from x 11.
    EXPECT_EQ(At(rgb, 11 + 49, 15), (Pixel{70, 200, 230})) << "half the slowest: cyan";
    EXPECT_EQ(At(rgb, 11 + 51, 15), (Pixel{30, 30, 30}));
    EXPECT_EQ(At(rgb, 11 + 99, 25), (Pixel{255, 176, 32})) << "the slowest: amber, full width";
    std::vector<std::uint8_t> untouched(kW * kH * 3, 90), same = untouched;
    DrawLoadBars(same, kW, kH, 10, 10, 100, 21, {});
    EXPECT_EQ(same, untouched) << "no tracers (--sequential): nothing drawn";
}

TEST(Overlay, DrawingPastTheImageIsClipped) {
    std::vector<std::uint8_t> rgb(kW * kH * 3, 90);
    std::vector<double> times(500, 0.02), traceS = {0.01, 0.02, 0.03};
    DrawFrameTimeGraph(rgb, kW, kH, kW - 50, kH - 20, 2, 80, times, 1.0 / 30.0);
    DrawLoadBars(rgb, kW, kH, -20, -5, 400, 50, traceS);
    HudContent hud{"FPS 30\nkeys", times, traceS};
    DrawHud(rgb, kW, kH, hud);
    std::vector<std::uint8_t> tiny(8 * 4 * 3, 90);
    DrawHud(tiny, 8, 4, hud);  // smaller than any of its parts
    SUCCEED() << "no write outside the images (the sanitizer build checks)";
}

// The words of `text` in order, whatever the spaces and line breaks between them.
std::vector<std::string> Words(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    for (char c : text + ' ') {
        if (c == ' ' || c == '\n') {
            if (!word.empty()) words.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    return words;
}

TEST(Overlay, HudTextFitsTheWidthAtScaleTwoOrBrokenAtSpaces) {
    const std::string status =
        "FPS  50.0   N 4   frame 12   27 m/s   300 m AGL   coarse 0%\n"
        "arrows/WASD/drag steer  +/- speed  PgUp/PgDn height  space pause  H hud  F12 shot  Esc "
        "quit";
    FittedText wide = FitTextToWidth(status, 2000);
    EXPECT_EQ(wide.scale, 2);
    EXPECT_EQ(wide.text, status) << "fits: unchanged";
    FittedText smaller = FitTextToWidth(status, 600);
    EXPECT_EQ(smaller.scale, 1);
    EXPECT_EQ(smaller.text, status) << "fits at scale 1: unchanged";
    for (int widthPx : {300, 160}) {
        FittedText narrow = FitTextToWidth(status, widthPx);
        EXPECT_EQ(narrow.scale, 1) << widthPx;
        EXPECT_EQ(Words(narrow.text), Words(status)) << "every word kept, in order";
        EXPECT_GT(std::count(narrow.text.begin(), narrow.text.end(), '\n'), 1) << widthPx;
        std::size_t start = 0;
        while (start <= narrow.text.size()) {
            std::size_t end = std::min(narrow.text.find('\n', start), narrow.text.size());
            std::string line = narrow.text.substr(start, end - start);
            bool oneWord = Words(line).size() == 1;
            EXPECT_TRUE(oneWord || TextWidthPx(line, 1) <= widthPx) << widthPx << ": " << line;
            start = end + 1;
        }
    }
}

}  // namespace
}  // namespace bfv::display
