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
            frame.Column(x)[y] = {static_cast<std::uint8_t>(x), static_cast<std::uint8_t>(10 * y),
                                  static_cast<std::uint8_t>(x + y)};
        }
    }
    return frame;
}

TEST(Frame, ChecksumChangesWithOneChannelOfOnePixel) {
    Frame a = Gradient(16, 9), b = Gradient(16, 9);
    EXPECT_EQ(a.Checksum(), b.Checksum());
    b.Column(7)[4].b ^= 1;
    EXPECT_NE(a.Checksum(), b.Checksum());
    Frame c = Gradient(16, 9);
    c.Column(15)[8].r ^= 1;
    EXPECT_NE(a.Checksum(), c.Checksum());
}

TEST(Frame, ToRgbIsRowMajorTopRowFirst) {
    Frame frame = Gradient(5, 3);
    std::vector<std::uint8_t> rgb;
    frame.ToRgb(rgb);
    ASSERT_EQ(rgb.size(), 5u * 3u * 3u);
    for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 5; ++x) {
            const std::uint8_t* p = &rgb[(y * 5 + x) * 3];
            EXPECT_EQ(p[0], x) << x << "," << y;
            EXPECT_EQ(p[1], 10 * y) << x << "," << y;
            EXPECT_EQ(p[2], x + y) << x << "," << y;
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
