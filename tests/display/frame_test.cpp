#include "display/frame.h"

#include <gtest/gtest.h>

#include <vector>

#include "display/overlay.h"

namespace bfv::display {
namespace {

Frame Gradient(int w, int h) {
    Frame frame(w, h);
    for (int x = 0; x < w; ++x) {
        for (int y = 0; y < h; ++y) {
            frame.Column(x)[y] = {static_cast<std::uint8_t>(x + 10 * y), 255};
        }
    }
    return frame;
}

TEST(Frame, ChecksumChangesWithOnePixel) {
    Frame a = Gradient(16, 9), b = Gradient(16, 9);
    EXPECT_EQ(a.Checksum(), b.Checksum());
    b.Column(7)[4].intensity = 254;
    EXPECT_NE(a.Checksum(), b.Checksum());
    Frame c = Gradient(16, 9);
    c.Column(15)[8].index ^= 1;
    EXPECT_NE(a.Checksum(), c.Checksum());
}

// Sky entries are the palette's first kSkyLevels; everything past them is terrain or water.
TEST(Frame, TerrainPixelCountCountsThePixelsPastTheSkyEntries) {
    Frame frame = Gradient(16, 9);  // index x + 10 y: 0..95
    long long expected = 0;
    for (int x = 0; x < 16; ++x) {
        for (int y = 0; y < 9; ++y) expected += x + 10 * y >= common::kSkyLevels;
    }
    ASSERT_GT(expected, 0);
    ASSERT_LT(expected, 16 * 9);
    EXPECT_EQ(frame.TerrainPixelCount(), expected);
    frame.Column(0)[0].index = common::kSkyLevels;  // was 0, sky
    EXPECT_EQ(frame.TerrainPixelCount(), expected + 1);
    EXPECT_EQ(Frame(1280, 720).TerrainPixelCount(), 0);  // all index 0: sky
}

TEST(Frame, ToRgbIsRowMajorTopRowFirst) {
    Frame frame = Gradient(5, 3);
    std::vector<std::uint8_t> rgb;
    frame.ToRgb(common::DefaultPalette(), rgb);
    ASSERT_EQ(rgb.size(), 5u * 3u * 3u);
    for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 5; ++x) {
            common::Rgb expected = common::ToRgb(frame.Column(x)[y]);
            const std::uint8_t* p = &rgb[(y * 5 + x) * 3];
            EXPECT_EQ(p[0], expected.r) << x << "," << y;
            EXPECT_EQ(p[1], expected.g) << x << "," << y;
            EXPECT_EQ(p[2], expected.b) << x << "," << y;
        }
    }
}

TEST(Overlay, DrawsWhiteTextInsideItsBoxOnly) {
    constexpr int kW = 200, kH = 80;
    std::vector<std::uint8_t> rgb(kW * kH * 3, 90);
    DrawText(rgb, kW, kH, 10, 10, "FPS 42", 2);
    auto at = [&](int x, int y) { return &rgb[(y * kW + x) * 3]; };
    int white = 0;
    for (int y = 0; y < kH; ++y) {
        for (int x = 0; x < kW; ++x) {
            if (at(x, y)[0] == 255 && at(x, y)[1] == 255 && at(x, y)[2] == 255) {
                ++white;
                EXPECT_LT(x, 100);
                EXPECT_LT(y, 40);
            }
        }
    }
    EXPECT_GT(white, 20);
    EXPECT_EQ(at(10 - 4, 10 - 4)[0], 30);  // box corner darkened to a third
    EXPECT_EQ(at(190, 70)[0], 90);         // far away: untouched
    EXPECT_EQ(at(0, 0)[0], 90);
}

TEST(Overlay, ClipsAtTheImageEdges) {
    constexpr int kW = 30, kH = 12;
    std::vector<std::uint8_t> rgb(kW * kH * 3, 90);
    DrawText(rgb, kW, kH, 20, 6, "clipped text", 3);  // runs off the right and bottom
    DrawText(rgb, kW, kH, -50, -50, "gone", 2);       // wholly outside
    EXPECT_EQ(rgb.size(), static_cast<size_t>(kW * kH * 3));
    EXPECT_EQ(rgb[0], 90);
}

}  // namespace
}  // namespace bfv::display
