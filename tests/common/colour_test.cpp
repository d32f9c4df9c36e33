#include "common/colour.h"

#include <gtest/gtest.h>

namespace bfv::common {
namespace {

struct TestPair {
    Lab first, second;
    double deltaE;
};

// Pairs 1, 2, 7, 8, 13-17, 19-21, 25, 26, 31 and 34 of Table 1 of "The CIEDE2000
// color-difference formula: implementation notes" (Sharma, Wu and Dalal, 2005): the hue
// discontinuities, the mean hue's wrap-around, neutral colours and near-black.
const TestPair kSharmaPairs[] = {
    {{50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}, 2.0425},
    {{50.0, 3.1571, -77.2803}, {50.0, 0.0, -82.7485}, 2.8615},
    {{50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}, 2.3669},
    {{50.0, -1.0, 2.0}, {50.0, 0.0, 0.0}, 2.3669},
    {{50.0, 2.49, -0.001}, {50.0, -2.49, 0.0009}, 7.1792},
    {{50.0, 2.49, -0.001}, {50.0, -2.49, 0.001}, 7.1792},
    {{50.0, 2.49, -0.001}, {50.0, -2.49, 0.0011}, 7.2195},
    {{50.0, 2.49, -0.001}, {50.0, -2.49, 0.0012}, 7.2195},
    {{50.0, -0.001, 2.49}, {50.0, 0.0009, -2.49}, 4.8045},
    {{50.0, -0.001, 2.49}, {50.0, 0.0011, -2.49}, 4.7461},
    {{50.0, 2.5, 0.0}, {50.0, 0.0, -2.5}, 4.3065},
    {{50.0, 2.5, 0.0}, {73.0, 25.0, -18.0}, 27.1492},
    {{60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}, 1.2644},
    {{63.0109, -31.0961, -5.8663}, {62.8187, -29.7946, -4.0864}, 1.2630},
    {{90.8027, -2.0831, 1.441}, {91.1528, -1.6435, 0.0447}, 1.4441},
    {{2.0776, 0.0795, -1.135}, {0.9033, -0.0636, -0.5514}, 0.9082},
};

TEST(Ciede2000, MatchesSharmaWuAndDalalsTestData) {
    for (const TestPair& p : kSharmaPairs) {
        EXPECT_NEAR(Ciede2000(p.first, p.second), p.deltaE, 5e-5)
            << p.first.l << "," << p.first.a << "," << p.first.b;
        EXPECT_NEAR(Ciede2000(p.second, p.first), p.deltaE, 5e-5) << "symmetric";
    }
    EXPECT_EQ(Ciede2000({40.0, 10.0, -20.0}, {40.0, 10.0, -20.0}), 0.0);
}

void ExpectLab(Rgb colour, const Lab& expected) {
    Lab lab = SrgbToLab(colour);
    EXPECT_NEAR(lab.l, expected.l, 0.01);
    EXPECT_NEAR(lab.a, expected.a, 0.01);
    EXPECT_NEAR(lab.b, expected.b, 0.01);
}

TEST(SrgbToLab, GivesTheCieLabOfSrgbPrimariesAndWhite) {
    ExpectLab({255, 255, 255}, {100.0, 0.0, 0.0});
    ExpectLab({0, 0, 0}, {0.0, 0.0, 0.0});
    ExpectLab({255, 0, 0}, {53.2408, 80.0925, 67.2032});
    ExpectLab({0, 255, 0}, {87.7347, -86.1827, 83.1793});
    ExpectLab({0, 0, 255}, {32.2970, 79.1875, -107.8602});
    ExpectLab({119, 119, 119}, {50.0344, 0.0, 0.0});  // mid grey
}

TEST(LabToSrgb, InvertsSrgbToLabForEvery8BitColour) {
    for (int r = 0; r < 256; r += 5) {
        for (int g = 0; g < 256; g += 3) {
            for (int b = 0; b < 256; b += 7) {
                Rgb c{std::uint8_t(r), std::uint8_t(g), std::uint8_t(b)};
                ASSERT_EQ(LabToSrgb(SrgbToLab(c)), c) << r << "," << g << "," << b;
            }
        }
    }
    EXPECT_EQ(LabToSrgb({110.0, 0.0, 0.0}), (Rgb{255, 255, 255})) << "out of gamut: clipped";
    EXPECT_EQ(LabToSrgb({-5.0, 0.0, 0.0}), (Rgb{0, 0, 0})) << "out of gamut: clipped";
}

}  // namespace
}  // namespace bfv::common
