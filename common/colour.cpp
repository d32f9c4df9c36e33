#include "common/colour.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace bfv::common {
namespace {

// sRGB's primaries and D65 white: linear RGB to CIE XYZ, and back (IEC 61966-2-1).
constexpr double kXyzFromRgb[3][3] = {{0.4124564, 0.3575761, 0.1804375},
                                      {0.2126729, 0.7151522, 0.0721750},
                                      {0.0193339, 0.1191920, 0.9503041}};
constexpr double kRgbFromXyz[3][3] = {{3.2404542, -1.5371385, -0.4985314},
                                      {-0.9692660, 1.8760108, 0.0415560},
                                      {0.0556434, -0.2040259, 1.0572252}};
// The white CIELAB is relative to: XYZ of sRGB white (1, 1, 1), so that it has a* = b* = 0.
constexpr double kWhite[3] = {0.4124564 + 0.3575761 + 0.1804375, 0.2126729 + 0.7151522 + 0.0721750,
                              0.0193339 + 0.1191920 + 0.9503041};
constexpr double kDelta = 6.0 / 29.0;  // CIELAB's knee between the cube root and the line

/// Linear light of each 8-bit sRGB value, computed once: quantising a large image converts
/// millions of colours.
const std::array<double, 256>& LinearTable() {
    static const std::array<double, 256> table = [] {
        std::array<double, 256> t{};
        for (int value = 0; value < 256; ++value) {
            double v = value / 255.0;
            t[value] = v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        }
        return t;
    }();
    return table;
}

std::uint8_t Encoded(double linear) {
    double v = linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
    return static_cast<std::uint8_t>(std::clamp(std::lround(v * 255.0), 0L, 255L));
}

double LabF(double t) {
    return t > kDelta * kDelta * kDelta ? std::cbrt(t) : t / (3.0 * kDelta * kDelta) + 4.0 / 29.0;
}

double LabFInverse(double f) {
    return f > kDelta ? f * f * f : 3.0 * kDelta * kDelta * (f - 4.0 / 29.0);
}

double Radians(double degrees) { return degrees * std::numbers::pi / 180.0; }

double Degrees(double radians) { return radians * 180.0 / std::numbers::pi; }

/// Hue angle h' in degrees, 0..360 (0 for a neutral colour), eq. 4.
double HueDeg(double b, double aPrime) {
    if (b == 0.0 && aPrime == 0.0) return 0.0;
    double h = Degrees(std::atan2(b, aPrime));
    return h < 0.0 ? h + 360.0 : h;
}

double Pow7(double x) { return x * x * x * x * x * x * x; }

}  // namespace

Lab SrgbToLab(Rgb colour) {
    const std::array<double, 256>& linear = LinearTable();
    const double rgb[3] = {linear[colour.r], linear[colour.g], linear[colour.b]};
    double f[3];
    for (int row = 0; row < 3; ++row) {
        const double* m = kXyzFromRgb[row];
        f[row] = LabF((m[0] * rgb[0] + m[1] * rgb[1] + m[2] * rgb[2]) / kWhite[row]);
    }
    return {116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])};
}

Rgb LabToSrgb(const Lab& lab) {
    double fy = (lab.l + 16.0) / 116.0;
    const double xyz[3] = {kWhite[0] * LabFInverse(fy + lab.a / 500.0), kWhite[1] * LabFInverse(fy),
                           kWhite[2] * LabFInverse(fy - lab.b / 200.0)};
    std::uint8_t out[3];
    for (int row = 0; row < 3; ++row) {
        const double* m = kRgbFromXyz[row];
        out[row] = Encoded(m[0] * xyz[0] + m[1] * xyz[1] + m[2] * xyz[2]);
    }
    return {out[0], out[1], out[2]};
}

double Ciede2000(const Lab& first, const Lab& second) {
    constexpr double k25Pow7 = 6103515625.0;  // 25^7
    double cBar = 0.5 * (std::hypot(first.a, first.b) + std::hypot(second.a, second.b));
    double g = 0.5 * (1.0 - std::sqrt(Pow7(cBar) / (Pow7(cBar) + k25Pow7)));  // eq. 2
    double a1 = (1.0 + g) * first.a, a2 = (1.0 + g) * second.a;               // eq. 3
    double c1 = std::hypot(a1, first.b), c2 = std::hypot(a2, second.b);
    double h1 = HueDeg(first.b, a1), h2 = HueDeg(second.b, a2);
    double dL = second.l - first.l, dC = c2 - c1;  // eqs. 8, 9
    double dh = 0.0;                               // eq. 10
    if (c1 * c2 != 0.0) {
        dh = h2 - h1;
        if (dh > 180.0) dh -= 360.0;
        if (dh < -180.0) dh += 360.0;
    }
    double dH = 2.0 * std::sqrt(c1 * c2) * std::sin(Radians(dh / 2.0));  // eq. 11
    double lBar = 0.5 * (first.l + second.l), cBarPrime = 0.5 * (c1 + c2);
    double hBar = h1 + h2;  // eq. 14
    if (c1 * c2 != 0.0) {
        hBar = std::abs(h1 - h2) <= 180.0 ? 0.5 * hBar
               : hBar < 360.0             ? 0.5 * (hBar + 360.0)
                                          : 0.5 * (hBar - 360.0);
    }
    double t = 1.0 - 0.17 * std::cos(Radians(hBar - 30.0)) + 0.24 * std::cos(Radians(2.0 * hBar)) +
               0.32 * std::cos(Radians(3.0 * hBar + 6.0)) -
               0.20 * std::cos(Radians(4.0 * hBar - 63.0));  // eq. 15
    double dTheta = 30.0 * std::exp(-std::pow((hBar - 275.0) / 25.0, 2.0));
    double rC = 2.0 * std::sqrt(Pow7(cBarPrime) / (Pow7(cBarPrime) + k25Pow7));
    double lOff2 = (lBar - 50.0) * (lBar - 50.0);
    double sL = 1.0 + 0.015 * lOff2 / std::sqrt(20.0 + lOff2);  // eqs. 18-20
    double sC = 1.0 + 0.045 * cBarPrime, sH = 1.0 + 0.015 * cBarPrime * t;
    double rT = -std::sin(Radians(2.0 * dTheta)) * rC;  // eq. 21
    double l = dL / sL, c = dC / sC, h = dH / sH;
    return std::sqrt(l * l + c * c + h * h + rT * c * h);  // eq. 22
}

}  // namespace bfv::common
